import type { Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';

/** Which way a traffic entry went. `note` entries are ours (not on the wire). */
export type TrafficDirection = 'in' | 'out' | 'stderr' | 'note';

/** What a line turned out to be. */
export type TrafficKind =
  | 'request'
  | 'response'
  | 'error'
  | 'notification'
  | 'invalid' // not JSON / not JSON-RPC / invalid UTF-8
  | 'oversized' // a line beyond the size limit, dropped unread
  | 'ignored' // well-formed but deliberately not dispatched (unknown update kind, unknown response id, …)
  | 'text'; // stderr lines and notes

export interface TrafficEntry {
  readonly seq: number;
  /** Unix epoch milliseconds. */
  readonly time: number;
  readonly dir: TrafficDirection;
  readonly kind: TrafficKind;
  readonly method: string | undefined;
  readonly id: string | number | undefined;
  /** Size on the wire in bytes (UTF-8). */
  readonly size: number;
  /** The line (or a prefix of it when it was too large to keep). */
  readonly text: string;
  /** Why the entry is special (invalid JSON reason, truncation, …). */
  readonly note: string | undefined;
}

export interface TrafficLogOptions {
  /** Most entries kept (oldest dropped first). */
  readonly maxEntries?: number;
  /** Most characters kept across all entries. */
  readonly maxChars?: number;
  /** Most characters kept for one entry; longer lines keep a prefix. */
  readonly maxEntryChars?: number;
  readonly now?: () => number;
}

export interface TrafficInput {
  readonly dir: TrafficDirection;
  readonly kind: TrafficKind;
  readonly method?: string;
  readonly id?: string | number;
  readonly size: number;
  readonly text: string;
  readonly note?: string;
}

/**
 * Rewrites an entry's text (and note) before it is stored, e.g. to hide secrets: nothing else
 * derives from the log but what it stored, so a redacted value reaches no channel, report or fixture.
 */
export interface TrafficRedactor {
  redact(text: string, entry: TrafficInput): string;
}

/**
 * A bounded ring of every message in both directions plus stderr lines — the source of
 * "Hermes: Show Traffic", of error reports, and of recorded fixtures (after Zed's ACP debug log).
 */
export class TrafficLog {
  private readonly entries: TrafficEntry[] = [];
  private head = 0; // index of the oldest live entry in `entries`
  private chars = 0;
  private nextSeq = 1;
  private readonly maxEntries: number;
  private readonly maxChars: number;
  private readonly maxEntryChars: number;
  private readonly now: () => number;
  private redactors: readonly TrafficRedactor[] = [];
  private readonly onDidAppendEmitter = new Emitter<TrafficEntry>();
  /** Fires for every appended entry. */
  readonly onDidAppend = this.onDidAppendEmitter.event;

  constructor(options: TrafficLogOptions = {}) {
    this.maxEntries = options.maxEntries ?? 5000;
    this.maxChars = options.maxChars ?? 16 * 1024 * 1024;
    this.maxEntryChars = options.maxEntryChars ?? 256 * 1024;
    this.now = options.now ?? Date.now;
  }

  /** Applies `redactor` to every entry appended from now on (the MCP secrets of the sessions on this log). */
  addRedactor(redactor: TrafficRedactor): Disposable {
    this.redactors = [...this.redactors, redactor];
    return {
      dispose: () => {
        this.redactors = this.redactors.filter((r) => r !== redactor);
      },
    };
  }

  append(input: TrafficInput): TrafficEntry {
    let text = input.text;
    let note = input.note;
    for (const r of this.redactors) {
      text = r.redact(text, input);
      if (note !== undefined) {
        note = r.redact(note, input);
      }
    }
    if (text.length > this.maxEntryChars) {
      const kept = `kept the first ${this.maxEntryChars} of ${text.length} characters`;
      text = flatPrefix(text, this.maxEntryChars);
      note = note !== undefined ? `${note}; ${kept}` : kept;
    }
    // One fixed object shape (no spreads): this runs for every message on the streaming path.
    const entry: TrafficEntry = {
      seq: this.nextSeq++,
      time: this.now(),
      dir: input.dir,
      kind: input.kind,
      method: input.method,
      id: input.id,
      size: input.size,
      text,
      note,
    };
    this.entries.push(entry);
    this.chars += text.length;
    if (this.size > this.maxEntries || this.chars > this.maxChars) {
      this.evict();
    }
    if (this.onDidAppendEmitter.hasListeners) {
      this.onDidAppendEmitter.fire(entry);
    }
    return entry;
  }

  note(text: string): TrafficEntry {
    return this.append({ dir: 'note', kind: 'text', size: 0, text });
  }

  /** Live entries, oldest first. */
  snapshot(): readonly TrafficEntry[] {
    return this.entries.slice(this.head);
  }

  get size(): number {
    return this.entries.length - this.head;
  }

  /** Characters currently held (the memory bound). */
  get heldChars(): number {
    return this.chars;
  }

  /** The log as JSON lines in the fixture format (`{t, dir, msg}`), for recording transcripts. */
  toJsonl(): string {
    const entries = this.snapshot();
    const t0 = entries[0]?.time ?? 0;
    return entries
      .map((e) => {
        const t = (e.time - t0) / 1000;
        if (e.dir === 'in' || e.dir === 'out') {
          let msg: unknown = e.text;
          try {
            msg = JSON.parse(e.text) as unknown;
          } catch {
            // keep invalid lines as strings: they are part of what happened
          }
          return JSON.stringify({ t, dir: e.dir === 'out' ? '->' : '<-', msg });
        }
        return JSON.stringify({ t, dir: '##', msg: `${e.dir}: ${e.text}` });
      })
      .join('\n');
  }

  dispose(): void {
    this.onDidAppendEmitter.dispose();
  }

  private evict(): void {
    while (this.size > 1 && (this.size > this.maxEntries || this.chars > this.maxChars)) {
      const old = this.entries[this.head];
      this.head++;
      if (old !== undefined) {
        this.chars -= old.text.length;
      }
    }
    // Compact occasionally so the backing array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }
}

/** One human-readable line for an entry (the "Show Traffic" output channel format). */
export function formatTrafficEntry(e: TrafficEntry, verbose: boolean): string {
  const arrow = e.dir === 'out' ? '→' : e.dir === 'in' ? '←' : e.dir === 'stderr' ? 'stderr' : '#';
  const what = [e.kind, e.method, e.id !== undefined ? `#${String(e.id)}` : undefined].filter((x) => x !== undefined).join(' ');
  const size = e.size > 0 ? ` (${e.size} B)` : '';
  const note = e.note !== undefined ? ` [${e.note}]` : '';
  if (e.dir === 'stderr' || e.dir === 'note') {
    return `${arrow} ${e.text}${note}`;
  }
  const body = verbose ? ` ${e.text}` : '';
  return `${arrow} ${what}${size}${note}${body}`;
}

/**
 * The first `n` characters as a string of their own. `slice` would return a V8 sliced string that
 * keeps the whole (possibly 40 MB) line alive while the log believes it holds only the prefix.
 */
export function flatPrefix(text: string, n: number): string {
  return Buffer.from(text.slice(0, n), 'utf16le').toString('utf16le');
}
