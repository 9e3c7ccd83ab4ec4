import type { EntryView, PartView, SessionHeaderView } from '../protocol/sessionView';
import type { EntryOp, HostMessage } from '../protocol/webviewProtocol';

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
 * node (and its UI state) for as long as its entry lives.
 */
export interface Slot {
  entry: EntryView;
  change: SlotChange;
  component: EntryComponent | undefined;
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

  private lastSeq: number | undefined;
  private resyncRequestedAt: number | undefined;
  private frameRequested = false;

  private snapshotPending = false;
  private structurePending = false;
  private headerPending = false;
  private readonly dirty = new Set<Slot>();
  private readonly inserted = new Set<Slot>();
  private removed: Slot[] = [];

  constructor(private readonly deps: ViewStoreDeps) {}

  get seq(): number | undefined {
    return this.lastSeq;
  }

  receive(message: HostMessage): void {
    if (message.type === 'session/snapshot') {
      this.applySnapshot(message.seq, message.view.header, message.view.entries);
    } else if (message.type === 'session/patch') {
      this.applyPatch(message.seq, message.ops, message.header);
    }
  }

  /** Renders now if a frame is pending (tests, and before the page is hidden). */
  flush(): void {
    if (!this.snapshotPending && !this.structurePending && !this.headerPending && this.dirty.size === 0 && this.removed.length === 0) {
      return;
    }
    const frame: Frame = {
      snapshot: this.snapshotPending,
      structure: this.structurePending,
      header: this.headerPending,
      dirty: [...this.dirty],
      inserted: [...this.inserted],
      removed: this.removed,
    };
    this.snapshotPending = false;
    this.structurePending = false;
    this.headerPending = false;
    this.dirty.clear();
    this.inserted.clear();
    this.removed = [];
    this.renders++;
    this.deps.render(frame);
    for (const slot of frame.dirty) {
      slot.change = 'none';
    }
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  private applySnapshot(seq: number, header: SessionHeaderView, entries: readonly EntryView[]): void {
    this.lastSeq = seq;
    this.resyncRequestedAt = undefined;
    this.setHeader(header);
    // Keep the slot (and so the DOM node and its UI state) of every entry that survived.
    const byId = new Map<string, Slot>();
    for (const slot of this.slots) {
      byId.set(slot.entry.id, slot);
    }
    const next: Slot[] = [];
    for (const entry of entries) {
      const old = byId.get(entry.id);
      if (old?.entry.kind === entry.kind) {
        byId.delete(entry.id);
        old.entry = entry;
        old.change = 'full';
        next.push(old);
        this.dirty.add(old);
      } else {
        const slot: Slot = { entry, change: 'full', component: undefined };
        next.push(slot);
        this.dirty.add(slot);
      }
    }
    for (const gone of byId.values()) {
      this.dropSlot(gone);
    }
    this.slots = next;
    this.inserted.clear();
    this.snapshotPending = true;
    this.structurePending = true;
    this.schedule();
  }

  private applyPatch(seq: number, ops: readonly EntryOp[], header: SessionHeaderView | undefined): void {
    if (this.lastSeq === undefined) {
      return; // no snapshot yet: the host sends one in answer to ready
    }
    if (seq <= this.lastSeq) {
      return; // already applied (or from before the snapshot)
    }
    if (this.resyncRequestedAt !== undefined) {
      if (this.now() - this.resyncRequestedAt > resyncRetryMs) {
        this.requestResync();
      }
      return;
    }
    if (seq !== this.lastSeq + 1) {
      this.requestResync();
      return;
    }
    for (const op of ops) {
      if (!this.applyOp(op)) {
        // The op does not fit our list: we are out of step with the host.
        this.requestResync();
        return;
      }
    }
    this.lastSeq = seq;
    if (header !== undefined) {
      this.setHeader(header);
    }
    if (this.snapshotPending || this.structurePending || this.headerPending || this.dirty.size > 0 || this.removed.length > 0) {
      this.schedule();
    }
  }

  private requestResync(): void {
    this.resyncRequestedAt = this.now();
    this.deps.resync(this.lastSeq ?? -1);
  }

  private setHeader(header: SessionHeaderView): void {
    this.header = header;
    this.headerPending = true;
    this.deps.headerReceived?.(header, this.now());
  }

  private applyOp(op: EntryOp): boolean {
    switch (op.op) {
      case 'insert': {
        if (op.index > this.slots.length) {
          return false;
        }
        const slot: Slot = { entry: op.entry, change: 'full', component: undefined };
        this.slots.splice(op.index, 0, slot);
        this.dirty.add(slot);
        this.inserted.add(slot);
        this.structurePending = true;
        return true;
      }
      case 'replace': {
        const slot = this.slots[op.index];
        if (slot === undefined) {
          return false;
        }
        if (slot.entry.kind !== op.entry.kind || slot.entry.id !== op.entry.id) {
          const fresh: Slot = { entry: op.entry, change: 'full', component: undefined };
          this.slots[op.index] = fresh;
          this.dropSlot(slot);
          this.dirty.add(fresh);
          this.inserted.add(fresh);
          this.structurePending = true;
        } else {
          slot.entry = op.entry;
          slot.change = 'full';
          this.dirty.add(slot);
        }
        return true;
      }
      case 'remove': {
        if (op.index + op.count > this.slots.length) {
          return false;
        }
        for (const slot of this.slots.splice(op.index, op.count)) {
          this.dropSlot(slot);
        }
        this.structurePending = true;
        return true;
      }
      case 'appendText': {
        const slot = this.slots[op.index];
        if (slot?.entry.kind !== 'assistant') {
          return false;
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
        this.dirty.add(slot);
        return true;
      }
    }
  }

  private dropSlot(slot: Slot): void {
    this.dirty.delete(slot);
    this.inserted.delete(slot);
    if (slot.component !== undefined) {
      this.removed.push(slot); // a slot inserted and removed within one frame was never rendered
    }
  }

  private schedule(): void {
    if (this.frameRequested) {
      return;
    }
    this.frameRequested = true;
    this.deps.requestFrame(() => {
      this.frameRequested = false;
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
