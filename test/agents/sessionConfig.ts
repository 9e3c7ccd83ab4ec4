/**
 * Session modes, models, config options and slash commands of the scripted agent.
 *
 * Default (Hermes 0.19 style): `modes` with the three edit-approval policies
 * and the legacy `models` field (removed from the ACP schema in protocol 0.13.5 but still sent by
 * Hermes), changed with `session/set_mode` / `session/set_model`.
 * With `SCRIPTED_AGENT_CONFIG_OPTIONS=1`: the preferred `configOptions` (session-config-options.mdx),
 * changed with `session/set_config_option`, which always answers the complete list.
 */
import type {
  AvailableCommand,
  SessionConfigOption,
  SessionModeState,
} from '@agentclientprotocol/sdk';
import type { StoredSession } from './sessionStore';

interface ModeInfo {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

const hermesModes: readonly ModeInfo[] = [
  { id: 'default', name: 'Default', description: 'Ask before edits.' },
  { id: 'accept_edits', name: 'Accept Edits', description: 'Auto-allow workspace and /tmp edits; still asks for sensitive paths.' },
  { id: 'dont_ask', name: 'Don\'t Ask', description: 'Auto-allow file edits for this session except sensitive paths.' },
];

/** Qwen Code's modes, which start in `auto` (never asks): agents-in-the-wild.md, quirk 11. */
const autoFirstModes: readonly ModeInfo[] = [
  { id: 'plan', name: 'Plan', description: 'Plan only; no edits.' },
  { id: 'default', name: 'Default', description: 'Ask before edits and commands.' },
  { id: 'auto-edit', name: 'Auto Edit', description: 'Edit without asking.' },
  { id: 'auto', name: 'Auto', description: 'Decide without asking.' },
  { id: 'yolo', name: 'YOLO', description: 'Everything without asking.' },
];

/** The process's mode catalogue (SCRIPTED_AGENT_MODES picks it once at start-up; `none` leaves it empty). */
export const modes: ModeInfo[] = [...hermesModes];
export const modeDefaults = { initial: 'default' };

export function useModeSet(kind: 'hermes' | 'auto-first' | 'none'): void {
  modes.splice(0, modes.length, ...(kind === 'hermes' ? hermesModes : kind === 'auto-first' ? autoFirstModes : []));
  modeDefaults.initial = kind === 'auto-first' ? 'auto' : 'default';
}

export const models = [
  { modelId: 'scripted:fast', name: 'fast', description: 'Provider: Scripted • quick replies' },
  { modelId: 'scripted:smart', name: 'smart', description: 'Provider: Scripted • careful replies' },
] as const;

export const defaultModelId = 'scripted:fast';

export function isModeId(id: string): boolean {
  return modes.some((m) => m.id === id);
}

export function isModelId(id: string): boolean {
  return models.some((m) => m.modelId === id);
}

/** Legacy `models` field (`{availableModels, currentModelId}`), not part of the v1 schema any more. */
export interface LegacyModelState {
  availableModels: { modelId: string; name: string; description?: string }[];
  currentModelId: string;
}

export function modeState(session: StoredSession): SessionModeState {
  return {
    currentModeId: session.modeId,
    availableModes: modes.map((m) => ({ id: m.id, name: m.name, description: m.description })),
  };
}

export function legacyModels(session: StoredSession): LegacyModelState {
  return {
    availableModels: models.map((m) => ({ modelId: m.modelId, name: m.name, description: m.description })),
    currentModelId: session.modelId,
  };
}

/**
 * The complete config option list. The boolean `fast` option is included only when the client
 * advertised `session.configOptions.boolean` (ACP: agents MUST NOT send boolean options otherwise).
 */
export function configOptions(session: StoredSession, clientSupportsBoolean: boolean): SessionConfigOption[] {
  const list: SessionConfigOption[] = [];
  if (modes.length > 0) {
    list.push({
      id: 'mode',
      name: 'Mode',
      description: 'When to ask before editing files',
      category: 'mode',
      type: 'select',
      currentValue: session.modeId,
      options: modes.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    });
  }
  list.push(
    {
      id: 'model',
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: session.modelId,
      options: models.map((m) => ({ value: m.modelId, name: m.name, description: m.description })),
    },
  );
  if (clientSupportsBoolean) {
    list.push({
      id: 'fast',
      name: 'Fast mode',
      description: 'Skip the pauses between streamed chunks',
      category: 'model_config',
      type: 'boolean',
      currentValue: session.fast,
    });
  }
  return list;
}

/** Slash commands advertised right after `session/new` (Hermes advertises `help` and `model` too). */
export const initialCommands: AvailableCommand[] = [
  { name: 'help', description: 'List available commands' },
  { name: 'model', description: 'Show current model, or switch models', input: { hint: 'model name to switch to' } },
  { name: 'plan', description: 'Show a sample plan' },
  { name: 'review', description: 'Review the current changes' },
];

/** The list sent by the `[commands]` marker: one command removed, two added. */
export const changedCommands: AvailableCommand[] = [
  { name: 'help', description: 'List available commands' },
  { name: 'model', description: 'Show current model, or switch models', input: { hint: 'model name to switch to' } },
  { name: 'compact', description: 'Compress conversation context' },
  { name: 'test', description: 'Run the project tests', input: { hint: 'test filter' } },
];
