import type * as acp from '@agentclientprotocol/sdk';
import { mergeReplay } from '../replayMerge';
import type { SessionAction } from '../sessionActions';
import type { SessionState } from '../sessionState';
import { append, appendEntry, withEntries, type UpdateContext } from './entryList';
import { unmergeReplayed } from './heldPrompt';

/** The actions this slice owns: the session's life around the turns, its settings and notices. */
export type SessionInfoAction = Extract<
  SessionAction,
  {
    type:
      | 'agentConnected'
      | 'sessionStarting'
      | 'sessionStartFailed'
      | 'sessionStarted'
      | 'replayStarted'
      | 'replayEnded'
      | 'noticeAdded'
      | 'modeChanged'
      | 'modelChanged'
      | 'configOptionsChanged'
      | 'transcriptCopied'
      | 'promptHeld';
  }
>;

/** The updates this slice owns: what the agent advertises about the session, and its notices. */
export type SessionInfoUpdate = Extract<
  acp.SessionUpdate,
  {
    sessionUpdate:
      | 'available_commands_update'
      | 'current_mode_update'
      | 'config_option_update'
      | 'session_info_update'
      | 'notice'
      | 'compaction_update'
      | 'compaction_summary_chunk';
  }
>;

/** The session around its turns: start, load replay, modes, models, config options, notices. */
export function reduceSessionInfo(state: SessionState, action: SessionInfoAction): SessionState {
  switch (action.type) {
    case 'agentConnected':
      return { ...state, quirks: action.quirks };
    case 'sessionStarting':
      return { ...state, phase: 'starting' };
    case 'sessionStartFailed':
      return state.phase === 'starting' ? { ...state, phase: state.sessionId !== undefined ? 'idle' : 'new' } : state;
    case 'sessionStarted':
      return {
        ...state,
        sessionId: action.sessionId,
        phase: 'idle',
        ...(action.modes !== undefined && action.modes !== null ? { modes: action.modes } : {}),
        ...(action.models !== undefined ? { models: action.models } : {}),
        ...(action.configOptions !== undefined && action.configOptions !== null ? { configOptions: action.configOptions } : {}),
      };
    case 'replayStarted':
      return { ...state, replay: { entries: [], plan: [] } };
    case 'replayEnded': {
      if (state.replay === undefined) {
        return state;
      }
      const { replay, ...rest } = state;
      // Hermes stores a message sent after a cancel merged with the cancelled prompt: shown as typed.
      const replayed = state.quirks.mergesCancelledPrompt ? replay.entries.map((e) => (e.kind === 'user' ? unmergeReplayed(e) : e)) : replay.entries;
      return {
        ...rest,
        entries: mergeReplay(state.entries, replayed),
        plan: replay.plan.length > 0 ? replay.plan : state.plan,
      };
    }
    case 'noticeAdded':
      return {
        ...state,
        entries: append(state.entries, {
          kind: 'notice',
          id: action.id,
          level: action.level,
          title: action.title,
          at: action.at,
          ...(action.detail !== undefined ? { detail: action.detail } : {}),
          ...(action.log !== undefined && action.log !== '' ? { log: action.log } : {}),
          ...(action.actions !== undefined ? { actions: action.actions } : {}),
          ...(action.forkFrom !== undefined ? { forkFrom: action.forkFrom } : {}),
          ...(action.suggestions !== undefined ? { suggestions: action.suggestions } : {}),
          ...(action.log !== undefined ? { log: action.log } : {}),
        }),
      };
    case 'promptHeld':
      return { ...state, held: action.held };
    case 'modeChanged':
      return state.modes === undefined || state.modes.currentModeId === action.modeId
        ? state
        : { ...state, modes: { ...state.modes, currentModeId: action.modeId } };
    case 'modelChanged':
      return state.models === undefined || state.models.currentModelId === action.modelId
        ? state
        : { ...state, models: { ...state.models, currentModelId: action.modelId } };
    case 'configOptionsChanged':
      return { ...state, configOptions: action.configOptions };
    case 'transcriptCopied':
      return { ...state, entries: [...action.entries, ...state.entries] };
  }
}

export function applySessionInfoUpdate(state: SessionState, update: SessionInfoUpdate, ctx: UpdateContext): SessionState {
  switch (update.sessionUpdate) {
    case 'available_commands_update':
      return { ...state, commands: update.availableCommands };
    case 'current_mode_update':
      return {
        ...state,
        modes: state.modes !== undefined ? { ...state.modes, currentModeId: update.currentModeId } : { currentModeId: update.currentModeId, availableModes: [] },
      };
    case 'config_option_update':
      // The list is always complete: replace wholesale (ACP session-config-options).
      return { ...state, configOptions: update.configOptions };
    case 'session_info_update': {
      // Partial update: omitted = unchanged, null = cleared.
      let next: SessionState = state;
      if (update.title !== undefined) {
        const { title: _old, ...rest } = next;
        next = update.title === null ? rest : { ...rest, title: update.title };
      }
      if (update.updatedAt !== undefined) {
        const { updatedAt: _old, ...rest } = next;
        next = update.updatedAt === null ? rest : { ...rest, updatedAt: update.updatedAt };
      }
      return next;
    }
    case 'notice':
      return withEntries(state, (entries) =>
        appendEntry(entries, {
          kind: 'notice',
          id: ctx.id,
          level: update.severity === 'error' || update.severity === 'warning' ? update.severity : 'info',
          title: update.title,
          at: ctx.at,
          ...(typeof update.description === 'string' ? { detail: update.description } : {}),
        }, ctx.at),
      );
    case 'compaction_update':
    case 'compaction_summary_chunk':
      // Not advertised (session.compaction), so agents do not send these; ignored deliberately.
      return state;
  }
}
