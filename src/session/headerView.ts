import type * as acp from '@agentclientprotocol/sdk';
import type { ConfigOptionView, SelectView, SessionHeaderView } from '../protocol/sessionView';
import type { HeldPrompt, SessionState } from './sessionState';
import type { ViewContext } from './viewContext';

/** The chat's header: agent, phase, plan, modes, models, config options, commands, usage, status. */
export function headerView(state: SessionState, ctx: ViewContext): SessionHeaderView {
  // ACP session-config-options: a client that understands `configOptions` uses them alone when an
  // agent sends them with the legacy `modes`/`models` (Claude sends both: four selectors otherwise).
  const legacy = state.configOptions.length === 0;
  return {
    hostTime: ctx.now,
    agentName: ctx.agentName,
    ...(ctx.badge !== undefined ? { badge: ctx.badge } : {}),
    ...(ctx.emptyHint !== undefined ? { emptyHint: ctx.emptyHint } : {}),
    phase: state.phase,
    // The dock shows the plan of the latest turn only: one the agent stopped updating goes with the next prompt.
    plan: planIsCurrent(state) ? state.plan : [],
    configOptions: state.configOptions.map(configOptionView).filter((o): o is ConfigOptionView => o !== undefined),
    commands: state.commands.map((c) => ({
      name: c.name,
      description: c.description,
      ...(c.input !== undefined && c.input !== null && 'hint' in c.input ? { hint: c.input.hint } : {}),
    })),
    pendingPermissions: ctx.pendingPermissions,
    contextNotes: ctx.contextNotes ?? [],
    readOnly: ctx.readOnly,
    acceptsImages: ctx.acceptsImages,
    ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
    ...(state.title !== undefined ? { title: state.title } : {}),
    ...(state.turn !== undefined ? { turnStartedAt: state.turn.startedAt } : {}),
    ...(state.usage !== undefined ? { usage: state.usage } : {}),
    ...(legacy && state.modes !== undefined && state.modes.availableModes.length > 0
      ? {
          modes: {
            current: state.modes.currentModeId,
            options: state.modes.availableModes.map((m) => ({ id: m.id, name: m.name, ...(typeof m.description === 'string' ? { description: m.description } : {}) })),
          },
        }
      : {}),
    ...(legacy && state.models !== undefined
      ? {
          models: {
            current: state.models.currentModelId,
            options: state.models.availableModels.map((m) => ({ id: m.modelId, name: m.name, ...(m.description !== undefined ? { description: m.description } : {}) })),
          },
        }
      : {}),
    ...(ctx.status !== undefined ? { status: ctx.status } : {}),
    ...(ctx.restarting === true ? { restarting: true } : {}),
    ...(state.held !== undefined ? { held: heldView(state.held) } : {}),
    ...(ctx.signIn !== undefined ? { signIn: ctx.signIn } : {}),
    ...(ctx.mcp !== undefined && ctx.mcp.passed.length + ctx.mcp.skipped.length > 0 ? { mcp: ctx.mcp } : {}),
    ...(ctx.offers !== undefined ? { offers: ctx.offers } : {}),
  };
}

/** The plan was last updated by the running turn, or by the latest turn when none runs. */
function planIsCurrent(state: SessionState): boolean {
  if (state.planTurnId === undefined) {
    return false;
  }
  if (state.turn !== undefined) {
    return state.turn.id === state.planTurnId;
  }
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const e = state.entries[i];
    if (e?.kind === 'user' && e.turnId !== undefined) {
      return e.turnId === state.planTurnId;
    }
  }
  return false;
}

/** The prompt the agent holds, for the line above the composer: its start, and where a fresh start forks. */
function heldView(held: HeldPrompt): NonNullable<SessionHeaderView['held']> {
  const line = held.text.replace(/\s+/g, ' ').trim();
  const preview = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return { reason: held.reason, preview, ...(held.entryId !== undefined ? { startFresh: held.entryId } : {}) };
}

function configOptionView(o: acp.SessionConfigOption): ConfigOptionView | undefined {
  const category = typeof o.category === 'string' ? { category: o.category } : {};
  if (o.type === 'boolean') {
    return { type: 'boolean', id: o.id, name: o.name, value: o.currentValue, ...category };
  }
  if (o.type === 'select') {
    const options: SelectView['options'][number][] = [];
    for (const item of o.options) {
      if ('options' in item) {
        for (const inner of item.options) {
          options.push({ id: inner.value, name: `${item.name}: ${inner.name}`, ...(typeof inner.description === 'string' ? { description: inner.description } : {}) });
        }
      } else {
        options.push({ id: item.value, name: item.name, ...(typeof item.description === 'string' ? { description: item.description } : {}) });
      }
    }
    return { type: 'select', id: o.id, name: o.name, select: { current: o.currentValue, options }, ...category };
  }
  // ACP: clients ignore config option types they do not know.
  return undefined;
}

/** Whether two headers show the same (the host time aside). */
export function sameHeader(a: SessionHeaderView, b: SessionHeaderView): boolean {
  for (const key of Object.keys(b) as (keyof SessionHeaderView)[]) {
    if (key === 'hostTime') {
      continue;
    }
    if (a[key] !== b[key] && JSON.stringify(a[key]) !== JSON.stringify(b[key])) {
      return false;
    }
  }
  return Object.keys(a).length === Object.keys(b).length;
}
