import type { TransportSettings } from '../host/transportSettings';

/** The `parseArgs` options of `--agent ID` and `--yes` (merged into args.ts' table). */
export const agentOptionSpecs = {
  agent: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
} as const;

export interface AgentFlagValues {
  readonly agent?: string;
  readonly yes?: boolean;
}

/** `--agent ID`: an agent of the ACP Registry, installed (or found installed) before the run. */
export interface RegistryAgentRequest {
  readonly id: string;
  /** `--yes`: a first install (or an update the registry lists) may go ahead without asking. */
  readonly yes: boolean;
}

export type AgentChoice =
  | { readonly kind: 'command'; readonly agent: { readonly command: string; readonly args: readonly string[] } }
  | { readonly kind: 'registry'; readonly request: RegistryAgentRequest };

/** Registry ids that are Hermes: the built-in preset's and Hermes' own registry manifest's (catalog.ts `isHermesEntry`). */
const hermesIds = new Set(['hermes', 'hermes-agent']);

/** An id as the registry's schema allows it (a single safe path segment). */
const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Which agent the run starts: the command after `--`, `--agent hermes` (Hermes' own `hermes acp`,
 * never from the registry: the extension treats Hermes' registry entry the same way), `--agent ID`
 * (the registry, resolved later: `registryAgent.ts`), else the default (`hermes acp`). Returns a
 * usage error's message when the flags contradict each other.
 */
export function chooseAgent(
  values: AgentFlagValues,
  agentArgv: readonly string[] | undefined,
  defaultCommand: readonly string[],
  transport: TransportSettings | undefined,
): AgentChoice | string {
  const id = values.agent;
  if (id === undefined) {
    if (values.yes === true) {
      return '--yes goes with --agent ID (it allows installing that agent from the ACP Registry)';
    }
    const argv = agentArgv ?? defaultCommand;
    const [command, ...args] = argv;
    return command === undefined || command === '' ? 'no agent command after "--"' : { kind: 'command', agent: { command, args } };
  }
  if (agentArgv !== undefined) {
    return `use either --agent ${id} or an agent command after "--", not both`;
  }
  if (transport !== undefined) {
    return `--agent starts an agent over ACP; --transport ${transport.kind} reaches Hermes itself (drop --agent)`;
  }
  if (!idPattern.test(id)) {
    return `--agent needs an ACP Registry id (such as codex-acp), not "${id}"`;
  }
  if (hermesIds.has(id)) {
    const [command = 'hermes', ...args] = defaultCommand;
    return { kind: 'command', agent: { command, args } };
  }
  return { kind: 'registry', request: { id, yes: values.yes === true } };
}
