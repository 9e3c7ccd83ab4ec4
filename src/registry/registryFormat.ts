import * as z from 'zod/v4';
import { isObject } from '../util/json';

/**
 * The ACP Registry's index (`registry.json`), validated entry by entry.
 *
 * Derived from `agent.schema.json` and `FORMAT.md` of github.com/agentclientprotocol/registry as
 * read at commit 172d5034b0aa7f91b24622ce4ee4459414e0e07e (adds `website`, `license_url` and the
 * binary target's optional `sha256`) and commit 789271302bcb8e82afb651b4417424d6f85cfae2 (adds the
 * optional `cmd` of `npx`/`uvx`); the published index is built by `.github/workflows/build_registry.py`
 * (`{version: "1.0.0", agents: [...]}`, icons rewritten to absolute URLs next to the index).
 *
 * Deliberate differences from the schema, because this is a client and the registry keeps growing:
 * unknown fields (and unknown distribution kinds and platforms) are ignored instead of rejected;
 * an entry that breaks a rule this client relies on is skipped with a reason, never the whole list.
 */

export const platformKeys = ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64', 'windows-aarch64', 'windows-x86_64'] as const;
export type PlatformKey = (typeof platformKeys)[number];

export interface BinaryTarget {
  readonly archive: string;
  /** Hex SHA-256 of the archive, lower-cased, when the registry gives one. */
  readonly sha256?: string;
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface PackageDistribution {
  readonly package: string;
  readonly cmd?: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface RegistryAgent {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly repository?: string;
  readonly website?: string;
  readonly authors: readonly string[];
  readonly license?: string;
  /** Absolute URL of the icon (relative paths are resolved against the index URL). */
  readonly icon?: string;
  readonly distribution: {
    readonly binary?: Readonly<Partial<Record<PlatformKey, BinaryTarget>>>;
    readonly npx?: PackageDistribution;
    readonly uvx?: PackageDistribution;
  };
}

export interface Registry {
  readonly version: string;
  readonly agents: readonly RegistryAgent[];
}

/** An entry left out of the list, and why (shown as a notice, logged in full). */
export interface SkippedEntry {
  readonly index: number;
  readonly id?: string;
  readonly reason: string;
}

/** The index as a whole is not a registry (not JSON, no `agents` array): nothing can be listed. */
export class RegistryFormatError extends Error {
  override readonly name = 'RegistryFormatError';
}

// Ids and versions become folder names under the extension's storage: the patterns keep them to
// one safe path segment (the id pattern is the schema's own; versions add a cap and a charset).
const idPattern = /^[a-z][a-z0-9-]*$/;
const versionPattern = /^[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*$/;
// A package spec or command that starts with "-" would be read by npx/uvx as one of their options.
const notAnOption = (what: string) => z.string().min(1).max(512).refine((s) => !s.startsWith('-'), `${what} must not start with "-"`);

const stringList = z.array(z.string()).default([]);
const envMap = z.record(z.string(), z.string()).default({});

const binaryTarget = z.object({
  archive: z.url({ protocol: /^https?$/ }),
  sha256: z
    .string()
    .regex(/^[a-fA-F0-9]{64}$/, 'sha256 must be 64 hex characters')
    .transform((s) => s.toLowerCase())
    .optional(),
  cmd: z.string().min(1).max(512),
  args: stringList,
  env: envMap,
});

const packageDistribution = z.object({
  package: notAnOption('package'),
  cmd: notAnOption('cmd').optional(),
  args: stringList,
  env: envMap,
});

const agentSchema = z.object({
  id: z.string().max(64).regex(idPattern, 'id must be lowercase letters, digits and hyphens, starting with a letter'),
  name: z.string().min(1).max(200),
  version: z.string().max(64).regex(versionPattern, 'version must be a semantic version (1.2.3)'),
  description: z.string().min(1).max(2000),
  repository: z.url().optional(),
  website: z.url().optional(),
  authors: stringList,
  license: z.string().optional(),
  icon: z.string().optional(),
  distribution: z
    .object({
      // Keys are checked below: an unknown platform is ignored, not a reason to drop the entry.
      binary: z.record(z.string(), z.unknown()).optional(),
      npx: packageDistribution.optional(),
      uvx: packageDistribution.optional(),
    })
    .refine((d) => d.binary !== undefined || d.npx !== undefined || d.uvx !== undefined, 'distribution has no binary, npx or uvx entry'),
});

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

function resolveIcon(icon: string | undefined, baseUrl: string | undefined): string | undefined {
  if (icon === undefined || icon === '') {
    return undefined;
  }
  try {
    const url = baseUrl !== undefined ? new URL(icon, baseUrl) : new URL(icon);
    // A local icon only for a local index: a web registry does not get to name files on this machine.
    const local = url.protocol === 'file:' && baseUrl !== undefined && new URL(baseUrl).protocol === 'file:';
    return url.protocol === 'https:' || url.protocol === 'http:' || local ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function parseBinary(raw: Record<string, unknown>): { targets: Partial<Record<PlatformKey, BinaryTarget>>; problem?: string } {
  const targets: Partial<Record<PlatformKey, BinaryTarget>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(platformKeys as readonly string[]).includes(key)) {
      continue;
    }
    const parsed = binaryTarget.safeParse(value);
    if (!parsed.success) {
      return { targets, problem: `distribution.binary.${key}: ${describeIssues(parsed.error)}` };
    }
    const { sha256, ...rest } = parsed.data;
    targets[key as PlatformKey] = sha256 !== undefined ? { ...rest, sha256 } : rest;
  }
  return { targets };
}

/** `o` without its undefined fields, typed so that `exactOptionalPropertyTypes` accepts it. */
type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> };
function withoutUndefined<T extends object>(o: T): Defined<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Defined<T>;
}

/** One entry: the agent, or why it was skipped. */
export function parseAgentEntry(raw: unknown, baseUrl?: string): { agent: RegistryAgent } | { reason: string } {
  const parsed = agentSchema.safeParse(raw);
  if (!parsed.success) {
    return { reason: describeIssues(parsed.error) };
  }
  const a = parsed.data;
  let binary: Partial<Record<PlatformKey, BinaryTarget>> | undefined;
  if (a.distribution.binary !== undefined) {
    const result = parseBinary(a.distribution.binary);
    if (result.problem !== undefined) {
      return { reason: result.problem };
    }
    binary = Object.keys(result.targets).length > 0 ? result.targets : undefined;
  }
  const distribution = withoutUndefined({ binary, npx: a.distribution.npx && withoutUndefined(a.distribution.npx), uvx: a.distribution.uvx && withoutUndefined(a.distribution.uvx) });
  if (Object.keys(distribution).length === 0) {
    return { reason: 'distribution: no platform or kind this client knows' };
  }
  const agent: RegistryAgent = withoutUndefined({
    id: a.id,
    name: a.name,
    version: a.version,
    description: a.description,
    repository: a.repository,
    website: a.website,
    authors: a.authors,
    license: a.license,
    icon: resolveIcon(a.icon, baseUrl),
    distribution,
  });
  return { agent };
}

/**
 * The whole index. Throws {@link RegistryFormatError} only when there is no `agents` array; every
 * invalid or duplicate entry is skipped with a reason.
 */
export function parseRegistry(json: unknown, baseUrl?: string): { registry: Registry; skipped: SkippedEntry[] } {
  if (!isObject(json) || !Array.isArray(json.agents)) {
    throw new RegistryFormatError('The registry index has no "agents" list.');
  }
  const agents: RegistryAgent[] = [];
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  json.agents.forEach((raw: unknown, index) => {
    const id = isObject(raw) && typeof raw.id === 'string' ? raw.id.slice(0, 64) : undefined;
    const result = parseAgentEntry(raw, baseUrl);
    if ('reason' in result) {
      skipped.push({ index, ...(id !== undefined ? { id } : {}), reason: result.reason });
    } else if (seen.has(result.agent.id)) {
      skipped.push({ index, id: result.agent.id, reason: 'duplicate id (the first entry is kept)' });
    } else {
      seen.add(result.agent.id);
      agents.push(result.agent);
    }
  });
  return { registry: { version: typeof json.version === 'string' ? json.version : '', agents }, skipped };
}
