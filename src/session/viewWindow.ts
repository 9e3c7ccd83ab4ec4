import type { EntryOutline, EntryView } from '../protocol/sessionView';
import type { Entry } from './sessionState';

/**
 * How much of a long transcript a snapshot (or an `entries/get` answer) carries whole: the last
 * entries up to `entries` of them and about `chars` characters of their text, at least one. The
 * rest goes as outlines ({@link outlineOf}); the webview asks for them as it scrolls near. A
 * 5,000-entry session with 50 MB of tool output made a 20 MB snapshot that the webview parsed and
 * held whole to show one screen of it (issue 43).
 */
export interface ViewLimits {
  readonly entries: number;
  readonly chars: number;
}

export const snapshotLimits: ViewLimits = { entries: 120, chars: 1_000_000 };
export const rangeLimits: ViewLimits = { entries: 80, chars: 600_000 };

/** Lines of text an outline counts at most (a height hint); a tool's output box shows about 20. */
const maxOutlineLines = 2_000;
const maxToolLines = 24;

/** Roughly the characters an entry's view holds: what its JSON costs to send and to keep. */
export function viewChars(view: EntryView): number {
  switch (view.kind) {
    case 'assistant': {
      let n = 0;
      for (const p of view.parts) {
        n += p.kind === 'block' ? 200 : p.text.length;
      }
      return n + 50;
    }
    case 'user': {
      let n = 0;
      for (const b of view.blocks) {
        n += b.type === 'text' ? b.text.length : b.type === 'image' ? (b.data?.length ?? 0) : 200;
      }
      return n + 50;
    }
    case 'tool': {
      let n = 300 + (view.rawInput?.length ?? 0) + (view.rawOutput?.length ?? 0);
      for (const c of view.content) {
        n += c.type === 'text' ? c.text.length : c.type === 'terminal' ? c.output.length : 200;
      }
      return n;
    }
    default:
      return 300;
  }
}

/**
 * The views of `entries[from…to)` that fit `limits`: walking forward from `from`, or backward from
 * `to - 1` when `fromEnd`; at least one entry when the range is not empty.
 */
export function fitRange(entries: readonly Entry[], from: number, to: number, limits: ViewLimits, project: (e: Entry) => EntryView, fromEnd = false): { from: number; views: EntryView[] } {
  const start = Math.max(0, Math.min(from, entries.length));
  const end = Math.max(start, Math.min(to, entries.length));
  const views: EntryView[] = [];
  let chars = 0;
  for (let k = 0; k < end - start && views.length < limits.entries; k++) {
    const entry = entries[fromEnd ? end - 1 - k : start + k];
    if (entry === undefined) {
      break;
    }
    const view = project(entry);
    chars += viewChars(view);
    if (views.length > 0 && chars > limits.chars) {
      break;
    }
    views.push(view);
  }
  if (fromEnd) {
    views.reverse();
    return { from: end - views.length, views };
  }
  return { from: start, views };
}

/** An entry the snapshot does not carry: its id, kind and lines of text (from the state, not projected). */
export function outlineOf(entry: Entry): EntryOutline {
  return { id: entry.id, kind: entry.kind, lines: textLines(entry) };
}

function textLines(entry: Entry): number {
  let lines = 0;
  const cap = entry.kind === 'tool' ? maxToolLines : maxOutlineLines;
  const count = (text: string): void => {
    // Newlines, plus wrapping at ~90 characters a line; the scan stops at the cap.
    for (let i = text.indexOf('\n'); i >= 0 && lines < cap; i = text.indexOf('\n', i + 1)) {
      lines++;
    }
    lines = Math.min(cap, lines + 1 + Math.floor(Math.min(text.length, 1_000_000) / 90));
  };
  switch (entry.kind) {
    case 'user':
      for (const b of entry.blocks) {
        if (b.type === 'text') {
          count(b.text);
        }
      }
      break;
    case 'assistant':
      for (const p of entry.parts) {
        if (p.kind === 'text') {
          count(p.text);
        }
      }
      break;
    case 'tool':
      for (const c of entry.content) {
        if (c.type === 'content' && c.content.type === 'text') {
          count(c.content.text);
        }
      }
      break;
    default:
      break;
  }
  return lines;
}
