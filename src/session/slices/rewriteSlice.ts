import type { SessionAction } from '../sessionActions';
import type { Entry, SessionState, UserEntry } from '../sessionState';
import { reduceTurn } from './turnSlice';

/** The actions this slice owns: a native history rewrite and the agent's durable row ids. */
export type RewriteAction = Extract<SessionAction, { type: 'rewriteStarted' | 'historyRewritten' | 'userRowsBound' }>;

/**
 * Edit / regenerate from an earlier user message, done on the agent's side (TUI Gateway truncating
 * `prompt.submit`): the transcript is cut before that message and a new turn starts with the edited
 * one. Every cached row id is stale afterwards; the survivors are rebound from the agent's answer.
 */
export function reduceRewrite(state: SessionState, action: RewriteAction): SessionState {
  switch (action.type) {
    case 'rewriteStarted': {
      const index = state.entries.findIndex((e) => e.id === action.fromEntryId);
      if (index < 0 || state.entries[index]?.kind !== 'user' || state.phase !== 'idle') {
        return state;
      }
      const cut: SessionState = { ...state, entries: state.entries.slice(0, index), plan: [] };
      return reduceTurn(cut, { type: 'promptSubmitted', turnId: action.turnId, id: action.id, at: action.at, blocks: action.blocks });
    }
    case 'historyRewritten': {
      // The rewritten message is the last user entry; it has no row id until the history is read again.
      const users = userIndexes(state.entries);
      const rewritten = users[users.length - 1];
      return bindRows(state, action.survivorRowIds, rewritten);
    }
    case 'userRowsBound':
      return bindRows(state, action.rowIds, undefined);
  }
}

/** The transcript's user turns as the agent counts them: every user entry, in order. */
export function userIndexes(entries: readonly Entry[]): number[] {
  const out: number[] = [];
  entries.forEach((e, i) => {
    if (e.kind === 'user') {
      out.push(i);
    }
  });
  return out;
}

function bindRows(state: SessionState, rowIds: readonly (number | null)[], skip: number | undefined): SessionState {
  let entries: Entry[] | undefined;
  let ordinal = 0;
  for (const i of userIndexes(state.entries)) {
    const e = state.entries[i] as UserEntry;
    const id = i === skip ? null : (rowIds[ordinal++] ?? null);
    if ((e.rowId ?? null) === id) {
      continue;
    }
    entries ??= state.entries.slice();
    const { rowId: _stale, ...rest } = e;
    entries[i] = id === null ? rest : { ...rest, rowId: id };
  }
  return entries === undefined ? state : { ...state, entries };
}
