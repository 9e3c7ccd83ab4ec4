import { pushAll } from '../util/arrays';
import { changeBlocks, ownString, splitKeepEnds, type ChangeBlock } from './lines';

/**
 * One change the agent made in one file during one turn: lines `[baseStart, baseEnd)` of the text
 * before the turn became lines `[agentStart, agentEnd)` of the text the agent left. Line indexes
 * are 0-based and lines keep their terminators, so `baseText`/`agentText` are exact.
 */
export interface AgentHunk {
  /** Stable for the same change of the same file in the same turn (position and content). */
  readonly key: string;
  readonly baseStart: number;
  readonly baseEnd: number;
  readonly agentStart: number;
  readonly agentEnd: number;
  readonly baseText: string;
  readonly agentText: string;
}

export function hunkAdded(h: AgentHunk): number {
  return h.agentEnd - h.agentStart;
}

export function hunkRemoved(h: AgentHunk): number {
  return h.baseEnd - h.baseStart;
}

/** The agent's changes from `base` to `agent`, one hunk per differing run (no context lines). */
export function computeHunks(base: string, agent: string): AgentHunk[] {
  const a = splitKeepEnds(base);
  const b = splitKeepEnds(agent);
  return changeBlocks(a, b).map((blk) => {
    // Own copies: a hunk must not keep the whole file it was cut from alive (see ownString).
    const baseText = ownString(a.slice(blk.aStart, blk.aEnd).join(''));
    const agentText = ownString(b.slice(blk.bStart, blk.bEnd).join(''));
    return {
      key: `${blk.aStart}-${blk.aEnd}:${blk.bStart}-${blk.bEnd}:${fnv1a(baseText + '\0' + agentText)}`,
      baseStart: blk.aStart,
      baseEnd: blk.aEnd,
      agentStart: blk.bStart,
      agentEnd: blk.bEnd,
      baseText,
      agentText,
    };
  });
}

/** The agent's text: `base` with every hunk applied. */
export function applyAllHunks(base: string, hunks: readonly AgentHunk[]): string {
  return expectedText(base, hunks, new Set()).text;
}

/**
 * What one turn did to one file, as the planner needs it. `base` undefined: the file did not
 * exist before the turn (the agent created it); `agentExists` false: the agent deleted it.
 */
export interface FileModel {
  readonly base: string | undefined;
  readonly hunks: readonly AgentHunk[];
  readonly agentExists: boolean;
  /** Hunks already reverted (by us); the rest are expected to hold the agent's text. */
  readonly reverted: ReadonlySet<string>;
}

/**
 * Where a hunk stands in the current text. `applied`: the agent's lines are there, untouched;
 * `reverted`: the lines from before the turn are there (reverted by us, by an undo, or by the diff
 * editor's own revert arrow); `modified`: someone changed the region since — the user, another
 * session, or a later turn.
 */
export type HunkStatus = 'applied' | 'reverted' | 'modified';

export interface HunkState {
  readonly hunk: AgentHunk;
  readonly status: HunkStatus;
  /** The region in the current text (0-based line indexes, end exclusive); for `modified`, the whole edited span. */
  readonly currentStart: number;
  readonly currentEnd: number;
}

export interface FileAnalysis {
  readonly hunks: readonly HunkState[];
  readonly currentExists: boolean;
}

interface Region {
  readonly hunk: AgentHunk;
  /** The hunk's region in the expected text. */
  readonly start: number;
  readonly end: number;
  readonly expectReverted: boolean;
}

interface Expected {
  readonly lines: readonly string[];
  readonly text: string;
  readonly regions: readonly Region[];
}

/** The text we expect on disk: `base` with every hunk not yet reverted applied. */
function expectedText(base: string, hunks: readonly AgentHunk[], reverted: ReadonlySet<string>): Expected {
  const baseLines = splitKeepEnds(base);
  const lines: string[] = [];
  const regions: Region[] = [];
  let at = 0;
  for (const h of hunks) {
    for (let i = at; i < h.baseStart; i++) {
      lines.push(baseLines[i] ?? '');
    }
    const expectReverted = reverted.has(h.key);
    const start = lines.length;
    pushAll(lines, splitKeepEnds(expectReverted ? h.baseText : h.agentText));
    regions.push({ hunk: h, start, end: lines.length, expectReverted });
    at = h.baseEnd;
  }
  for (let i = at; i < baseLines.length; i++) {
    lines.push(baseLines[i] ?? '');
  }
  return { lines, text: lines.join(''), regions };
}

interface Located {
  readonly region: Region;
  readonly status: HunkStatus;
  readonly currentStart: number;
  readonly currentEnd: number;
  /** For `modified`: the span of expected and current text that covers the region and every edit touching it. */
  readonly span?: { readonly eStart: number; readonly eEnd: number; readonly cStart: number; readonly cEnd: number };
}

function sameLines(a: readonly string[], aStart: number, b: readonly string[]): boolean {
  for (let i = 0; i < b.length; i++) {
    if (a[aStart + i] !== b[i]) {
      return false;
    }
  }
  return true;
}

/**
 * Finds each hunk's region in the current text through the diff expected → current: a region no
 * foreign edit touches holds what we expect; a region whose edits turn it exactly into the other
 * side flipped (an undo, or a revert made outside the Changes view); anything else was modified.
 */
function locate(expected: Expected, current: readonly string[]): Located[] {
  const blocks = changeBlocks(expected.lines, current);
  const out: Located[] = [];
  let bi = 0;
  let deltaBefore = 0;
  for (const region of expected.regions) {
    const { start: s, end: e } = region;
    // Blocks wholly before the region (an insertion exactly at its start counts as before).
    while (bi < blocks.length) {
      const b = blocks[bi];
      // Wholly before: for an empty region (a pure deletion) a block ending at it touches it.
      if (b === undefined || !(s < e ? b.aEnd <= s : b.aEnd < s)) {
        break;
      }
      deltaBefore += b.bEnd - b.bStart - (b.aEnd - b.aStart);
      bi++;
    }
    const touching: ChangeBlock[] = [];
    for (let j = bi; j < blocks.length; j++) {
      const b = blocks[j];
      if (b === undefined) {
        break;
      }
      const hits = s < e ? b.aStart < e && b.aEnd > s : b.aStart <= s && b.aEnd >= s;
      if (!hits) {
        break;
      }
      touching.push(b);
    }
    const otherLines = splitKeepEnds(region.expectReverted ? region.hunk.agentText : region.hunk.baseText);
    const intact: HunkStatus = region.expectReverted ? 'reverted' : 'applied';
    const flipped: HunkStatus = region.expectReverted ? 'applied' : 'reverted';
    const first = touching[0];
    const last = touching[touching.length - 1];
    if (first === undefined || last === undefined) {
      const cStart = s + deltaBefore;
      out.push({ region, status: intact, currentStart: cStart, currentEnd: cStart + (e - s) });
      continue;
    }
    const eStart = Math.min(s, first.aStart);
    const eEnd = Math.max(e, last.aEnd);
    const cStart = eStart + deltaBefore;
    let growth = 0;
    for (const b of touching) {
      growth += b.bEnd - b.bStart - (b.aEnd - b.aStart);
    }
    const cEnd = eEnd + deltaBefore + growth;
    const flippedLines = [...expected.lines.slice(eStart, s), ...otherLines, ...expected.lines.slice(e, eEnd)];
    if (cEnd - cStart === flippedLines.length && sameLines(current, cStart, flippedLines)) {
      const at = cStart + (s - eStart);
      out.push({ region, status: flipped, currentStart: at, currentEnd: at + otherLines.length });
      continue;
    }
    if (s === e && !touching.some((b) => b.aStart < s && b.aEnd > s)) {
      // An empty region (a pure deletion) with edits only beside it: still what we expect.
      let before = 0;
      for (const b of touching) {
        if (b.aEnd <= s) {
          before += b.bEnd - b.bStart - (b.aEnd - b.aStart);
        }
      }
      const at = s + deltaBefore + before;
      out.push({ region, status: intact, currentStart: at, currentEnd: at });
      continue;
    }
    out.push({ region, status: 'modified', currentStart: cStart, currentEnd: cEnd, span: { eStart, eEnd, cStart, cEnd } });
  }
  return out;
}

/** Where every hunk of one turn's change to one file stands in `current` (undefined: the file does not exist). */
export function analyzeFile(model: FileModel, current: string | undefined): FileAnalysis {
  const expected = expectedText(model.base ?? '', model.hunks, model.reverted);
  const located = locate(expected, splitKeepEnds(current ?? ''));
  return {
    currentExists: current !== undefined,
    hunks: located.map((l) => ({ hunk: l.region.hunk, status: l.status, currentStart: l.currentStart, currentEnd: l.currentEnd })),
  };
}

export interface HunkConflict {
  readonly hunk: AgentHunk;
  /** The edited span in the current text (0-based lines, end exclusive). */
  readonly currentStart: number;
  readonly currentEnd: number;
}

export interface RevertOutcome {
  /** The text to leave; undefined: the file must not exist. */
  readonly result: string | undefined;
  /** Whether `result` differs from the current text (or existence changes). */
  readonly changed: boolean;
  /** Hunks that hold the text from before the turn afterwards (reverted now or already). */
  readonly reverted: readonly AgentHunk[];
  /** Hunks reverted by this plan (a subset of `reverted`). */
  readonly revertedNow: readonly AgentHunk[];
  /** Hunks whose region was edited since; left alone unless `force`. */
  readonly conflicts: readonly HunkConflict[];
}

export interface RevertOptions {
  /** Revert conflicting hunks too, discarding the edits made in their region since. */
  readonly force?: boolean;
}

/**
 * Computes the text that reverts exactly the agent's hunks `keys` (or all) in the CURRENT text,
 * which may hold edits made since (by the user, another session, a later turn). A hunk whose
 * region still holds what the agent wrote is replaced by the lines from before the turn; a hunk
 * whose region was edited since is a conflict and left alone unless `force`, which restores the
 * whole edited span. Reverting every hunk of a file the agent created, leaving it empty, deletes
 * it; reverting a deleted file (`keys` all) creates it again. With no edits since, reverting all
 * gives back `base` byte for byte.
 */
export function planRevert(model: FileModel, current: string | undefined, keys: ReadonlySet<string> | 'all', options: RevertOptions = {}): RevertOutcome {
  const expected = expectedText(model.base ?? '', model.hunks, model.reverted);
  const currentLines = splitKeepEnds(current ?? '');
  const located = locate(expected, currentLines);
  const wanted = (h: AgentHunk): boolean => keys === 'all' || keys.has(h.key);
  const reverted: AgentHunk[] = [];
  const revertedNow: AgentHunk[] = [];
  const conflicts: HunkConflict[] = [];
  interface Edit {
    eStart: number;
    eEnd: number;
    cStart: number;
    cEnd: number;
    regions: Region[];
  }
  const edits: Edit[] = [];
  for (const l of located) {
    const h = l.region.hunk;
    if (!wanted(h)) {
      if (l.status === 'reverted') {
        reverted.push(h);
      }
      continue;
    }
    if (l.status === 'reverted') {
      reverted.push(h);
    } else if (l.status === 'applied') {
      // The region in current holds exactly the agent's lines: swap them for the base lines.
      edits.push({ eStart: l.region.start, eEnd: l.region.end, cStart: l.currentStart, cEnd: l.currentEnd, regions: [l.region] });
      reverted.push(h);
      revertedNow.push(h);
    } else {
      conflicts.push({ hunk: h, currentStart: l.currentStart, currentEnd: l.currentEnd });
      if (options.force === true && l.span !== undefined) {
        edits.push({ eStart: l.span.eStart, eEnd: l.span.eEnd, cStart: l.span.cStart, cEnd: l.span.cEnd, regions: [l.region] });
        reverted.push(h);
        revertedNow.push(h);
      }
    }
  }
  // Forced spans may overlap each other or a clean region: merge them (they share boundaries
  // with the diff's blocks, so merged expected and current spans still correspond).
  edits.sort((x, y) => x.cStart - y.cStart || x.cEnd - y.cEnd);
  const merged: Edit[] = [];
  for (const ed of edits) {
    const prev = merged[merged.length - 1];
    if (prev !== undefined && ed.cStart < prev.cEnd) {
      prev.cEnd = Math.max(prev.cEnd, ed.cEnd);
      prev.eStart = Math.min(prev.eStart, ed.eStart);
      prev.eEnd = Math.max(prev.eEnd, ed.eEnd);
      prev.regions.push(...ed.regions);
    } else {
      merged.push({ ...ed, regions: [...ed.regions] });
    }
  }
  const out: string[] = [];
  let at = 0;
  for (const ed of merged) {
    for (let i = at; i < ed.cStart; i++) {
      out.push(currentLines[i] ?? '');
    }
    pushAll(out, replacement(expected, ed));
    at = ed.cEnd;
  }
  for (let i = at; i < currentLines.length; i++) {
    out.push(currentLines[i] ?? '');
  }
  const text = out.join('');
  let result: string | undefined = text;
  const allReverted = model.hunks.every((h) => reverted.includes(h));
  if (model.base === undefined && allReverted && (keys === 'all' || model.hunks.length > 0)) {
    // A file the agent created: once everything it put there is gone, the file goes too.
    if (text === '') {
      result = undefined;
    } else if (model.hunks.length === 0) {
      // The agent created it empty and someone wrote into it since.
      if (options.force === true) {
        result = undefined;
      } else {
        conflicts.push({ hunk: wholeFile, currentStart: 0, currentEnd: currentLines.length });
      }
    }
  } else if (current === undefined && revertedNow.length === 0 && !(keys === 'all' && !model.agentExists && model.base !== undefined)) {
    // No file and nothing to bring back: leave it absent.
    result = undefined;
  }
  return { result, changed: result !== current, reverted, revertedNow, conflicts };
}

/** Stands for "the whole file" in a conflict on a file that has no line hunks. */
const wholeFile: AgentHunk = { key: 'file', baseStart: 0, baseEnd: 0, agentStart: 0, agentEnd: 0, baseText: '', agentText: '' };

/** The lines an edit writes: the expected text of its span with its hunks' regions put back to the base lines. */
function replacement(expected: Expected, ed: { eStart: number; eEnd: number; regions: Region[] }): string[] {
  const regions = [...ed.regions].sort((x, y) => x.start - y.start);
  const out: string[] = [];
  let at = ed.eStart;
  for (const r of regions) {
    for (let i = at; i < r.start; i++) {
      out.push(expected.lines[i] ?? '');
    }
    pushAll(out, splitKeepEnds(r.hunk.baseText));
    at = Math.max(at, r.end);
  }
  for (let i = at; i < ed.eEnd; i++) {
    out.push(expected.lines[i] ?? '');
  }
  return out;
}

/** A short, stable hash (FNV-1a, 32 bit) for hunk keys. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** A minimal set of line replacements turning `from` into `to`, as character offsets into `from`. */
export interface TextReplacement {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export function textReplacements(from: string, to: string): TextReplacement[] {
  const a = splitKeepEnds(from);
  const b = splitKeepEnds(to);
  const offsets: number[] = [0];
  for (const line of a) {
    offsets.push((offsets[offsets.length - 1] ?? 0) + line.length);
  }
  return changeBlocks(a, b).map((blk) => ({
    start: offsets[blk.aStart] ?? 0,
    end: offsets[blk.aEnd] ?? 0,
    text: b.slice(blk.bStart, blk.bEnd).join(''),
  }));
}
