/**
 * Sessions of the scripted agent, optionally persisted to a JSON file.
 *
 * Hermes keeps ACP sessions in `$HERMES_HOME/state.db`, so list/load/resume work across process
 * restarts (Hermes 0.19, observed: a fresh process loaded an earlier session). `SCRIPTED_AGENT_STATE_FILE` gives the scripted agent the
 * same property, which crash-recovery tests rely on: a NEW process can `session/load` what an
 * earlier (crashed or killed) process recorded.
 *
 * History is a list of turns, each a list of the replayable `session/update`s that turn sent.
 * Streamed text chunks are coalesced per message, so a replay sends whole texts like Hermes does.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { log } from './agentLog';

/** Cumulative token/cost counters of a session (Hermes reports `usage` cumulatively). */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  thoughtTokens: number;
  cachedReadTokens: number;
  costUsd: number;
}

export interface StoredTurn {
  updates: SessionUpdate[];
}

export interface StoredSession {
  sessionId: string;
  cwd: string;
  title: string | null;
  createdAt: string;
  updatedAt: string;
  modeId: string;
  modelId: string;
  fast: boolean;
  turns: StoredTurn[];
  usage: UsageTotals;
}

/** The update kinds that make up history; live-only kinds (usage, commands, titles) are not replayed. */
const replayableKinds = new Set<string>([
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
]);

export function isReplayable(update: SessionUpdate): boolean {
  return replayableKinds.has(update.sessionUpdate);
}

/**
 * Appends an update to a turn's history, merging a text chunk into the previous one when both
 * belong to the same message. Never mutates an update that was already sent: the SDK serialises
 * outgoing messages asynchronously, so mutation could leak onto the wire.
 */
export function recordUpdate(turn: StoredTurn, update: SessionUpdate): void {
  if (!isReplayable(update)) {
    return;
  }
  const last = turn.updates[turn.updates.length - 1];
  if (
    last !== undefined &&
    (update.sessionUpdate === 'agent_message_chunk' ||
      update.sessionUpdate === 'agent_thought_chunk' ||
      update.sessionUpdate === 'user_message_chunk') &&
    last.sessionUpdate === update.sessionUpdate &&
    (last.messageId ?? null) === (update.messageId ?? null) &&
    last.content.type === 'text' &&
    update.content.type === 'text'
  ) {
    turn.updates[turn.updates.length - 1] = {
      ...last,
      content: { ...last.content, text: last.content.text + update.content.text },
    };
    return;
  }
  turn.updates.push(update);
}

function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, thoughtTokens: 0, cachedReadTokens: 0, costUsd: 0 };
}

/** Title shown by `session/list`: explicit title, else first user text, else the cwd's leaf (as Hermes). */
export function displayTitle(session: StoredSession): string {
  if (session.title !== null && session.title !== '') {
    return session.title;
  }
  for (const turn of session.turns) {
    for (const u of turn.updates) {
      if (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' && u.content.text.trim() !== '') {
        const text = u.content.text.trim().replace(/\s+/g, ' ');
        return text.length > 60 ? `${text.slice(0, 57)}...` : text;
      }
    }
  }
  return basename(session.cwd) || session.cwd;
}

// ---- narrowing of the state file (it is our own format, but it is still untrusted input) ----

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function parseUpdate(v: unknown): SessionUpdate | undefined {
  if (!isRecord(v) || typeof v.sessionUpdate !== 'string' || !replayableKinds.has(v.sessionUpdate)) {
    return undefined;
  }
  // The shape was produced by this agent from typed values; only the discriminator is checked.
  return v as unknown as SessionUpdate;
}

function parseSession(v: unknown): StoredSession | undefined {
  if (!isRecord(v) || typeof v.sessionId !== 'string' || typeof v.cwd !== 'string') {
    return undefined;
  }
  const turns: StoredTurn[] = [];
  if (Array.isArray(v.turns)) {
    for (const t of v.turns) {
      if (isRecord(t) && Array.isArray(t.updates)) {
        turns.push({ updates: t.updates.map(parseUpdate).filter((u): u is SessionUpdate => u !== undefined) });
      }
    }
  }
  const usage = isRecord(v.usage) ? v.usage : {};
  const now = new Date().toISOString();
  return {
    sessionId: v.sessionId,
    cwd: v.cwd,
    title: typeof v.title === 'string' ? v.title : null,
    createdAt: typeof v.createdAt === 'string' ? v.createdAt : now,
    updatedAt: typeof v.updatedAt === 'string' ? v.updatedAt : now,
    modeId: typeof v.modeId === 'string' ? v.modeId : 'default',
    modelId: typeof v.modelId === 'string' ? v.modelId : 'scripted:fast',
    fast: v.fast === true,
    turns,
    usage: {
      inputTokens: num(usage.inputTokens),
      outputTokens: num(usage.outputTokens),
      thoughtTokens: num(usage.thoughtTokens),
      cachedReadTokens: num(usage.cachedReadTokens),
      costUsd: num(usage.costUsd),
    },
  };
}

export class SessionStore {
  private readonly sessions = new Map<string, StoredSession>();
  private counter = 0;

  constructor(private readonly file: string | undefined) {
    for (const s of this.readFile()) {
      this.sessions.set(s.sessionId, s);
    }
    this.counter = this.sessions.size;
  }

  create(cwd: string, defaults: { modeId: string; modelId: string }): StoredSession {
    this.counter += 1;
    const random = Math.random().toString(16).slice(2, 10).padEnd(8, '0');
    const now = new Date().toISOString();
    const session: StoredSession = {
      sessionId: `sess-${this.counter}-${random}`,
      cwd,
      title: null,
      createdAt: now,
      updatedAt: now,
      modeId: defaults.modeId,
      modelId: defaults.modelId,
      fast: false,
      turns: [],
      usage: emptyUsage(),
    };
    this.sessions.set(session.sessionId, session);
    this.save();
    return session;
  }

  /** Copies a session's history under a new id (`session/fork`). */
  fork(source: StoredSession, cwd: string): StoredSession {
    const copy = this.create(cwd, { modeId: source.modeId, modelId: source.modelId });
    copy.fast = source.fast;
    copy.title = source.title === null ? null : `Fork of ${source.title}`;
    copy.turns = structuredClone(source.turns);
    this.save();
    return copy;
  }

  /** Finds a session in memory or, failing that, in the state file (another process may have written it). */
  get(sessionId: string): StoredSession | undefined {
    const known = this.sessions.get(sessionId);
    if (known !== undefined) {
      return known;
    }
    const fromFile = this.readFile().find((s) => s.sessionId === sessionId);
    if (fromFile !== undefined) {
      this.sessions.set(sessionId, fromFile);
    }
    return fromFile;
  }

  /** Every known session, newest first (Hermes lists newest first). */
  all(): StoredSession[] {
    for (const s of this.readFile()) {
      if (!this.sessions.has(s.sessionId)) {
        this.sessions.set(s.sessionId, s);
      }
    }
    return [...this.sessions.values()].sort((a, b) =>
      a.updatedAt === b.updatedAt ? b.createdAt.localeCompare(a.createdAt) : b.updatedAt.localeCompare(a.updatedAt),
    );
  }

  touch(session: StoredSession): void {
    session.updatedAt = new Date().toISOString();
    this.save();
  }

  /** Writes the state file atomically, merging sessions another process wrote meanwhile. */
  save(): void {
    if (this.file === undefined) {
      return;
    }
    const merged = new Map<string, StoredSession>();
    for (const s of this.readFile()) {
      merged.set(s.sessionId, s);
    }
    for (const s of this.sessions.values()) {
      merged.set(s.sessionId, s);
    }
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: 1, sessions: [...merged.values()] }));
      renameSync(tmp, this.file);
    } catch (err) {
      log(`could not write state file ${this.file}: ${String(err)}`);
    }
  }

  private readFile(): StoredSession[] {
    if (this.file === undefined || !existsSync(this.file)) {
      return [];
    }
    try {
      const data: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      if (!isRecord(data) || !Array.isArray(data.sessions)) {
        return [];
      }
      return data.sessions.map(parseSession).filter((s): s is StoredSession => s !== undefined);
    } catch (err) {
      log(`could not read state file ${this.file}: ${String(err)}`);
      return [];
    }
  }
}
