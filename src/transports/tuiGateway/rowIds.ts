import { isUserTurn, type TranscriptRow } from './wire';

/**
 * The durable row ids of one session's user turns, in order (`null`: known turn, no id yet — a
 * prompt submitted since the last history read). A rewrite targets a row id when it has one
 * (preferred: an ordinal can name the wrong turn), and every cached id is stale after a rewrite:
 * the gateway re-inserts the kept prefix as new rows and answers `survivor_user_row_ids`.
 */
export class RowIdBook {
  private ids: (number | null)[] = [];

  get size(): number {
    return this.ids.length;
  }

  get hasUnknown(): boolean {
    return this.ids.includes(null);
  }

  list(): readonly (number | null)[] {
    return [...this.ids];
  }

  /** From a transcript (create / resume / activate / history). */
  reset(rows: readonly TranscriptRow[]): void {
    this.ids = rows.filter(isUserTurn).map((r) => r.rowId ?? null);
  }

  /** A user turn started (ours or another client's); its id is not known yet. */
  appendTurn(): void {
    this.ids.push(null);
  }

  rowIdAt(ordinal: number): number | undefined {
    const id = this.ids[ordinal];
    return id === null ? undefined : id;
  }

  /** After a rewrite: the survivors' fresh ids, then the rewritten turn (no id yet). */
  rebind(survivors: readonly (number | null)[]): void {
    this.ids = [...survivors, null];
  }

  /** After a rewrite whose answer carried no survivor ids (an older gateway): keep the count, forget the ids. */
  forgetFrom(ordinal: number): void {
    this.ids = [...this.ids.slice(0, ordinal).map(() => null), null];
  }
}
