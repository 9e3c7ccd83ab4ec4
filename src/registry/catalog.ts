import type { AgentDefinition } from '../host/agentHost';
import { chooseDistribution, type DistributionChoice, type PackageTool } from './launch';
import type { PlatformKey, Registry, RegistryAgent, SkippedEntry } from './registryFormat';

/**
 * Semantic-version order (semver.org §11): numeric major.minor.patch, a pre-release sorts before
 * its release, pre-release identifiers numeric-before-alphanumeric; build metadata is ignored.
 * Versions that are not semantic compare as text after the semantic ones.
 */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): { core: number[]; pre: string[] } | undefined => {
    const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v.trim());
    return m === null ? undefined : { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] !== undefined ? m[4].split('.') : [] };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa === undefined || pb === undefined) {
    return pa !== undefined ? -1 : pb !== undefined ? 1 : a.localeCompare(b);
  }
  for (let i = 0; i < 3; i++) {
    const d = (pa.core[i] ?? 0) - (pb.core[i] ?? 0);
    if (d !== 0) {
      return Math.sign(d);
    }
  }
  if (pa.pre.length === 0 || pb.pre.length === 0) {
    return pa.pre.length === pb.pre.length ? 0 : pa.pre.length === 0 ? 1 : -1;
  }
  for (let i = 0; i < Math.max(pa.pre.length, pb.pre.length); i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === undefined || y === undefined) {
      return x === undefined ? -1 : 1;
    }
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    const d = nx && ny ? Number(x) - Number(y) : nx ? -1 : ny ? 1 : x.localeCompare(y);
    if (d !== 0) {
      return Math.sign(d);
    }
  }
  return 0;
}

/**
 * Hermes' registry entry: `hermes-agent` is the id of Hermes' own manifest
 * (`acp_registry/agent.json` in NousResearch/hermes-agent); `hermes` the built-in preset's.
 */
export function isHermesEntry(agent: Pick<RegistryAgent, 'id' | 'name'>): boolean {
  return agent.id === 'hermes' || agent.id === 'hermes-agent' || /^hermes( agent)?$/i.test(agent.name.trim());
}

export interface CatalogItem {
  readonly agent: RegistryAgent;
  /** How it would run here; undefined: no distribution for this platform. */
  readonly choice: DistributionChoice | undefined;
  /** The `hermes.agents` entry installed from this registry id, if any. */
  readonly installed?: AgentDefinition;
  readonly updateAvailable: boolean;
  /** The registry lists a lower version than the one installed: installing it is a downgrade. */
  readonly downgrade: boolean;
}

/** An agent installed from the registry that the registry no longer lists validly: still startable and removable. */
export interface InstalledOnly {
  readonly definition: AgentDefinition;
  /** Why it is not in the list: its entry is invalid (the reason), or gone. */
  readonly reason: string;
}

export interface Catalog {
  readonly items: readonly CatalogItem[];
  /** The registry's Hermes entry, merged into the built-in Hermes rather than listed twice. */
  readonly hermes?: RegistryAgent;
  readonly installedOnly: readonly InstalledOnly[];
}

export interface CatalogContext {
  readonly platform: PlatformKey | undefined;
  readonly tools: Readonly<Record<PackageTool, boolean>>;
  /** The configured agents (`hermes.agents` with the presets). */
  readonly agents: readonly AgentDefinition[];
}

/**
 * The registry as the picker lists it: sorted by name, each with how it runs here and its marks;
 * plus the installed registry agents it no longer lists validly (`skipped` says why).
 */
export function buildCatalog(registry: Registry, ctx: CatalogContext, skipped: readonly SkippedEntry[] = []): Catalog {
  let hermes: RegistryAgent | undefined;
  const items: CatalogItem[] = [];
  for (const agent of registry.agents) {
    if (isHermesEntry(agent)) {
      hermes ??= agent;
      continue;
    }
    const installed = ctx.agents.find((a) => a.source === 'registry' && a.id === agent.id);
    items.push({
      agent,
      choice: chooseDistribution(agent, ctx.platform, ctx.tools),
      ...(installed !== undefined ? { installed } : {}),
      updateAvailable: installed?.version !== undefined && compareVersions(agent.version, installed.version) > 0,
      downgrade: installed?.version !== undefined && compareVersions(agent.version, installed.version) < 0,
    });
  }
  items.sort((a, b) => a.agent.name.localeCompare(b.agent.name));
  const listed = new Set(registry.agents.map((a) => a.id));
  const installedOnly = ctx.agents
    .filter((a) => a.source === 'registry' && !listed.has(a.id))
    .map((definition) => {
      const why = skipped.find((s) => s.id === definition.id);
      return { definition, reason: why !== undefined ? `its registry entry is invalid: ${why.reason}` : 'the registry no longer lists it' };
    });
  return hermes !== undefined ? { items, hermes, installedOnly } : { items, installedOnly };
}
