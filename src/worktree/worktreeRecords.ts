import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isObject } from '../util/json';

/** What we remember of a worktree we made, so it and its session survive a reload. */
export interface WorktreeRecord {
  readonly name: string;
  readonly path: string;
  /** `hermes/<name>`. */
  readonly branch: string;
  /** The commit it started from. */
  readonly base: string;
  readonly repoRoot: string;
  readonly createdAt: number;
  /** Who made it: `chat` (a session of the extension) or `runner` (`hermes-acp-run --worktree`). */
  readonly createdBy: 'chat' | 'runner';
  /** The session working in it, when there is one (the chat's session id). */
  readonly sessionId?: string;
  /** The agent of that session (its configured id). */
  readonly agent?: string;
}

/**
 * One JSON file per worktree under `<git common dir>/hermes-acp/worktrees/`: next to git's own
 * worktree metadata, outside every working tree (nothing to ignore, nothing tracked edited), one
 * file each so parallel runs never write the same file. Written atomically (temp file + rename).
 */
export class WorktreeRecords {
  constructor(private readonly commonDir: string) {}

  get folder(): string {
    return path.join(this.commonDir, 'hermes-acp', 'worktrees');
  }

  async write(record: WorktreeRecord): Promise<void> {
    await fs.mkdir(this.folder, { recursive: true });
    const file = this.fileOf(record.name);
    const temp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(temp, `${JSON.stringify(record, null, 2)}\n`);
    await fs.rename(temp, file);
  }

  async remove(name: string): Promise<void> {
    await fs.rm(this.fileOf(name), { force: true });
  }

  async read(name: string): Promise<WorktreeRecord | undefined> {
    try {
      return parseRecord(JSON.parse(await fs.readFile(this.fileOf(name), 'utf8')) as unknown);
    } catch {
      return undefined;
    }
  }

  /** Every readable record; unreadable files are skipped (and named in `problems`). */
  async list(): Promise<{ records: WorktreeRecord[]; problems: string[] }> {
    let names: string[];
    try {
      names = (await fs.readdir(this.folder)).filter((n) => n.endsWith('.json'));
    } catch {
      return { records: [], problems: [] };
    }
    const records: WorktreeRecord[] = [];
    const problems: string[] = [];
    for (const n of names.sort()) {
      const r = await this.read(n.slice(0, -'.json'.length));
      if (r === undefined) {
        problems.push(`${path.join(this.folder, n)} is not a worktree record; ignored`);
      } else {
        records.push(r);
      }
    }
    return { records, problems };
  }

  private fileOf(name: string): string {
    return path.join(this.folder, `${name}.json`);
  }
}

function parseRecord(raw: unknown): WorktreeRecord | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const s = (k: string): string | undefined => (typeof raw[k] === 'string' ? raw[k] : undefined);
  const name = s('name');
  const p = s('path');
  const branch = s('branch');
  const base = s('base');
  const repoRoot = s('repoRoot');
  const createdBy = s('createdBy');
  if (name === undefined || p === undefined || branch === undefined || base === undefined || repoRoot === undefined || typeof raw.createdAt !== 'number' || (createdBy !== 'chat' && createdBy !== 'runner')) {
    return undefined;
  }
  const sessionId = s('sessionId');
  const agent = s('agent');
  return { name, path: p, branch, base, repoRoot, createdAt: raw.createdAt, createdBy, ...(sessionId !== undefined ? { sessionId } : {}), ...(agent !== undefined ? { agent } : {}) };
}
