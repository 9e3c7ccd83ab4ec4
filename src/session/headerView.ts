import type * as acp from '@agentclientprotocol/sdk';
import type { ConfigOptionView, SelectView, SessionHeaderView } from '../protocol/sessionView';
import type { SessionState } from './sessionState';
import type { ViewContext } from './viewContext';

/** The chat's header: agent, phase, plan, modes, models, config options, commands, usage, status. */
export function headerView(state: SessionState, ctx: ViewContext): SessionHeaderView {
  // ACP session-config-options: a client that understands `configOptions` uses them alone when an
  // agent sends them with the legacy `modes`/`models` (Claude sends both: four selectors otherwise).
  const legacy = state.configOptions.length === 0;
  return {
    hostTime: ctx.now,
    agentName: ctx.agentName,
    demo: ctx.demo,
    phase: state.phase,
    plan: state.plan,
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
    ...(ctx.signIn !== undefined ? { signIn: ctx.signIn } : {}),
    ...(ctx.mcp !== undefined && ctx.mcp.passed.length + ctx.mcp.skipped.length > 0 ? { mcp: ctx.mcp } : {}),
    ...(ctx.offers !== undefined ? { offers: ctx.offers } : {}),
  };
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
