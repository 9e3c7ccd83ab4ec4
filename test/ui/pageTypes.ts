/**
 * The little of the DOM the page-side functions given to `evaluate()` use. The tests are type-checked
 * with the Node typings only (no DOM lib), so page code reaches the browser's globals through
 * `page()` and annotates elements with {@link PageElement}.
 */
export interface PageElement {
  readonly tagName: string;
  className: string;
  readonly textContent: string | null;
  readonly innerText: string;
  readonly outerHTML: string;
  readonly hidden: boolean;
  /** `<details>` */
  readonly open?: boolean;
  scrollTop: number;
  readonly clientHeight: number;
  readonly scrollHeight: number;
  readonly attributes: ArrayLike<{ readonly name: string; readonly value: string }>;
  readonly ownerDocument: { querySelectorAll(selector: string): ArrayLike<PageElement> };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  getAttribute(name: string): string | null;
  getClientRects(): ArrayLike<unknown>;
  getBoundingClientRect(): Box;
}

/** An element's border box, as `getBoundingClientRect()` gives it (the fields the tests read). */
export interface Box {
  readonly top: number;
  readonly bottom: number;
  readonly width: number;
}

export interface PageObserver {
  observe(target: PageElement, options: Readonly<Record<string, boolean>>): void;
  disconnect(): void;
}

/** The browser's global object, plus what the tests store on it. */
export interface PageGlobals {
  readonly MutationObserver: new (callback: () => void) => PageObserver;
  requestAnimationFrame(callback: () => void): number;
  getComputedStyle(element: PageElement): { readonly visibility: string };
  [key: string]: unknown;
}

/**
 * Only for use INSIDE page functions: the browser's global object. (It is called there, where
 * `globalThis` is the page's window; the function is serialised, so it must not close over Node values.)
 */
export type PageGlobalsOf<T> = PageGlobals & T;
