import type * as acp from '@agentclientprotocol/sdk';
import type { SessionAction } from './sessionActions';
import type { SessionState } from './sessionState';
import { withDraftArrays, type UpdateContext } from './slices/entryList';
import { applyMessageUpdate } from './slices/messageSlice';
import { applyPlanUpdate } from './slices/planSlice';
import { reduceQuestion } from './slices/questionSlice';
import { reduceRewrite } from './slices/rewriteSlice';
import { applySessionInfoUpdate, reduceSessionInfo } from './slices/sessionInfoSlice';
import { applyToolUpdate, reduceToolAction } from './slices/toolSlice';
import { applyUsageUpdate, reduceTurn } from './slices/turnSlice';
import { chunkUsage } from './usage';

/**
 * The session reducer: `(state, action) → state`, pure. A no-op returns the same object, and
 * untouched entries keep their identity. It hands each action (and each ACP update) once to the
 * slice that owns it (`slices/`): messages and thoughts, tool calls with their permissions and
 * terminals, the plan, the turn and its usage, the session around the turns. Each rule there names
 * its source (ACP spec, or the real agent behaviour it tolerates).
 */
export function reduceSession(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case 'updateReceived':
      return applyUpdate(state, action.update, { id: action.id, at: action.at, turnId: state.turn?.id, replaying: state.replay !== undefined });
    case 'updatesReceived':
      return withDraftArrays(() => {
        let next = state;
        for (const u of action.updates) {
          next = applyUpdate(next, u.update, { id: u.id, at: u.at, turnId: next.turn?.id, replaying: next.replay !== undefined });
        }
        return next;
      });
    case 'permissionRequested':
    case 'permissionResolved':
    case 'toolsConfirmed':
      return reduceToolAction(state, action);
    case 'promptSubmitted':
    case 'cancelRequested':
    case 'turnEnded':
    case 'turnFailed':
    case 'agentExited':
      return reduceTurn(state, action);
    case 'questionAsked':
    case 'questionSettled':
    case 'clarifyLocked':
      return reduceQuestion(state, action);
    case 'rewriteStarted':
    case 'historyRewritten':
    case 'userRowsBound':
      return reduceRewrite(state, action);
    case 'agentConnected':
    case 'sessionStarting':
    case 'sessionStartFailed':
    case 'sessionStarted':
    case 'replayStarted':
    case 'replayEnded':
    case 'noticeAdded':
    case 'modeChanged':
    case 'modelChanged':
    case 'configOptionsChanged':
    case 'transcriptCopied':
    case 'promptHeld':
      return reduceSessionInfo(state, action);
  }
}

function applyUpdate(state: SessionState, update: acp.SessionUpdate, ctx: UpdateContext): SessionState {
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const next = applyMessageUpdate(state, update, ctx);
      // Qwen Code reports a model call's tokens only in a chunk's `_meta.usage` (summed per turn).
      const sum = next.turn !== undefined && update.sessionUpdate === 'agent_message_chunk' ? chunkUsage(next.turn.chunkUsage, update._meta) : undefined;
      return sum !== undefined && next.turn !== undefined && sum !== next.turn.chunkUsage ? { ...next, turn: { ...next.turn, chunkUsage: sum } } : next;
    }
    case 'tool_call':
    case 'tool_call_update':
      return applyToolUpdate(state, update, ctx);
    case 'plan':
      return applyPlanUpdate(state, update, ctx);
    case 'usage_update':
      return applyUsageUpdate(state, update);
    case 'available_commands_update':
    case 'current_mode_update':
    case 'config_option_update':
    case 'session_info_update':
    case 'notice':
    case 'compaction_update':
    case 'compaction_summary_chunk':
      return applySessionInfoUpdate(state, update, ctx);
  }
}
