import { rm } from 'node:fs/promises';
import type { AgentDefinition } from '../host/agentHost';
import { install, type InstallOptions, type InstalledAgent } from './installer';
import type { DistributionChoice } from './launch';
import type { ProbeResult } from './probe';
import type { RegistryAgent } from './registryFormat';
import { throwIfAborted } from './registryErrors';

export interface CheckedInstallOptions extends InstallOptions {
  /** Starts the definition and waits for `initialize` (`probeInitialize` bound to a cwd). */
  readonly probe: (def: AgentDefinition) => Promise<ProbeResult>;
}

export type CheckedInstall =
  | { readonly ok: true; readonly installed: InstalledAgent; readonly definition: AgentDefinition }
  | { readonly ok: false; readonly reason: string; readonly version: string };

/** The definition an installed agent runs as (what `hermes.agents` will hold). */
export function definitionOf(installed: InstalledAgent): AgentDefinition {
  return { id: installed.id, name: installed.name, command: installed.command, args: installed.args, env: installed.env, source: 'registry', version: installed.version };
}

/**
 * Installs `agent` and starts it once: only an agent that answers `initialize` is handed back.
 * A new version goes into its own folder, so whatever runs now (`current`) is untouched until the
 * caller switches the setting; when the new one does not start, its folder is removed again and
 * the result says why — the update is rolled back, the old version stays in use. Download and
 * archive errors, and a cancel (also during the start), throw a `RegistryError`; nothing changed.
 */
export async function installChecked(agent: RegistryAgent, choice: DistributionChoice, o: CheckedInstallOptions, current?: AgentDefinition): Promise<CheckedInstall> {
  // A reinstall of the installed version repairs it in place (the folder is swapped only once the
  // new copy is complete); there is no other version to fall back to, so a failed start keeps it.
  const repair = current?.source === 'registry' && current.version === agent.version;
  const installed = await install(agent, choice, o);
  const definition = definitionOf(installed);
  const started = await o.probe(definition);
  if (started.ok && o.signal?.aborted !== true) {
    return { ok: true, installed, definition };
  }
  if (installed.installDir !== undefined && !repair) {
    await rm(installed.installDir, { recursive: true, force: true });
  }
  throwIfAborted(o.signal);
  if (started.ok) {
    return { ok: true, installed, definition };
  }
  const kept = current !== undefined ? ` ${current.name} ${current.version ?? ''} stays in use.`.replace(/ +\./, '.') : '';
  return { ok: false, version: agent.version, reason: `${agent.name} ${agent.version} did not start: ${started.reason}${kept}` };
}
