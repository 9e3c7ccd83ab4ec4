import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isObject } from '../util/json';

/**
 * The runner's own record of a session it created or resumed, so that a later run can
 * `--continue` it or `--resume ID|NAME` it. One small JSON file per session under
 * `$XDG_STATE_HOME/hermes-acp-run/sessions/`, each written whole to a temporary file and renamed
 * over the old one: two runs that finish at once write two files (or the same file twice, the
 * later rename winning), and a reader never sees half a record.
 */
export interface SessionRecord {
  readonly version: 1;
  /** Which agent: the command line (ACP), or the transport and its address (see {@link agentKey}). */
  readonly agentKey: string;
  /** The agent's own name (`agentInfo.name`), for people. */
  readonly agent: string;
  readonly cwd: string;
  readonly sessionId: string;
  readonly name?: string;
  /** The agent's title for the session, else the first prompt (≤ 80 characters). */
  readonly title: string;
  /** ISO 8601. */
  readonly createdAt: string;
  readonly lastUsedAt: string;
}

/** How many records one agent and cwd keep; older ones are removed when a run writes its own. */
const keptPerScope = 200;

/** `$XDG_STATE_HOME/hermes-acp-run` (default `~/.local/state/hermes-acp-run`). */
export function stateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'hermes-acp-run');
}

/** The identity of "the same agent" across runs: what is started, or where it is reached. */
export function agentKey(agent: { readonly command: string; readonly args: readonly string[] } | { readonly transport: string; readonly address: string }): string {
  return 'command' in agent ? `acp:${JSON.stringify([agent.command, ...agent.args])}` : `${agent.transport}:${agent.address}`;
}

export class SessionRecords {
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = path.join(stateDir, 'sessions');
  }

  /** This agent's records for this cwd, most recently used first. */
  list(key: string, cwd: string): SessionRecord[] {
    return this.readAll()
      .filter((r) => r.agentKey === key && r.cwd === cwd)
      .sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
  }

  /** The most recently used record for this agent and cwd. */
  latest(key: string, cwd: string): SessionRecord | undefined {
    return this.list(key, cwd)[0];
  }

  /** A record by session id, else by name (the most recently used of that name). */
  find(key: string, cwd: string, idOrName: string): SessionRecord | undefined {
    const all = this.list(key, cwd);
    return all.find((r) => r.sessionId === idOrName) ?? all.find((r) => r.name === idOrName);
  }

  /** Writes (creates or replaces) a record atomically, then trims the scope to its newest records. */
  save(record: SessionRecord): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileOf(record);
    const tmp = `${file}.${process.pid.toString()}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
    for (const old of this.list(record.agentKey, record.cwd).slice(keptPerScope)) {
      this.remove(old);
    }
  }

  remove(record: SessionRecord): void {
    rmSync(this.fileOf(record), { force: true });
  }

  private fileOf(record: Pick<SessionRecord, 'agentKey' | 'cwd' | 'sessionId'>): string {
    const digest = createHash('sha256').update(JSON.stringify([record.agentKey, record.cwd, record.sessionId])).digest('hex');
    return path.join(this.dir, `${digest.slice(0, 32)}.json`);
  }

  private readAll(): SessionRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const out: SessionRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) {
        continue; // temporary files of a write under way
      }
      const record = parseRecord(readText(path.join(this.dir, name)));
      if (record !== undefined) {
        out.push(record);
      }
    }
    return out;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // removed meanwhile
  }
}

/** A record file, checked field by field (it is ours, but still input). */
export function parseRecord(text: string | undefined): SessionRecord | undefined {
  let v: unknown;
  try {
    v = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(v) || v.version !== 1) {
    return undefined;
  }
  const s = (k: string): string | undefined => (typeof v[k] === 'string' ? v[k] : undefined);
  const [key, agent, cwd, id, title, created, used] = ['agentKey', 'agent', 'cwd', 'sessionId', 'title', 'createdAt', 'lastUsedAt'].map(s);
  if (key === undefined || agent === undefined || cwd === undefined || id === undefined || id === '' || title === undefined || created === undefined || used === undefined) {
    return undefined;
  }
  const name = s('name');
  return { version: 1, agentKey: key, agent, cwd, sessionId: id, ...(name !== undefined ? { name } : {}), title, createdAt: created, lastUsedAt: used };
}

/** A title from the first prompt: one line, at most 80 characters. */
export function titleFromPrompt(prompt: string): string {
  const line = prompt.trim().replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
