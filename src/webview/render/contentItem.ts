import type { ToolContentView } from '../../protocol/sessionView';

/** One item of a tool call's content, re-rendered in place when it changes. */
export interface ContentItem {
  readonly element: HTMLElement;
  /** Takes the new content; false when the item cannot show it and must be rebuilt. */
  update(content: ToolContentView): boolean;
}

/** A tool's output box whose text is partly in yet (toolContent.ts): `rest()` puts in the rest (find calls it). */
export type OutputBox = HTMLElement & { rest?: (() => void) | undefined };
