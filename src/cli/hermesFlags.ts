import type { TransportSettings } from '../host/transportSettings';
import { executableName } from './agentIdentity';

/** The `parseArgs` options of Hermes' own isolation flags (merged into args.ts' table). */
export const hermesOptionSpecs = {
  'ignore-user-config': { type: 'boolean' },
  'ignore-rules': { type: 'boolean' },
  'pass-session-id': { type: 'boolean' },
  skills: { type: 'string' },
  'safe-mode': { type: 'boolean' },
} as const;

export interface HermesFlagValues {
  readonly 'ignore-user-config'?: boolean;
  readonly 'ignore-rules'?: boolean;
  readonly 'pass-session-id'?: boolean;
  readonly skills?: string;
  readonly 'safe-mode'?: boolean;
}

/** What the flags change: Hermes' command line (ACP) and the environment of a gateway the runner starts. */
export interface HermesFlagEffect {
  readonly agent: { readonly command: string; readonly args: readonly string[] };
  /** Set in the environment of the gateway the runner starts (`tui_gateway.entry` takes no flags). */
  readonly gatewayEnv?: Readonly<Record<string, string>>;
}

/**
 * Hermes' own isolation flags, given to Hermes: over ACP as global options before the `acp`
 * subcommand (`hermes --ignore-rules acp`: Hermes 0.19's `acp` subparser refuses them after it), and
 * to a TUI Gateway the runner starts as the environment variables Hermes' flags set
 * (`HERMES_IGNORE_USER_CONFIG`, `HERMES_IGNORE_RULES`, `HERMES_SAFE_MODE`). With another agent, an
 * attached gateway or the API Server, each is a usage error naming the flag and what it went to.
 */
export function applyHermesFlags(
  values: HermesFlagValues,
  agent: { readonly command: string; readonly args: readonly string[] },
  transport: TransportSettings | undefined,
): HermesFlagEffect | string {
  const given = (['ignore-user-config', 'ignore-rules', 'pass-session-id', 'safe-mode'] as const).filter((f) => values[f] === true);
  const skills = values.skills?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (values.skills !== undefined && (skills === undefined || skills.length === 0)) {
    return '--skills needs one or more skill names (NAME[,NAME])';
  }
  const all = [...given, ...(skills !== undefined ? ['skills'] : [])];
  const first = all[0];
  if (first === undefined) {
    return { agent };
  }
  if (transport?.kind === 'api-server' || (transport?.kind === 'tui-gateway' && transport.url !== undefined)) {
    return `--${first} is passed to Hermes when the runner starts it; ${transport.kind === 'api-server' ? 'the API Server' : 'an attached gateway'} runs with the flags it was started with`;
  }
  if (transport?.kind === 'tui-gateway') {
    const unsupported = all.find((f) => f === 'pass-session-id' || f === 'skills');
    if (unsupported !== undefined) {
      return `--${unsupported} is a flag of \`hermes\` and \`hermes acp\`; the TUI Gateway started from --hermes-root has no such setting`;
    }
    const env: Record<string, string> = {};
    for (const f of given) {
      env[f === 'ignore-user-config' ? 'HERMES_IGNORE_USER_CONFIG' : f === 'ignore-rules' ? 'HERMES_IGNORE_RULES' : 'HERMES_SAFE_MODE'] = '1';
    }
    if (values['safe-mode'] === true) {
      Object.assign(env, { HERMES_IGNORE_USER_CONFIG: '1', HERMES_IGNORE_RULES: '1' });
    }
    return { agent, gatewayEnv: env };
  }
  const name = executableName(agent.command, agent.args);
  const at = agent.args.indexOf('acp');
  if (name !== 'hermes' || at < 0) {
    return `--${first} is a Hermes flag; the agent "${[agent.command, ...agent.args].join(' ')}" is not \`hermes acp\``;
  }
  const flags = [...given.map((f) => `--${f}`), ...(skills !== undefined ? ['--skills', skills.join(',')] : [])];
  return { agent: { command: agent.command, args: [...agent.args.slice(0, at), ...flags, ...agent.args.slice(at)] } };
}
