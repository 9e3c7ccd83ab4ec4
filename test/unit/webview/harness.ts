import { JSDOM } from 'jsdom';
import type { HostMessage, WebviewMessage } from '../../../src/protocol/webviewProtocol';
import { startApp, type App } from '../../../src/webview/app';
import { setDomWindow } from '../../../src/webview/dom';
import { loadCardsSynchronously } from './cards';
import { loadGrammarsSynchronously } from './grammars';
import type { MarkdownScheduler } from '../../../src/webview/markdown';

export type TestWindow = Window & typeof globalThis;

/** Timers and a monotonic clock that only move when the test says so. */
export class FakeTimers implements MarkdownScheduler {
  private time = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.nextId++;
    this.pending.set(id, { at: this.time + ms, callback });
    return id;
  }

  clearTimeout(handle: number): void {
    this.pending.delete(handle);
  }

  /** The page is idle as soon as the timers due now have run. */
  whenIdle(callback: () => void): number {
    return this.setTimeout(callback, 0);
  }

  cancelIdle(handle: number): void {
    this.clearTimeout(handle);
  }

  /** A key waiting for the page, as the test says (`isInputPending`). */
  keyWaits = false;

  inputPending(): boolean {
    return this.keyWaits;
  }

  get count(): number {
    return this.pending.size;
  }

  /** Moves the clock, running every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const item of this.pending) {
        if (item[1].at <= end && (next === undefined || item[1].at < next[1].at)) {
          next = item;
        }
      }
      if (next === undefined) {
        break;
      }
      this.pending.delete(next[0]);
      this.time = Math.max(this.time, next[1].at);
      next[1].callback();
    }
    this.time = end;
  }
}

export interface Harness {
  readonly win: TestWindow;
  readonly doc: Document;
  readonly app: App;
  readonly timers: FakeTimers;
  /** Messages the webview posted, in order (JSON round-tripped, as the real channel would). */
  readonly posted: WebviewMessage[];
  /** The last state given to setState. */
  readonly state: () => unknown;
  /** Delivers a host message as a `message` event. */
  deliver(message: HostMessage | Record<string, unknown>): void;
  /** Runs the pending animation frame callbacks; returns how many ran. */
  frame(): number;
  /** Delivers and renders. */
  send(message: HostMessage): void;
  /** Renders pending frames and lets paced Markdown catch up. */
  settle(): void;
  postedOfType<T extends WebviewMessage['type']>(type: T): Extract<WebviewMessage, { type: T }>[];
  close(): void;
}

export interface HarnessOptions {
  readonly state?: unknown;
  readonly l10n?: Readonly<Record<string, string>>;
  /** Wall clock for skew correction (default: Date.now). */
  readonly now?: () => number;
}

/** A fresh jsdom window with a fake `acquireVsCodeApi`, the app mounted into `#app`. */
export function createHarness(options: HarnessOptions = {}): Harness {
  const l10n = options.l10n !== undefined ? `<script type="application/json" id="hermes-l10n">${JSON.stringify(options.l10n)}</script>` : '';
  const dom = new JSDOM(`<!DOCTYPE html><html><body class="vscode-dark"><div id="app"></div>${l10n}</body></html>`, { url: 'https://webview.test/' });
  const win = dom.window as unknown as TestWindow;
  const posted: WebviewMessage[] = [];
  let state: unknown = options.state;
  let apiCalls = 0;
  (win as unknown as { acquireVsCodeApi: () => unknown }).acquireVsCodeApi = () => {
    apiCalls++;
    if (apiCalls > 1) {
      throw new Error('acquireVsCodeApi may be called once');
    }
    return {
      postMessage: (message: unknown) => posted.push(JSON.parse(JSON.stringify(message)) as WebviewMessage),
      getState: () => state,
      setState: (next: unknown) => {
        state = JSON.parse(JSON.stringify(next)) as unknown;
        return next;
      },
    };
  };
  const frames: (() => void)[] = [];
  const timers = new FakeTimers();
  loadGrammarsSynchronously();
  loadCardsSynchronously();
  const app = startApp(win, {
    requestFrame: (cb) => frames.push(cb),
    scheduler: timers,
    clientId: 'test-client',
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const deliver = (message: HostMessage | Record<string, unknown>): void => {
    win.dispatchEvent(new win.MessageEvent('message', { data: JSON.parse(JSON.stringify(message)) as unknown }));
  };
  const frame = (): number => {
    const run = frames.splice(0);
    for (const cb of run) {
      cb();
    }
    return run.length;
  };
  return {
    win,
    doc: win.document,
    app,
    timers,
    posted,
    state: () => state,
    deliver,
    frame,
    send(message) {
      deliver(message);
      frame();
    },
    settle() {
      frame();
      timers.advance(500);
      frame();
    },
    postedOfType<T extends WebviewMessage['type']>(type: T) {
      return posted.filter((m): m is Extract<WebviewMessage, { type: T }> => m.type === type);
    },
    close() {
      win.close();
    },
  };
}

/** A bare window and fake timers, fresh for each test of the suite that calls this (closed after it). */
export function bareWindowEachTest(): { readonly win: TestWindow; readonly timers: FakeTimers } {
  let current: { win: TestWindow; timers: FakeTimers } | undefined;
  setup(() => {
    current = { win: bareWindow(), timers: new FakeTimers() };
  });
  teardown(() => current?.win.close());
  const now = (): { win: TestWindow; timers: FakeTimers } => {
    if (current === undefined) {
      throw new Error('bareWindowEachTest: used outside a test');
    }
    return current;
  };
  return {
    get win() {
      return now().win;
    },
    get timers() {
      return now().timers;
    },
  };
}

/** Binds the DOM helpers to a bare jsdom window (for renderer-level tests without the app). */
export function bareWindow(): TestWindow {
  const dom = new JSDOM('<!DOCTYPE html><html><body></body></html>', { url: 'https://webview.test/' });
  const win = dom.window as unknown as TestWindow;
  setDomWindow(win);
  loadGrammarsSynchronously();
  return win;
}

export function keydown(target: EventTarget & Node, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const win = (target.ownerDocument ?? (target as unknown as Document)).defaultView as TestWindow;
  const event = new win.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
}

/** Focuses the composer ("Message"), sets its text with the caret at the end, and fires `input` (what typing does). */
export function typeInComposer(h: Harness, value: string): HTMLTextAreaElement {
  const t = byRole(h.doc, 'textbox', 'Message')[0];
  if (!(t instanceof h.win.HTMLTextAreaElement)) {
    throw new Error('no composer textarea');
  }
  t.focus();
  t.value = value;
  t.setSelectionRange(value.length, value.length);
  t.dispatchEvent(new h.win.Event('input', { bubbles: true }));
  return t;
}

/** Elements with a role and accessible name, the way UI tests look them up (approximation). */
export function byRole(root: ParentNode, role: string, name?: string | RegExp): HTMLElement[] {
  const implicit: Record<string, string> = { button: 'button', textarea: 'textbox', select: 'combobox', article: 'article' };
  const all = Array.from(root.querySelectorAll<HTMLElement>('*')).filter((e) => (e.getAttribute('role') ?? implicit[e.tagName.toLowerCase()]) === role);
  if (name === undefined) {
    return all;
  }
  return all.filter((e) => {
    const n = accessibleName(e);
    return typeof name === 'string' ? n === name : name.test(n);
  });
}

export function accessibleName(e: HTMLElement): string {
  const label = e.getAttribute('aria-label');
  if (label !== null) {
    return label;
  }
  const by = e.getAttribute('aria-labelledby');
  if (by !== null) {
    return by
      .split(/\s+/)
      .map((id) => e.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim();
  }
  if (e.id !== '') {
    const forLabel = e.ownerDocument.querySelector(`label[for="${e.id}"]`);
    if (forLabel !== null) {
      return (forLabel.textContent ?? '').trim();
    }
  }
  return visibleText(e).replace(/\s+/g, ' ').trim();
}

function visibleText(e: Node): string {
  if (e.nodeType === 3) {
    return e.textContent ?? '';
  }
  if (e instanceof Object && (e as Element).getAttribute?.('aria-hidden') === 'true') {
    return '';
  }
  return Array.from(e.childNodes).map(visibleText).join('');
}
