import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ClientRequestError } from '../agentPort/agentErrors';
import { hostSemantics, isInside, type PathSemantics } from '../util/paths';
import { foldersLabel } from './workspaceBoundary';

/**
 * The working directory a client terminal may run in: the rules of `WorkspaceBoundary` (workspaceBoundary.ts)
 * (absolute path, real path inside one of the session's folders — the workspace folders, or a
 * worktree session's worktree — after resolving symlinks) applied to a directory instead of a
 * file, which `WorkspaceBoundary.resolve` refuses by design. `semantics`: the volume's case
 * folding (`C:\WS` is `c:\ws` on Windows, `/WS` is `/ws` on macOS).
 *
 * ACP `CreateTerminalRequest.cwd`: "Working directory for the command. Must be an absolute path."
 * When absent, the first of the session's folders is used (the folder sessions are opened in).
 *
 * Returns the real path; the process is started there, so a symlink swapped after the check
 * cannot move it outside.
 */
export async function resolveTerminalCwd(cwd: string | null | undefined, roots: readonly string[], semantics: PathSemantics = hostSemantics()): Promise<string> {
  const realRoots = await Promise.all(roots.map((r) => fs.realpath(path.resolve(r)).catch(() => undefined)));
  const usable = realRoots.filter((r): r is string => r !== undefined);
  if (cwd === undefined || cwd === null) {
    const first = usable[0];
    if (first === undefined) {
      throw ClientRequestError.invalidParams('No workspace folder is open, so the client has no directory to run the command in; pass an absolute cwd.');
    }
    return checkDirectory(first, first);
  }
  if (typeof cwd !== 'string' || cwd === '' || cwd.includes('\0')) {
    throw ClientRequestError.invalidParams('The terminal cwd is empty or invalid.');
  }
  if (!path.isAbsolute(cwd)) {
    throw ClientRequestError.invalidParams(`The terminal cwd must be an absolute path (ACP); got "${cwd}".`, { path: cwd });
  }
  const normalized = path.resolve(cwd);
  let real: string;
  try {
    real = await fs.realpath(normalized);
  } catch {
    throw ClientRequestError.resourceNotFound(`The terminal cwd ${cwd} does not exist.`, cwd);
  }
  if (!usable.some((root) => isInside(root, real, semantics))) {
    const via = real !== normalized ? ` (it resolves to ${real})` : '';
    throw ClientRequestError.resourceNotFound(
      `The terminal cwd ${cwd} is outside the workspace${via}; the client only runs commands inside ${foldersLabel(roots)}.`,
      cwd,
    );
  }
  return checkDirectory(real, cwd);
}

async function checkDirectory(real: string, shown: string): Promise<string> {
  const stat = await fs.stat(real).catch(() => undefined);
  if (stat === undefined) {
    throw ClientRequestError.resourceNotFound(`The terminal cwd ${shown} does not exist.`, shown);
  }
  if (!stat.isDirectory()) {
    throw ClientRequestError.invalidParams(`The terminal cwd ${shown} is not a directory.`, { path: shown });
  }
  return real;
}
