import type * as acp from '@agentclientprotocol/sdk';
import type { Entry, PlanSnapshotEntry, SessionState } from '../sessionState';
import { appendEntry, replaceAt, type UpdateContext } from './entryList';

/** ACP agent-plan: the agent sends the complete plan; the client MUST replace it entirely. */
export function applyPlanUpdate(state: SessionState, update: Extract<acp.SessionUpdate, { sessionUpdate: 'plan' }>, ctx: UpdateContext): SessionState {
  if (state.replay !== undefined) {
    return { ...state, replay: { entries: upsertPlanSnapshot(state.replay.entries, update.entries, ctx), plan: update.entries } };
  }
  return { ...state, plan: update.entries, entries: upsertPlanSnapshot(state.entries, update.entries, ctx), ...(ctx.turnId !== undefined ? { planTurnId: ctx.turnId } : {}) };
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
