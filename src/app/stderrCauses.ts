import { formatMessage, type Localize } from '../util/l10n';

/** A cause the client recognises in what an agent wrote to stderr while it started. */
export interface StderrCause {
  readonly kind: 'root' | 'credentials' | 'missingVersion' | 'missingPackage' | 'registryUnreachable' | 'missingProgram';
  /** What it likely means, in one sentence. */
  readonly summary: string;
  /** What to do about it. */
  readonly advice: string;
  /** The stderr line it was recognised in. */
  readonly line: string;
}

interface Pattern {
  readonly kind: StderrCause['kind'];
  readonly match: RegExp;
  readonly text: (m: RegExpExecArray, t: Localize) => { summary: string; advice: string };
}

/**
 * What the stderr of agents that failed to start says, as seen from the real programs: Claude
 * Code's refusal as root (`--dangerously-skip-permissions cannot be used with root/sudo
 * privileges`), npm's `ETARGET` (`No matching version found for …`) and `E404` as `npx` prints
 * them (test/fixtures/registry/npm/README.md), network failures reaching a registry, missing
 * programs and modules, and the usual ways agents say credentials are missing or refused. Ordered:
 * the first pattern a line matches names the cause.
 */
const patterns: readonly Pattern[] = [
  {
    kind: 'root',
    match: /cannot be used with root\/sudo privileges|(?:must not|cannot|refus(?:e|es|ing) to|should not|will not|won't) (?:be )?run(?:ning)? (?:as|with) (?:root|sudo)/i,
    text: (_m, t) => ({
      summary: t('The agent refuses to run as root.'),
      advice: t('VS Code (or its server, on a remote) runs as root here. Run it as a regular user; in a throwaway container, see the agent\'s documentation for how it allows root.'),
    }),
  },
  {
    kind: 'missingVersion',
    match: /No matching version found for (\S+?)\.?$|\bETARGET\b/i,
    text: (m, t) => ({
      summary: m[1] !== undefined ? t('The package version {0} does not exist on the npm registry (ETARGET).', m[1]) : t('The package version does not exist on the npm registry (ETARGET).'),
      advice: t('The agent\'s entry names a version that was never published (or not to the registry your npm uses). Pick another version, or check the registry npm is configured with (npm config get registry).'),
    }),
  },
  {
    kind: 'missingPackage',
    match: /(?:npm (?:error|ERR!) 404 Not Found - GET (\S+))|\bE404\b|was not found in the package registry|No solution found when resolving/i,
    text: (m, t) => ({
      summary: m[1] !== undefined ? t('The package was not found on the registry ({0}).', m[1]) : t('The package was not found on the registry.'),
      advice: t('Check the package name in the agent\'s entry, and that the registry your npm or uv uses serves it (private packages need you to be signed in to that registry).'),
    }),
  },
  {
    kind: 'registryUnreachable',
    match: /\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET)\b.*(?:registry|npm|pypi)|(?:registry|npm|pypi).*\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET)\b|network request to \S+ failed/i,
    text: (_m, t) => ({
      summary: t('The package registry could not be reached to download the agent.'),
      advice: t('The first start of an npx or uvx agent downloads it: check the network, a proxy (npm config get proxy), or the registry setting.'),
    }),
  },
  {
    kind: 'credentials',
    match:
      /\b(?:[A-Z][A-Z0-9]*_)?API_KEY\b.*(?:not set|missing|required|environment variable)|(?:missing|no|invalid|expired) (?:api[ _-]?key|credentials?|auth(?:entication)? token|access token)|not (?:logged|signed) in|please (?:log ?in|sign in|authenticate)|authentication (?:required|failed)|\b401\b.*unauthori[sz]ed|invalid x-api-key/i,
    text: (_m, t) => ({
      summary: t('The agent has no credentials, or they were refused.'),
      advice: t('Sign in with the agent\'s own login, or give it its API key in the "env" of its "hermes.agents" entry; then Restart Agent.'),
    }),
  },
  {
    kind: 'missingProgram',
    match: /(?:^|\s|:)(\S+): (?:command )?not found$|Cannot find module '([^']+)'|ModuleNotFoundError: No module named '([^']+)'/i,
    text: (m, t) => ({
      summary: t('A program or module the agent needs is missing ({0}).', m[1] ?? m[2] ?? m[3] ?? t('a file')),
      advice: t('Reinstall the agent, or install what it needs and make sure it is on PATH for VS Code.'),
    }),
  },
];

/** The first recognised cause in `stderr` (its last lines first: what came last explains most). */
export function recogniseStderr(stderr: string, t: Localize = formatMessage): StderrCause | undefined {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  for (const p of patterns) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i] ?? '';
      const m = p.match.exec(line);
      if (m !== null) {
        return { kind: p.kind, line, ...p.text(m, t) };
      }
    }
  }
  return undefined;
}

/** The last `max` non-empty lines of a stderr tail (what the card shows). */
export function lastLines(stderr: string, max = 12): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  return lines.slice(-max).join('\n');
}
