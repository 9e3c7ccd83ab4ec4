import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { hostSemantics, isInside, type PathSemantics } from '../util/paths';
import { ClientRequestError } from '../agentPort/agentErrors';

/**
 * Where the agent may read and write through the client: inside the session's folders (the
 * workspace folders, or a worktree session's worktree alone: `roots(sessionId)`), after resolving
 * symlinks, and only regular files with a single link (a hard link inside the workspace can point
 * at a file outside it). Everything else is refused with a message the agent (and the traffic log)
 * can show.
 */
export class WorkspaceBoundary {
  /** Real paths of each set of roots, keyed by the set (sessions with the same folders share one). */
  private readonly realRoots = new Map<string, Promise<string[]>>();

  constructor(
    /** The folders a session may touch; without a session id (the chat's own reads), the workspace folders. */
    private readonly roots: (sessionId?: string) => readonly string[],
    /** The volume's case folding: `C:\WS` and `c:\ws` are one folder on Windows, `/WS` and `/ws` on macOS. */
    private readonly semantics: PathSemantics = hostSemantics(),
  ) {}

  /** Call when the workspace folders change. */
  reset(): void {
    this.realRoots.clear();
  }

  /** The real path of `p` if it is allowed; throws a {@link ClientRequestError} otherwise. */
  async resolve(p: string, intent: 'read' | 'write', sessionId?: string): Promise<{ realPath: string; stat: Stats | undefined }> {
    if (typeof p !== 'string' || p === '' || p.includes('\0')) {
      throw ClientRequestError.invalidParams('The path is empty or invalid.');
    }
    if (!path.isAbsolute(p)) {
      throw ClientRequestError.invalidParams(`Paths must be absolute (ACP); got "${p}".`, { path: p });
    }
    const normalized = path.resolve(p);
    const realPath = await realPathOf(normalized);
    const given = this.roots(sessionId);
    const roots = await this.rootPaths(given);
    const inside = roots.some((r) => isInside(r, realPath, this.semantics));
    if (!inside) {
      const via = realPath !== normalized ? ` (it resolves to ${realPath})` : '';
      throw ClientRequestError.resourceNotFound(`${p} is outside the workspace${via}; the client only ${intent}s files inside ${foldersLabel(given)}.`, p);
    }
    const link = await fs.lstat(realPath).catch(() => undefined);
    if (link?.isSymbolicLink() === true) {
      // realpath resolves every live link, so this one dangles: writing would follow it anywhere.
      throw ClientRequestError.invalidParams(`${p} is a symbolic link to a missing target; the client does not follow it.`, { path: p });
    }
    let stat: Stats | undefined;
    try {
      stat = await fs.stat(realPath);
    } catch {
      stat = undefined;
    }
    if (stat !== undefined) {
      if (!stat.isFile()) {
        throw ClientRequestError.invalidParams(`${p} is not a regular file (${describeKind(stat)}).`, { path: p });
      }
      if (stat.nlink > 1) {
        throw ClientRequestError.invalidParams(
          `${p} has ${stat.nlink} hard links; another of them may be outside the workspace, so the client does not ${intent} it.`,
          { path: p },
        );
      }
    } else if (intent === 'read') {
      throw ClientRequestError.resourceNotFound(`${p} does not exist.`, p);
    }
    return { realPath, stat };
  }

  private rootPaths(roots: readonly string[]): Promise<string[]> {
    const key = roots.join('\0');
    let real = this.realRoots.get(key);
    if (real === undefined) {
      real = Promise.all(roots.map((r) => realPathOf(path.resolve(r))));
      // A root that fails to resolve (a worktree removed meanwhile) is looked up again next time.
      real.catch(() => this.realRoots.delete(key));
      this.realRoots.set(key, real);
    }
    return real;
  }
}

/** How a refusal names the folders: the workspace folders, or the session's own (a worktree). */
export function foldersLabel(roots: readonly string[]): string {
  return roots.length === 1 && roots[0] !== undefined ? `the session's folder ${roots[0]}` : 'the workspace folders';
}

/** realpath of the path, or of its nearest existing ancestor joined with the rest (files to be created). */
async function realPathOf(p: string): Promise<string> {
  const rest: string[] = [];
  let current = p;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch {
      // A component that does not resolve may be a dangling symlink: rejoining the rest as text
      // would treat `<ws>/link→<outside>/missing/new.txt` as inside. Such paths are refused.
      const link = await fs.lstat(current).catch(() => undefined);
      if (link?.isSymbolicLink() === true) {
        throw ClientRequestError.invalidParams(`${p} goes through ${current}, a symbolic link to a missing target; the client does not follow it.`, { path: p });
      }
      const parent = path.dirname(current);
      if (parent === current) {
        return p;
      }
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

function describeKind(s: Stats): string {
  if (s.isDirectory()) {
    return 'a directory';
  }
  if (s.isCharacterDevice() || s.isBlockDevice()) {
    return 'a device';
  }
  if (s.isFIFO()) {
    return 'a pipe';
  }
  if (s.isSocket()) {
    return 'a socket';
  }
  return 'not a file';
}

/** Lines `line` (1-based) … `line + limit - 1` of a text (ACP fs/read_text_file). */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if ((line === undefined || line === null) && (limit === undefined || limit === null)) {
    return text;
  }
  const lines = text.split('\n');
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit !== undefined && limit !== null ? start + Math.max(0, limit) : lines.length;
  return lines.slice(start, end).join('\n');
}
