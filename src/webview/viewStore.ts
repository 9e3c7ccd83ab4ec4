import type { EntryOutline, EntryView, PartView, SessionHeaderView } from '../protocol/sessionView';
import type { EntriesResult, EntryOp, HostMessage } from '../protocol/webviewProtocol';

/** What changed in an entry since it was last rendered. */
export type SlotChange = 'none' | 'append' | 'full';

/** A rendered view of one entry; owned by the transcript renderer. */
export interface EntryComponent {
  readonly element: HTMLElement;
  readonly kind: EntryView['kind'];
  update(entry: EntryView, change: SlotChange): void;
  /**
   * Streaming: `entry` is the rendered entry with `appended` appended to its part `part`. True when the
   * component took it as it is (its Markdown view paces what reaches the DOM), so no frame is
   * needed; false to have it rendered in the next frame as usual.
   */
  streamText?(entry: EntryView, part: number, appended: string): boolean;
  /** The header changed (phase, agent name): for components that show it. */
  headerChanged?(): void;
  /**
   * The turn ended (called in the task of the message that said so, before the frame): render
   * now what streaming held back, so the frame that follows only lays out and paints.
   */
  turnEnded?(): void;
  dispose?(): void;
}

/**
 * One transcript position. Slots move with inserts and removes, so a component keeps its DOM
 * node (and its UI state) for as long as its entry lives and is on screen.
 */
export interface Slot {
  readonly id: string;
  readonly kind: EntryView['kind'];
  /**
   * The entry, once the host sent it; undefined for an earlier entry of a long session that only
   * its outline describes until the transcript asks for it (`entries/get`).
   */
  entry: EntryView | undefined;
  /** The entry may be out of date (a snapshot outlined it again): ask the host before trusting it. */
  stale: boolean;
  /** Lines of text (the outline's height hint). */
  lines: number;
  change: SlotChange;
  component: EntryComponent | undefined;
  /** Height of its row when it was last laid out (px), and the entry it showed then. */
  height: number | undefined;
  measured: EntryView | undefined;
}

/** A slot for an entry the host sent. */
export function slotOf(entry: EntryView): Slot {
  return { id: entry.id, kind: entry.kind, entry, stale: false, lines: 0, change: 'full', component: undefined, height: undefined, measured: undefined };
}

function outlineSlot(o: EntryOutline): Slot {
  return { id: o.id, kind: o.kind, entry: undefined, stale: true, lines: o.lines, change: 'none', component: undefined, height: undefined, measured: undefined };
}

/** Everything a render has to do; collected across all messages that arrived before the frame. */
export interface Frame {
  /** A snapshot replaced the list (slots whose id survived were kept). */
  readonly snapshot: boolean;
  /** Slots were inserted, removed or reordered. */
  readonly structure: boolean;
  readonly header: boolean;
  readonly dirty: readonly Slot[];
  readonly inserted: readonly Slot[];
  readonly removed: readonly Slot[];
}

export interface ViewStoreDeps {
  /** Asks the host for a fresh snapshot (after a seq gap or an op that does not fit). */
  resync(lastSeq: number): void;
  /** Schedules `callback` before the next paint (requestAnimationFrame in the browser). */
  requestFrame(callback: () => void): void;
  render(frame: Frame): void;
  /** Called as soon as a header arrives, with the local time of receipt (clock-skew estimate). */
  headerReceived?(header: SessionHeaderView, receivedAt: number): void;
  now?(): number;
}

/** A resync that got no snapshot is asked again after this long, if patches keep coming. */
const resyncRetryMs = 2_000;

/**
 * Applies host snapshots and patches to the entry list, tracks `seq`, and turns any number of
 * messages into ONE render per animation frame with the set of entries that changed. Text
 * appended to a part already on screen goes straight to its component instead (streaming: the
 * component's Markdown view paces its own rendering, and a frame per patch would make the browser
 * run its frame pipeline ~60 times a second for nothing).
 */
export class ViewStore {
  header: SessionHeaderView | undefined;
  slots: Slot[] = [];
  /** Incremented per render; tests use it to check coalescing. */
  renders = 0;

  #lastSeq: number | undefined;
  #resyncRequestedAt: number | undefined;
  #frameRequested = false;

  #snapshotPending = false;
  #structurePending = false;
  #headerPending = false;
  readonly #dirty = new Set<Slot>();
  readonly #inserted = new Set<Slot>();
  #removed: Slot[] = [];

  constructor(private readonly deps: ViewStoreDeps) {}

  get seq(): number | undefined {
    return this.#lastSeq;
  }

  receive(message: HostMessage): void {
    if (message.type === 'session/snapshot') {
      this.#applySnapshot(message.seq, message.view.header, message.view.entries, message.view.earlier ?? []);
    } else if (message.type === 'session/patch') {
      this.#applyPatch(message.seq, message.ops, message.header);
    }
  }

  /**
   * Entries the transcript asked for (`entries/get`). Taken only when they were valid at the seq
   * the list is at (the answer follows the patches before it) and name the slots they fill;
   * anything else is dropped, and the transcript asks again.
   */
  load(result: EntriesResult): boolean {
    if (result.seq !== this.#lastSeq || this.#resyncRequestedAt !== undefined) {
      return false;
    }
    let loaded = false;
    result.entries.forEach((entry, k) => {
      const slot = this.slots[result.from + k];
      if (slot?.id !== entry.id || slot.kind !== entry.kind) {
        return;
      }
      if (slot.entry !== entry) {
        slot.entry = entry;
        slot.change = 'full';
        this.#dirty.add(slot);
        loaded = true;
      }
      slot.stale = false;
    });
    if (loaded) {
      this.#schedule();
    }
    return loaded;
  }

  /** Renders now if a frame is pending (tests, and before the page is hidden). */
  flush(): void {
    if (!this.#hasWork()) {
      return;
    }
    const frame: Frame = {
      snapshot: this.#snapshotPending,
      structure: this.#structurePending,
      header: this.#headerPending,
      dirty: [...this.#dirty],
      inserted: [...this.#inserted],
      removed: this.#removed,
    };
    this.#snapshotPending = false;
    this.#structurePending = false;
    this.#headerPending = false;
    this.#dirty.clear();
    this.#inserted.clear();
    this.#removed = [];
    this.renders++;
    this.deps.render(frame);
    for (const slot of frame.dirty) {
      slot.change = 'none';
    }
  }

  #now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  #applySnapshot(seq: number, header: SessionHeaderView, entries: readonly EntryView[], earlier: readonly EntryOutline[]): void {
    this.#lastSeq = seq;
    this.#resyncRequestedAt = undefined;
    this.#setHeader(header);
    // Keep the slot (and so the DOM node and its UI state) of every entry that survived.
    const byId = new Map<string, Slot>();
    for (const slot of this.slots) {
      byId.set(slot.id, slot);
    }
    const next: Slot[] = [];
    for (const outline of earlier) {
      const old = byId.get(outline.id);
      if (old?.kind === outline.kind) {
        // Kept as it is shown until the transcript has it again (it may have changed meanwhile).
        byId.delete(outline.id);
        old.stale = true;
        old.lines = outline.lines;
        next.push(old);
      } else {
        next.push(outlineSlot(outline));
      }
    }
    for (const entry of entries) {
      const old = byId.get(entry.id);
      if (old?.kind === entry.kind) {
        byId.delete(entry.id);
        old.entry = entry;
        old.stale = false;
        old.change = 'full';
        next.push(old);
        this.#dirty.add(old);
      } else {
        const slot = slotOf(entry);
        next.push(slot);
        this.#dirty.add(slot);
      }
    }
    for (const gone of byId.values()) {
      this.#dropSlot(gone);
    }
    this.slots = next;
    this.#inserted.clear();
    this.#snapshotPending = true;
    this.#structurePending = true;
    this.#schedule();
  }

  #applyPatch(seq: number, ops: readonly EntryOp[], header: SessionHeaderView | undefined): void {
    if (this.#lastSeq === undefined) {
      return; // no snapshot yet: the host sends one in answer to ready
    }
    if (seq <= this.#lastSeq) {
      return; // already applied (or from before the snapshot)
    }
    if (this.#resyncRequestedAt !== undefined) {
      if (this.#now() - this.#resyncRequestedAt > resyncRetryMs) {
        this.#requestResync();
      }
      return;
    }
    if (seq !== this.#lastSeq + 1) {
      this.#requestResync();
      return;
    }
    for (const op of ops) {
      if (!this.#applyOp(op)) {
        // The op does not fit our list: we are out of step with the host.
        this.#requestResync();
        return;
      }
    }
    this.#lastSeq = seq;
    if (header !== undefined) {
      this.#setHeader(header);
    }
    if (this.#hasWork()) {
      this.#schedule();
    }
  }

  /** Whether a render has anything to do. */
  #hasWork(): boolean {
    return this.#snapshotPending || this.#structurePending || this.#headerPending || this.#dirty.size > 0 || this.#removed.length > 0;
  }

  #requestResync(): void {
    this.#resyncRequestedAt = this.#now();
    this.deps.resync(this.#lastSeq ?? -1);
  }

  #setHeader(header: SessionHeaderView): void {
    this.header = header;
    this.#headerPending = true;
    this.deps.headerReceived?.(header, this.#now());
  }

  #applyOp(op: EntryOp): boolean {
    switch (op.op) {
      case 'insert': {
        if (op.index > this.slots.length) {
          return false;
        }
        const slot = slotOf(op.entry);
        this.slots.splice(op.index, 0, slot);
        this.#dirty.add(slot);
        this.#inserted.add(slot);
        this.#structurePending = true;
        return true;
      }
      case 'replace': {
        const slot = this.slots[op.index];
        if (slot === undefined) {
          return false;
        }
        if (slot.kind !== op.entry.kind || slot.id !== op.entry.id) {
          const fresh = slotOf(op.entry);
          this.slots[op.index] = fresh;
          this.#dropSlot(slot);
          this.#dirty.add(fresh);
          this.#inserted.add(fresh);
          this.#structurePending = true;
        } else {
          slot.entry = op.entry;
          slot.stale = false;
          slot.change = 'full';
          this.#dirty.add(slot);
        }
        return true;
      }
      case 'remove': {
        if (op.index + op.count > this.slots.length) {
          return false;
        }
        for (const slot of this.slots.splice(op.index, op.count)) {
          this.#dropSlot(slot);
        }
        this.#structurePending = true;
        return true;
      }
      case 'appendText': {
        const slot = this.slots[op.index];
        if (slot?.kind !== 'assistant') {
          return false;
        }
        if (slot.entry?.kind !== 'assistant' || slot.stale) {
          return true; // not loaded (or out of date): the host's answer will carry the text
        }
        const parts = appendToParts(slot.entry.parts, op);
        if (parts === undefined) {
          return false;
        }
        slot.entry = { ...slot.entry, parts };
        if (slot.change === 'none' && slot.component?.streamText?.(slot.entry, op.part, op.text) === true) {
          return true;
        }
        if (slot.change === 'none') {
          slot.change = 'append';
        }
        this.#dirty.add(slot);
        return true;
      }
    }
  }

  #dropSlot(slot: Slot): void {
    this.#dirty.delete(slot);
    this.#inserted.delete(slot);
    if (slot.component !== undefined) {
      this.#removed.push(slot); // a slot inserted and removed within one frame was never rendered
    }
  }

  #schedule(): void {
    if (this.#frameRequested) {
      return;
    }
    this.#frameRequested = true;
    this.deps.requestFrame(() => {
      this.#frameRequested = false;
      this.flush();
    });
  }
}

/** The streaming case: grows the last part, or starts a new one (which ends an open thought). */
function appendToParts(parts: readonly PartView[], op: Extract<EntryOp, { op: 'appendText' }>): PartView[] | undefined {
  if (op.part === parts.length) {
    const next = parts.slice();
    const previous = next[next.length - 1];
    if (previous?.kind === 'thought' && previous.endedAt === undefined && op.at !== undefined) {
      next[next.length - 1] = { ...previous, endedAt: op.at };
    }
    next.push(op.kind === 'thought' ? { kind: 'thought', text: op.text, startedAt: op.at ?? Date.now() } : { kind: 'text', text: op.text });
    return next;
  }
  const part = parts[op.part];
  if (part?.kind !== op.kind) {
    return undefined;
  }
  const next = parts.slice();
  next[op.part] = { ...part, text: part.text + op.text };
  return next;
}
