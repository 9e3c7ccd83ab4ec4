import { parseTransportSettings } from '../host/transportSettings';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentDefinition } from '../host/agentHost';
import { parseRules } from '../permissions/rules';
import { invalidSensitivePatterns } from '../permissions/sensitive';
import type { PermissionRule } from '../permissions/types';
import type { AgentQuirks } from '../session/sessionState';
import { isObject } from '../util/json';

export type TraceLevel = 'off' | 'messages' | 'verbose';

/** The built-in Hermes preset; a user entry with id `hermes` overrides it. */
export const hermesPreset: AgentDefinition = { id: 'hermes', name: 'Hermes', command: 'hermes', args: ['acp'], env: {} };

/** The scripted agent shipped with the extension, for trying the UI without an agent installed. */
export function demoAgent(extensionPath: string): AgentDefinition {
  return {
    id: 'demo',
    name: 'Demo agent',
    // The extension host's own Node runs it (desktop VS Code needs ELECTRON_RUN_AS_NODE for that).
    command: process.execPath,
    args: [path.join(extensionPath, 'dist', 'agents', 'scriptedAgent.js')],
    // No token figure before the first turn: the scripted agent's session-start usage imitates
    // Hermes' system prompt, which the Demo does not have.
    env: { ELECTRON_RUN_AS_NODE: '1', SCRIPTED_AGENT_NO_START_USAGE: '1' },
    demo: true,
  };
}

/**
 * The demo agent is our scripted test agent, which imitates Hermes' usage reports: cumulative for
 * the session (test/agents/promptTurn.ts), so footers show each turn's share.
 */
export const demoAgentQuirks: Partial<AgentQuirks> = { cumulativePromptUsage: true };

/** Typed reader for `hermes.*` settings. Invalid entries are skipped and reported, never cast. */
export class Configuration {
  constructor(private readonly extensionPath: string) {}

  private get section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('hermes');
  }

  /** Every agent: user entries (machine-scoped), then the presets they do not override. */
  agents(): { agents: AgentDefinition[]; problems: string[] } {
    const problems: string[] = [];
    const raw = this.section.get<unknown>('agents');
    const agents: AgentDefinition[] = [];
    if (Array.isArray(raw)) {
      raw.forEach((item: unknown, i) => {
        const def = parseAgent(item);
        const transportProblem = isObject(item) ? parseTransportSettings(item).problem : undefined;
        if (def === undefined) {
          problems.push(transportProblem !== undefined ? `hermes.agents[${i}]: ${transportProblem}` : `hermes.agents[${i}] needs at least "id" and "command" strings.`);
        } else {
          agents.push(def);
        }
      });
    }
    for (const preset of [hermesPreset, demoAgent(this.extensionPath)]) {
      if (!agents.some((a) => a.id === preset.id)) {
        agents.push(preset);
      }
    }
    return { agents, problems };
  }

  defaultAgentId(): string {
    const inspected = this.section.inspect<unknown>('defaultAgent');
    const explicit = inspected?.globalValue;
    if (typeof explicit === 'string' && explicit !== '') {
      return explicit;
    }
    // `npm start` without Hermes installed picks the built-in demo preset this way; only preset
    // ids are honoured, so the environment can never choose an arbitrary command.
    const fromEnv = process.env.HERMES_ACP_DEFAULT_AGENT;
    if (fromEnv === 'demo' || fromEnv === hermesPreset.id) {
      return fromEnv;
    }
    const id = this.section.get<unknown>('defaultAgent');
    return typeof id === 'string' && id !== '' ? id : hermesPreset.id;
  }

  defaultAgent(): AgentDefinition {
    const { agents } = this.agents();
    const id = this.defaultAgentId();
    return agents.find((a) => a.id === id) ?? hermesPreset;
  }

  /**
   * Writes `def` into `hermes.agents` (replacing the entry with its id) where this window reads it:
   * for a `machine` setting, `Global` is the Remote settings in a remote window (see settingsScope.ts).
   */
  async saveAgent(def: AgentDefinition): Promise<void> {
    const current = this.section.inspect<unknown>('agents')?.globalValue;
    const others: unknown[] = Array.isArray(current) ? (current as unknown[]).filter((a) => !(isObject(a) && a.id === def.id)) : [];
    const entry = { id: def.id, name: def.name, command: def.command, args: [...def.args], ...(Object.keys(def.env).length > 0 ? { env: { ...def.env } } : {}) };
    await this.section.update('agents', [...others, entry], vscode.ConfigurationTarget.Global);
  }

  /** `hermes.permissions.rules` (machine-scoped: a repository cannot auto-allow anything). */
  permissionRules(): { rules: PermissionRule[]; problems: string[] } {
    return parseRules(this.section.get<unknown>('permissions.rules') ?? []);
  }

  /** `hermes.permissions.sensitivePaths` (machine-scoped): names or globs asked about on top of the built-in list. */
  sensitivePaths(): { patterns: string[]; problems: string[] } {
    const raw = this.section.get<unknown>('permissions.sensitivePaths') ?? [];
    const patterns = Array.isArray(raw) ? raw.filter((p): p is string => typeof p === 'string') : [];
    const problems = invalidSensitivePatterns(patterns);
    return { patterns, problems: Array.isArray(raw) && patterns.length === raw.length ? problems : ['expected a list of strings', ...problems] };
  }

  /** Where an "always" answer on a permission card is remembered as a client rule. */
  rememberAlways(): 'off' | 'session' | 'workspace' {
    const v = this.section.get<unknown>('permissions.rememberAlways');
    return v === 'off' || v === 'workspace' ? v : 'session';
  }

  /** `hermes.review.openDiffs`: open a proposed edit's diff at once, in the background, or only on click. */
  openDiffs(): 'auto' | 'background' | 'onClick' {
    const v = this.section.get<unknown>('review.openDiffs');
    return v === 'auto' || v === 'onClick' ? v : 'background';
  }

  /** `hermes.review.writes`: `fs/write_text_file` writes at once, or after Accept in the diff editor. */
  writesMode(): 'auto' | 'review' {
    return this.section.get<unknown>('review.writes') === 'review' ? 'review' : 'auto';
  }

  trace(): TraceLevel {
    const v = this.section.get<unknown>('trace');
    return v === 'off' || v === 'verbose' ? v : 'messages';
  }
}

function parseAgent(item: unknown): AgentDefinition | undefined {
  if (!isObject(item) || typeof item.id !== 'string' || item.id === '') {
    return undefined;
  }
  const { settings: transport, problem } = parseTransportSettings(item);
  if (problem !== undefined || (transport === undefined && (typeof item.command !== 'string' || item.command === ''))) {
    return undefined;
  }
  const args = Array.isArray(item.args) ? item.args.filter((a): a is string => typeof a === 'string') : [];
  const env: Record<string, string> = {};
  if (isObject(item.env)) {
    for (const [k, v] of Object.entries(item.env)) {
      if (typeof v === 'string') {
        env[k] = v;
      }
    }
  }
  const command = typeof item.command === 'string' ? item.command : '';
  const def = { id: item.id, name: typeof item.name === 'string' && item.name !== '' ? item.name : item.id, command, args, env, ...(transport !== undefined ? { transport } : {}) };
  // An entry the registry installed: its pinned version drives the "update available" mark.
  return item.source === 'registry' ? { ...def, source: 'registry', ...(typeof item.version === 'string' ? { version: item.version } : {}) } : def;
}
