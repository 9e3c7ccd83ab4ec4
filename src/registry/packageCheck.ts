import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { defaultLauncher, type ProcessLauncher } from '../process/launcher';
import { isObject } from '../util/json';
import { RegistryError, throwIfAborted } from './registryErrors';

/** The runner of `npm` (the one process launcher; tests may pass their own). */
export type CommandRunner = Pick<ProcessLauncher, 'run'>;

export interface PackageCheckOptions {
  /** Where npx will run the agent (the workspace): npm reads a project `.npmrc` from there too. */
  readonly cwd: string;
  /** Added to npm's environment (tests: a loopback registry, a fresh cache). */
  readonly env?: Readonly<Record<string, string>>;
  readonly runner?: CommandRunner;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** The npm package of a registry entry, and how it was confirmed (for the log and the consent). */
export interface CheckedPackage {
  readonly spec: string;
  /** The version the registry your npm uses resolves the spec to; undefined for a local tarball. */
  readonly version?: string;
}

/** `name`, `name@version`, `name@range`, `name@tag`, scoped or not: a spec npm resolves on a registry. */
const registrySpec = /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9~][\w.~-]*(?:@[^\s/:\\]+)?$/i;

/**
 * Checks, before an `npx` agent is called installed, that npx will find its package: a registry
 * spec must resolve, exactly as written, on the registry the user's npm is configured with
 * (`npm view <spec> version --json`, run through the process launcher with the user's npm config:
 * scoped registries, auth and proxy settings included); a local tarball (`file:`) must exist. A
 * version that does not exist (E404 "No match found for version …") or an unreachable registry is
 * a {@link RegistryError} `packageMissing` / `packageUnchecked` carrying npm's own answer.
 */
export async function checkNpmPackage(spec: string, o: PackageCheckOptions): Promise<CheckedPackage> {
  if (spec.startsWith('file:')) {
    const file = spec.startsWith('file://') ? fileURLToPath(spec) : spec.slice('file:'.length);
    const info = await stat(file).catch(() => undefined);
    if (info?.isFile() !== true) {
      throw new RegistryError('packageMissing', `The package ${spec} names a file that does not exist.`);
    }
    return { spec };
  }
  if (!registrySpec.test(spec)) {
    throw new RegistryError('packageUnchecked', `"${spec}" is not a package name and version the npm registry can confirm (git and URL packages are not installed from the agent registry).`);
  }
  const runner = o.runner ?? defaultLauncher();
  // --loglevel=silent: only the JSON on stdout (the launcher merges stderr into the output);
  // one retry instead of npm's two with a minute of backoff, so an unreachable registry says so soon.
  const result = await runner.run(
    { command: 'npm', args: ['view', spec, 'version', '--json', '--loglevel=silent', '--fetch-retries=1'], cwd: o.cwd, env: { npm_config_update_notifier: 'false', ...o.env } },
    { timeoutMs: o.timeoutMs ?? 60_000, maxOutputBytes: 256 * 1024 },
  );
  throwIfAborted(o.signal);
  if (result.notFound) {
    throw new RegistryError('packageUnchecked', '`npm` was not found on PATH, so the package could not be checked. npx agents need Node.js: install it from https://nodejs.org or your package manager, then restart VS Code.');
  }
  if (result.timedOut) {
    throw new RegistryError('packageUnchecked', `\`npm view ${spec}\` did not answer within ${Math.round((o.timeoutMs ?? 60_000) / 1000)} s: the registry npm uses could not be reached. Check the network or npm's proxy and registry settings (npm config get registry).`);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(result.output);
  } catch {
    answer = undefined;
  }
  if (result.ok) {
    const version = typeof answer === 'string' ? answer : Array.isArray(answer) ? answer.filter((v): v is string => typeof v === 'string').at(-1) : undefined;
    if (version !== undefined) {
      return { spec, version };
    }
  }
  const error = isObject(answer) && isObject(answer.error) ? answer.error : undefined;
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const summary = typeof error?.summary === 'string' ? error.summary : result.output.split('\n').slice(0, 3).join(' ').slice(0, 300);
  if (code === 'E404' || code === 'ETARGET') {
    throw new RegistryError('packageMissing', `${spec} is not on the npm registry your npm uses: npm answered ${code} "${summary}". Nothing was installed; the registry entry names a version that was not published there.`);
  }
  throw new RegistryError('packageUnchecked', `${spec} could not be checked on the npm registry: npm answered ${code ?? `exit ${String(result.exitCode)}`} "${summary}". Check the network or npm's registry and proxy settings (npm config get registry).`);
}
