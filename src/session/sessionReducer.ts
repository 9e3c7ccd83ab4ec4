import type * as acp from '@agentclientprotocol/sdk';
import { append, appendEntry, applyChunk, closeOpenTools, lastIndexOfTool, replaceAt, upsertTool, withDraftArrays, type UpdateContext } from './entryUpdates';
import { mergeReplay } from './replayMerge';
import type { PermissionOutcome, SessionAction } from './sessionActions';
import type { Entry, PermissionState, PlanSnapshotEntry, SessionState, ToolEntry, TurnEndEntry, TurnOutcome } from './sessionState';
import { chunkUsageFromMeta } from './metaConventions';
import { parseUsage, usageDelta } from './usage';

/**
 * The session reducer: `(state, action) → state`, pure. A no-op returns the same object, and
 * untouched entries keep their identity. Each rule names its source (ACP spec, or the real agent
 * behaviour it tolerates).
 */
export function reduceSession(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case 'agentConnected':
      return { ...state, quirks: action.quirks };
    case 'sessionStarting':
      return { ...state, phase: 'starting' };
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
      return {
        ...rest,
        entries: mergeReplay(state.entries, replay.entries),
        plan: replay.plan.length > 0 ? replay.plan : state.plan,
      };
    }
    case 'promptSubmitted': {
      const { cancelledPromptPending: _merged, ...rest } = state;
      return {
        ...rest,
        phase: 'running',
        turn: { id: action.turnId, startedAt: action.at, cancelRequested: false },
        entries: appendEntry(state.entries, { kind: 'user', id: action.id, blocks: action.blocks, at: action.at, turnId: action.turnId, origin: 'local' }, action.at),
      };
    }
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
    case 'permissionRequested': {
      const permission: PermissionState = {
        requestId: action.requestId,
        options: action.options,
        status: 'pending',
        requestedAt: action.at,
        ...(action.check !== undefined ? { check: action.check } : {}),
      };
      const ctx: UpdateContext = { id: action.id, at: action.at, turnId: state.turn?.id, replaying: false };
      return { ...state, entries: upsertTool(state.entries, action.toolCall, ctx, permission) };
    }
    case 'permissionResolved':
      return resolvePermission(state, action.requestId, action.outcome, action.answeredBy, action.at, action.remembered);
    case 'cancelRequested': {
      if (state.turn === undefined || state.turn.cancelRequested) {
        return state;
      }
      // ACP prompt-turn: the client SHOULD preemptively mark non-finished tool calls cancelled.
      return {
        ...state,
        phase: 'cancelling',
        turn: { ...state.turn, cancelRequested: true },
        entries: closeOpenTools(state.entries, 'cancelled', action.at, state.turn.id),
      };
    }
    case 'turnEnded': {
      const turn = state.turn;
      if (turn?.id !== action.turnId) {
        return state; // a late completion of an older turn never ends a newer one
      }
      const outcome: TurnOutcome = action.stopReason;
      let entries = closeOpenTools(state.entries, action.stopReason === 'cancelled' ? 'cancelled' : 'ended', action.at, turn.id);
      entries = expirePendingPermissions(entries, action.at, turn.id);
      if (action.stopReason === 'refusal') {
        entries = markTurnExcluded(entries, turn.id);
      }
      const reported = parseUsage(action.usage) ?? turn.metaUsage;
      const usage =
        reported === undefined ? undefined : state.quirks.cumulativePromptUsage ? usageDelta(reported, state.cumulativeUsage) : reported;
      const footer: TurnEndEntry = {
        kind: 'turnEnd',
        id: action.id,
        turnId: turn.id,
        outcome,
        durationMs: Math.max(0, action.at - turn.startedAt),
        at: action.at,
        ...(usage !== undefined ? { usage } : {}),
      };
      const { turn: _done, ...rest } = state;
      return {
        ...rest,
        phase: 'idle',
        entries: appendEntry(entries, footer, action.at),
        ...(reported !== undefined && state.quirks.cumulativePromptUsage ? { cumulativeUsage: reported } : {}),
        ...(action.stopReason === 'cancelled' && state.quirks.mergesCancelledPrompt ? { cancelledPromptPending: true } : {}),
      };
    }
    case 'turnFailed': {
      const turn = state.turn;
      if (turn?.id !== action.turnId) {
        return state;
      }
      // After session/cancel an error also ends the turn as cancelled (agents differ: ACP
      // prompt-turn says `cancelled`, some answer -32800 or another error; cancellation is not an error).
      const cancelled = turn.cancelRequested;
      let entries = closeOpenTools(state.entries, cancelled ? 'cancelled' : 'ended', action.at, turn.id);
      entries = expirePendingPermissions(entries, action.at, turn.id);
      if (!cancelled) {
        entries = appendEntry(entries, {
          kind: 'notice',
          id: action.noticeId,
          level: 'error',
          title: 'The agent could not complete this turn.',
          detail: action.error,
          actions: ['showTraffic'],
          at: action.at,
        }, action.at);
      }
      const footer: TurnEndEntry = {
        kind: 'turnEnd',
        id: action.id,
        turnId: turn.id,
        outcome: cancelled ? 'cancelled' : 'error',
        durationMs: Math.max(0, action.at - turn.startedAt),
        at: action.at,
        ...(cancelled ? {} : { error: action.error }),
      };
      const { turn: _done, ...rest } = state;
      return {
        ...rest,
        phase: 'idle',
        entries: appendEntry(entries, footer, action.at),
        ...(cancelled && state.quirks.mergesCancelledPrompt ? { cancelledPromptPending: true } : {}),
      };
    }
    case 'agentExited': {
      let entries = closeOpenTools(state.entries, 'interrupted', action.at);
      entries = expirePendingPermissions(entries, action.at, undefined);
      const turn = state.turn;
      if (turn !== undefined) {
        entries = appendEntry(entries, {
          kind: 'turnEnd',
          id: action.id,
          turnId: turn.id,
          outcome: 'interrupted',
          durationMs: Math.max(0, action.at - turn.startedAt),
          error: action.message,
          at: action.at,
        }, action.at);
      }
      // Only an exit nobody asked for is an error; a stop we made (Restart Agent) is a neutral line.
      entries = append(entries, {
        kind: 'notice',
        id: action.noticeId,
        level: action.expected === true ? 'info' : 'error',
        title: action.message,
        ...(action.stderrTail !== '' ? { detail: action.stderrTail } : {}),
        actions: action.expected === true ? [] : ['restartAgent', 'showTraffic'],
        at: action.at,
      });
      const { turn: _gone, replay: _replay, ...rest } = state;
      return { ...rest, phase: 'exited', entries };
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
          ...(action.actions !== undefined ? { actions: action.actions } : {}),
          ...(action.forkFrom !== undefined ? { forkFrom: action.forkFrom } : {}),
        }),
      };
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
    case 'sessionClosed': {
      const { turn: _t, ...rest } = state;
      return { ...rest, phase: 'closed' };
    }
  }
}

function applyUpdate(state: SessionState, update: acp.SessionUpdate, ctx: UpdateContext): SessionState {
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const next = withEntries(state, ctx, (entries) => applyChunk(entries, update, ctx));
      const metaUsage = update._meta !== undefined && update._meta !== null && next.turn !== undefined ? chunkUsageFromMeta(update._meta) : undefined;
      return metaUsage !== undefined && next.turn !== undefined ? { ...next, turn: { ...next.turn, metaUsage } } : next;
    }
    case 'tool_call':
    case 'tool_call_update':
      return withEntries(state, ctx, (entries) => upsertTool(entries, update, ctx));
    case 'plan': {
      // ACP agent-plan: the agent sends the complete plan; the client MUST replace it entirely.
      if (state.replay !== undefined) {
        return { ...state, replay: { entries: upsertPlanSnapshot(state.replay.entries, update.entries, ctx), plan: update.entries } };
      }
      return { ...state, plan: update.entries, entries: upsertPlanSnapshot(state.entries, update.entries, ctx) };
    }
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
    case 'usage_update': {
      // The cost is cumulative; an update without it (Hermes sends one after every prompt) keeps it.
      const cost = update.cost !== undefined && update.cost !== null ? { amount: update.cost.amount, currency: update.cost.currency } : state.usage?.cost;
      return { ...state, usage: { used: update.used, size: update.size, ...(cost !== undefined ? { cost } : {}) } };
    }
    case 'notice':
      return withEntries(state, ctx, (entries) =>
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

function withEntries(state: SessionState, _ctx: UpdateContext, fn: (entries: readonly Entry[]) => readonly Entry[]): SessionState {
  if (state.replay !== undefined) {
    const entries = fn(state.replay.entries);
    return entries === state.replay.entries ? state : { ...state, replay: { ...state.replay, entries } };
  }
  const entries = fn(state.entries);
  return entries === state.entries ? state : { ...state, entries };
}

/** The plan shows once per turn and updates in place; a new turn gets a new checklist. */
function upsertPlanSnapshot(entries: readonly Entry[], plan: readonly acp.PlanEntry[], ctx: UpdateContext): readonly Entry[] {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e === undefined) {
      continue;
    }
    if (e.kind === 'plan') {
      const sameTurn = ctx.replaying || e.turnId === ctx.turnId;
      if (sameTurn) {
        return replaceAt(entries, i, { ...e, entries: plan, at: ctx.at });
      }
      break;
    }
    if (e.kind === 'user' || e.kind === 'turnEnd') {
      break;
    }
  }
  if (plan.length === 0) {
    return entries;
  }
  const snapshot: PlanSnapshotEntry = {
    kind: 'plan',
    id: ctx.id,
    entries: plan,
    at: ctx.at,
    ...(ctx.turnId !== undefined ? { turnId: ctx.turnId } : {}),
  };
  return appendEntry(entries, snapshot, ctx.at);
}

function resolvePermission(state: SessionState, requestId: string, outcome: PermissionOutcome, answeredBy: string, at: number, remembered?: string): SessionState {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const e = state.entries[i];
    if (e?.kind !== 'tool' || e.permission?.requestId !== requestId) {
      continue;
    }
    const p = e.permission;
    if (p.status !== 'pending') {
      return state;
    }
    const base = { ...p, answeredAt: at, answeredBy, ...(remembered !== undefined ? { remembered } : {}) };
    const permission: PermissionState = outcome.kind === 'selected' ? { ...base, status: 'selected', optionId: outcome.optionId } : { ...base, status: outcome.kind };
    let tool: ToolEntry = { ...e, permission };
    if (outcome.kind === 'selected') {
      const kind = p.options.find((o) => o.optionId === outcome.optionId)?.kind;
      // Zed authorize_tool_call: a rejection fails the call; an allow lets it run.
      if ((kind === 'reject_once' || kind === 'reject_always') && tool.status === 'pending') {
        tool = { ...tool, status: 'failed', endedAt: at };
      } else if ((kind === 'allow_once' || kind === 'allow_always') && tool.status === 'pending') {
        tool = { ...tool, status: 'in_progress' };
      }
    }
    return { ...state, entries: replaceAt(state.entries, i, tool) };
  }
  return state;
}

function expirePendingPermissions(entries: readonly Entry[], at: number, turnId: number | undefined): readonly Entry[] {
  let out: Entry[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e?.kind !== 'tool' || e.permission?.status !== 'pending') {
      continue;
    }
    if (turnId !== undefined && e.turnId !== undefined && e.turnId !== turnId) {
      continue;
    }
    out ??= entries.slice();
    out[i] = { ...e, permission: { ...e.permission, status: 'expired', answeredAt: at, answeredBy: 'the turn ended first' } };
  }
  return out ?? entries;
}

function markTurnExcluded(entries: readonly Entry[], turnId: number): readonly Entry[] {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'user' && e.turnId === turnId) {
      return replaceAt(entries, i, { ...e, excluded: true });
    }
  }
  return entries;
}

/** The tool entry a permission request is attached to. */
export function findPermissionTool(state: SessionState, requestId: string): ToolEntry | undefined {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const e = state.entries[i];
    if (e?.kind === 'tool' && e.permission?.requestId === requestId) {
      return e;
    }
  }
  return undefined;
}

export { lastIndexOfTool };
