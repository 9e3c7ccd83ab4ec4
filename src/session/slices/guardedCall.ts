import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../../util/json';
import { finishedToolStatuses, type Entry, type ToolEntry } from '../sessionState';

/**
 * Which tool call a permission request guards when the request names a call that was never
 * announced. Hermes asks under ids of its own (`edit-approval-N`, `perm-check-N`; hermes-acp.md
 * §6–7, fixtures/hermes/main.jsonl) for the call it announced just before (`tc-…`), and may send
 * the guarded call just after. Both are the same real call: one card, one runner `tool_use`.
 *
 * The link is what both name: a path (locations, a diff, `rawInput.path`/`file_path`, wrapped
 * `arguments`) or a command (`rawInput.command`, or the title's part after its leading label:
 * "terminal: rm -r x" and "delete in root path: rm -r x" both name `rm -r x`).
 */

/** What a call (or the call a permission request describes) names. */
export interface CallTargets {
  readonly kind: string | undefined;
  readonly targets: ReadonlySet<string>;
}

/** Labels end at the first ": " of a title; what follows is the path or command. */
const titleLabel = /^[^:\n]{1,80}: (.+)$/s;
const pathKeys = ['path', 'file_path', 'filePath', 'filepath', 'abs_path', 'absolutePath'] as const;
const commandKeys = ['command', 'cmd'] as const;

export function targetsOf(call: {
  readonly kind?: string | null;
  readonly title?: string | null;
  readonly locations?: readonly acp.ToolCallLocation[] | null;
  readonly content?: readonly acp.ToolCallContent[] | null;
  readonly rawInput?: unknown;
}): CallTargets {
  const targets = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v.trim() !== '') {
      targets.add(v.trim());
    } else if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) {
      targets.add(v.join(' ').trim());
    }
  };
  for (const l of call.locations ?? []) {
    add(l.path);
  }
  for (const c of call.content ?? []) {
    if (c.type === 'diff') {
      add(c.path);
    }
  }
  for (const input of [call.rawInput, isObject(call.rawInput) ? call.rawInput.arguments : undefined]) {
    if (isObject(input)) {
      for (const key of [...pathKeys, ...commandKeys]) {
        add(input[key]);
      }
    }
  }
  const title = typeof call.title === 'string' ? titleLabel.exec(call.title) : null;
  if (title?.[1] !== undefined) {
    add(title[1]);
  }
  return { kind: call.kind ?? undefined, targets };
}

function sameCall(a: CallTargets, b: CallTargets): boolean {
  if (a.kind !== undefined && b.kind !== undefined && a.kind !== 'other' && b.kind !== 'other' && a.kind !== b.kind) {
    return false;
  }
  for (const t of a.targets) {
    if (b.targets.has(t)) {
      return true;
    }
  }
  return false;
}

/** Entries of the turn that are still open and may be joined, newest first. */
function* candidates(entries: readonly Entry[], turnId: number | undefined): Generator<[number, ToolEntry]> {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'user' && e.turnId !== undefined) {
      // Only the running turn: a call of an earlier turn is not what is being asked about now.
      return;
    }
    if (e?.kind === 'tool' && (turnId === undefined || e.turnId === turnId)) {
      yield [i, e];
    }
  }
}

/**
 * The open call of the turn that an unannounced permission request guards: not finished, not
 * already holding a permission, naming the same path or command. -1 when none does.
 */
export function guardedCallIndex(entries: readonly Entry[], request: acp.ToolCallUpdate, turnId: number | undefined): number {
  const wanted = targetsOf(request);
  if (wanted.targets.size === 0) {
    return -1;
  }
  for (const [i, e] of candidates(entries, turnId)) {
    if (e.permission === undefined && !finishedToolStatuses.has(e.status) && sameCall(wanted, targetsOf({ ...e, kind: e.toolKind }))) {
      return i;
    }
  }
  return -1;
}

/**
 * The entry a permission request created on its own (it matched no call then) that a call
 * announced just after it is the real one for. -1 when none.
 */
export function permissionOnlyIndex(entries: readonly Entry[], call: acp.ToolCallUpdate, turnId: number | undefined): number {
  const wanted = targetsOf(call);
  if (wanted.targets.size === 0) {
    return -1;
  }
  for (const [i, e] of candidates(entries, turnId)) {
    if (e.permissionOnly === true && sameCall(wanted, targetsOf({ ...e, kind: e.toolKind }))) {
      return i;
    }
  }
  return -1;
}

/** `content` items of `extra` that `base` does not have yet (the permission's diff next to the call's preview). */
export function mergeContent(base: readonly acp.ToolCallContent[], extra: readonly acp.ToolCallContent[] | null | undefined): readonly acp.ToolCallContent[] {
  if (extra === undefined || extra === null || extra.length === 0) {
    return base;
  }
  const seen = new Set(base.map((c) => JSON.stringify(c)));
  const added = extra.filter((c) => !seen.has(JSON.stringify(c)));
  return added.length === 0 ? base : [...base, ...added];
}

export function mergeLocations(base: readonly acp.ToolCallLocation[], extra: readonly acp.ToolCallLocation[] | null | undefined): readonly acp.ToolCallLocation[] {
  if (extra === undefined || extra === null || extra.length === 0) {
    return base;
  }
  const added = extra.filter((l) => !base.some((b) => b.path === l.path && b.line === l.line));
  return added.length === 0 ? base : [...base, ...added];
}
