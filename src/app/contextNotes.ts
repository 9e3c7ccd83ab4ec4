import type * as acp from '@agentclientprotocol/sdk';

/** A note as the composer shows it. */
export interface ContextNoteSummary {
  readonly key: string;
  readonly label: string;
  readonly text: string;
}

/**
 * Context sent (once) ahead of a chat's next prompt — a fork's transcript, the Changes view's "the
 * user reverted these hunks" — by key, in the order set. The composer shows them; the user can
 * remove one before sending.
 */
export class ContextNotes {
  private readonly notes = new Map<string, { label: string; blocks: acp.ContentBlock[]; onRemove?: () => void }>();

  constructor(private readonly changed: () => void) {}

  /** Sets (or, with no blocks, clears) the note under `key`. */
  set(key: string, label: string, blocks: readonly acp.ContentBlock[] | undefined, onRemove?: () => void): void {
    if (blocks === undefined || blocks.length === 0) {
      this.notes.delete(key);
    } else {
      this.notes.set(key, { label, blocks: [...blocks], ...(onRemove !== undefined ? { onRemove } : {}) });
    }
    this.changed();
  }

  /** The user removed a note in the composer. */
  remove(key: string): void {
    const note = this.notes.get(key);
    if (note !== undefined) {
      this.notes.delete(key);
      note.onRemove?.();
      this.changed();
    }
  }

  /** Every note's blocks, in order; the notes are sent once, so they are gone afterwards. */
  take(): acp.ContentBlock[] {
    const blocks = [...this.notes.values()].flatMap((n) => n.blocks);
    this.notes.clear();
    return blocks;
  }

  get list(): readonly ContextNoteSummary[] {
    return [...this.notes].map(([key, n]) => ({ key, label: n.label, text: n.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n') }));
  }
}
