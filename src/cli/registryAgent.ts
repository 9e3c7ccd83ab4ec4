import { install, pruneVersions } from '../registry/installer';
import { planInstall, type InstallPlan } from '../registry/installPlan';
import { registryLayout, type RegistryLayout } from '../registry/installPaths';
import { chooseDistribution, describeCommand, platformKey, type DistributionChoice } from '../registry/launch';
import type { RegistryAgent } from '../registry/registryFormat';
import { RegistryError } from '../registry/registryErrors';
import { defaultRegistryUrl, loadRegistry, type RegistrySnapshot } from '../registry/registrySource';
import type { RegistryAgentRequest } from './agentArgs';
import { dataDirectory, readInstallRecord, recordUsable, toolsOnPath, writeInstallRecord, type InstallRecord } from './registryInstalls';

export interface RegistryAgentDeps {
  readonly env: NodeJS.ProcessEnv;
  /** The run's cwd: npm reads the project's `.npmrc` there when it checks an npx package. */
  readonly cwd: string;
  /** A line on stderr (what is installed from where, the offline copy in use). */
  readonly diagnostic: (line: string) => void;
  /** Asks the person at the terminal; undefined when nobody can be asked (CI, pipes). */
  readonly ask?: (question: string) => Promise<boolean>;
  readonly signal?: AbortSignal;
}

/** The agent to run, a usage error (exit 2: nothing was installed), or a failure (exit 1, the run's `result` says it). */
export type RegistryAgentResolution =
  | { readonly kind: 'ready'; readonly agent: { readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> } }
  | { readonly kind: 'usage'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string };

/** `HERMES_ACP_REGISTRY_URL`, else the public registry (the extension's `hermes.registry.url` is an editor setting: not read). */
export function registryUrl(env: NodeJS.ProcessEnv): string {
  const v = env.HERMES_ACP_REGISTRY_URL?.trim();
  return v !== undefined && v !== '' ? v : defaultRegistryUrl;
}

function ready(r: Pick<InstallRecord, 'command' | 'args' | 'env'>): RegistryAgentResolution {
  return { kind: 'ready', agent: { command: r.command, args: r.args, env: r.env } };
}

/** What a first install would fetch and run, for the question and the `--yes` message. */
function describePlan(plan: InstallPlan): string {
  const what = plan.archive !== undefined ? `${plan.archive.url} (${plan.archive.sha256 !== undefined ? `SHA-256 ${plan.archive.sha256}` : 'no SHA-256 in the registry'}) into ${plan.installDir ?? ''}` : `the ${plan.kind} package ${plan.package ?? ''}`;
  return `${what}; it runs as: ${describeCommand(plan.command)}`;
}

/**
 * `--agent ID`: the registry agent installed where the runner installs (`dataDirectory`), with the
 * extension's own code and checks (`src/registry`: the index with its last good copy, the platform's
 * distribution, the install plan, download with size and SHA-256, archive safety, the npx package
 * checked on the npm registry npm uses). Installed agents run without asking again while the
 * registry lists the same plan; a first install, or a newer one the registry lists, needs `--yes`
 * or a yes at the terminal — without either, the installed version runs (and a first install is a
 * usage error that says so).
 */
export async function resolveRegistryAgent(request: RegistryAgentRequest, deps: RegistryAgentDeps): Promise<RegistryAgentResolution> {
  const layout = registryLayout(dataDirectory(deps.env));
  const url = registryUrl(deps.env);
  const installed = readInstallRecord(layout, request.id);
  const usable = installed !== undefined && recordUsable(installed) ? installed : undefined;
  let snapshot: RegistrySnapshot;
  try {
    snapshot = await loadRegistry(url, { cacheFile: layout.cacheFile, ...(deps.signal !== undefined ? { signal: deps.signal } : {}) });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (usable !== undefined) {
      deps.diagnostic(`hermes-acp-run: ${message} Running ${usable.name} ${usable.version} as installed.`);
      return ready(usable);
    }
    return { kind: 'failed', message: `--agent ${request.id}: ${message}` };
  }
  if (snapshot.fromCache) {
    deps.diagnostic(`hermes-acp-run: the ACP Registry could not be read (${snapshot.fetchError ?? ''}); using its copy saved ${new Date(snapshot.fetchedAt).toISOString()}`);
  }
  const agent = snapshot.registry.agents.find((a) => a.id === request.id);
  if (agent === undefined) {
    const skipped = snapshot.skipped.find((s) => s.id === request.id);
    const why = skipped !== undefined ? `its entry there is invalid: ${skipped.reason}` : `it lists no agent "${request.id}"`;
    if (usable !== undefined) {
      deps.diagnostic(`hermes-acp-run: the ACP Registry at ${url}: ${why}; running ${usable.name} ${usable.version} as installed`);
      return ready(usable);
    }
    const ids = snapshot.registry.agents.map((a) => a.id).slice(0, 40).join(', ');
    return { kind: 'usage', message: `--agent ${request.id}: the ACP Registry at ${url}: ${why}${skipped === undefined && ids !== '' ? ` (it lists: ${ids})` : ''}` };
  }
  return installAgent(agent, request, { layout, usable, deps, url });
}

/** `sessions … --agent ID`: the installed agent's command, without reading the registry or installing. */
export function installedRegistryAgent(id: string, env: NodeJS.ProcessEnv): RegistryAgentResolution {
  const record = readInstallRecord(registryLayout(dataDirectory(env)), id);
  return record !== undefined && recordUsable(record)
    ? ready(record)
    : { kind: 'failed', message: `--agent ${id} is not installed in ${dataDirectory(env)} (a run with --agent ${id} --yes installs it)` };
}

interface InstallContext {
  readonly layout: RegistryLayout;
  readonly usable: InstallRecord | undefined;
  readonly deps: RegistryAgentDeps;
  readonly url: string;
}

async function installAgent(agent: RegistryAgent, request: RegistryAgentRequest, c: InstallContext): Promise<RegistryAgentResolution> {
  const { deps, usable, layout } = c;
  const platform = platformKey();
  const choice: DistributionChoice | undefined = chooseDistribution(agent, platform, toolsOnPath(deps.env));
  if (choice === undefined) {
    return { kind: 'failed', message: `--agent ${agent.id}: ${agent.name} ${agent.version} has no build for this platform (${platform ?? `${process.platform}-${process.arch}`}) in the ACP Registry, and no npx or uvx package.` };
  }
  if (choice.kind !== 'binary' && choice.toolMissing) {
    return { kind: 'failed', message: `--agent ${agent.id}: ${agent.name} runs with ${choice.kind}, which is not on PATH (${choice.kind === 'npx' ? 'it comes with Node.js 18 or newer' : 'it comes with uv: https://docs.astral.sh/uv/'}).` };
  }
  let plan: InstallPlan;
  try {
    plan = planInstall(agent, choice, layout);
  } catch (e) {
    return { kind: 'failed', message: `--agent ${agent.id}: ${agent.name} ${agent.version} is refused: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (usable?.consentKey === plan.consentKey) {
    return ready(usable);
  }
  const what = usable !== undefined ? `${agent.name} ${agent.version} (installed: ${usable.version})` : `${agent.name} ${agent.version}`;
  let agreed = request.yes;
  if (!agreed && deps.ask !== undefined) {
    agreed = await deps.ask(`Install ${what} from the ACP Registry? It downloads ${describePlan(plan)}. [y/N] `);
  }
  if (!agreed) {
    if (usable !== undefined) {
      deps.diagnostic(`hermes-acp-run: the ACP Registry lists ${what}; running the installed ${usable.version} (--yes installs the listed one)`);
      return ready(usable);
    }
    return {
      kind: 'usage',
      message: `--agent ${agent.id}: ${agent.name} ${agent.version} is not installed, and installing runs code from the network: ${describePlan(plan)}. ${deps.ask !== undefined ? 'Not installed: the answer was no.' : 'Run again with --yes to install it (nobody could be asked: no terminal).'}`,
    };
  }
  deps.diagnostic(`hermes-acp-run: installing ${agent.name} ${agent.version} from the ACP Registry: ${describePlan(plan)}`);
  try {
    const done = await install(agent, choice, { layout, cwd: deps.cwd, ...(deps.signal !== undefined ? { signal: deps.signal } : {}) });
    const record: InstallRecord = { id: agent.id, name: agent.name, version: agent.version, kind: done.kind, command: done.command, args: done.args, env: done.env, consentKey: plan.consentKey, installedAt: new Date().toISOString() };
    writeInstallRecord(layout, record);
    await pruneVersions(layout, agent.id, [agent.version]);
    if (done.droppedEnv.length > 0) {
      deps.diagnostic(`hermes-acp-run: not applied (a registry may not set them): ${done.droppedEnv.join(', ')}`);
    }
    deps.diagnostic(`hermes-acp-run: ${agent.name} ${agent.version} installed: ${describeCommand(done)}`);
    return ready(record);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const kept = usable !== undefined ? ` ${usable.name} ${usable.version} stays installed.` : '';
    return { kind: 'failed', message: `--agent ${agent.id}: installing ${agent.name} ${agent.version} failed${RegistryError.is(e) ? ` (${e.kind})` : ''}: ${message}${kept}` };
  }
}

