import type { AgentDefinition, AgentHost } from '../host/agentHost';
import type { ChatSession } from './chatSession';

/** A session this workspace knows of (history). */
export interface KnownSession {
  readonly sessionId: string;
  readonly agentId: string;
  readonly title: string;
  /** ISO 8601. */
  readonly updatedAt: string;
  /**
   * The title is the chat's own (a fork's "Fork of …") and the agent has named the session nothing
   * better: it wins over the agent's list, which titles an unnamed session by its first message
   * (Hermes `_build_session_title`), the fork's source's.
   */
  readonly ownTitle?: boolean;
}

/** Where the workspace's sessions are kept (the extension's workspace state). */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

const knownSessionsKey = 'hermes.knownSessions';

/**
 * The workspace's sessions and the agent's list, newest first: the newer record of a session wins,
 * except that a title the chat gave its session itself (a fork's "Fork of …", `ownTitle`) stays over
 * the agent's, which names an untitled session by its first message — the fork's source's (Hermes).
 */
export function mergeSessions(known: readonly KnownSession[], fromAgent: readonly KnownSession[]): KnownSession[] {
  const merged = new Map<string, KnownSession>();
  for (const k of [...known, ...fromAgent]) {
    const prev = merged.get(k.sessionId);
    const next = prev === undefined || k.updatedAt > prev.updatedAt ? { ...prev, ...k } : prev;
    merged.set(k.sessionId, prev?.ownTitle === true ? { ...next, title: prev.title, ownTitle: true } : next);
  }
  return [...merged.values()].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
}

/** The text of a chat's first prompt (80 characters), for titles. */
export function firstUserText(chat: ChatSession): string | undefined {
  const user = chat.controller.state.entries.find((e) => e.kind === 'user');
  const text = user?.kind === 'user' ? user.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('').trim() : '';
  return text !== '' ? text.slice(0, 80) : undefined;
}

/**
 * The sessions the history list offers: the agent's `session/list` (all pages) merged with the
 * ones this workspace opened, which it remembers itself (agents that list nothing still get a
 * history, and a load — which replays messages, not the title — still gets its title).
 */
export class SessionHistory {
  constructor(private readonly store: KeyValueStore) {}

  /** Sessions this workspace opened (merged into the history list). */
  remember(chat: ChatSession): void {
    const sessionId = chat.sessionId;
    if (sessionId === undefined || chat.host.definition.demo === true || !chat.used) {
      return;
    }
    const state = chat.controller.state;
    const list = this.known();
    const existing = list.find((k) => k.sessionId === sessionId);
    const own = chat.localTitle;
    const record: KnownSession = {
      sessionId,
      agentId: chat.host.definition.id,
      title: state.title ?? existing?.title ?? firstUserText(chat) ?? sessionId,
      updatedAt: new Date().toISOString(),
      ...(own !== undefined ? { ownTitle: true } : {}),
    };
    if (existing?.title === record.title && existing.ownTitle === record.ownTitle) {
      return;
    }
    void this.store.update(knownSessionsKey, [record, ...list.filter((k) => k.sessionId !== sessionId)].slice(0, 200));
  }

  /** The title this workspace saw for a session, if any. */
  titleOf(sessionId: string): string | undefined {
    return this.known().find((k) => k.sessionId === sessionId)?.title;
  }

  /**
   * Every session of `def`'s agent, newest first. Listing starts the agent: `allow` says whether it
   * may (an untrusted workspace), else the workspace's own list is all there is. A failure of the
   * agent's list is returned with what could be listed (the caller says it).
   */
  async list(
    def: AgentDefinition,
    host: AgentHost,
    cwd: string,
    allow: () => Promise<boolean>,
  ): Promise<{ sessions: KnownSession[]; listed: boolean; error?: unknown }> {
    const known = this.known().filter((k) => k.agentId === def.id);
    let listed = false;
    let error: unknown;
    const fromAgent: KnownSession[] = [];
    if (host.state.kind !== 'ready' && !(await allow())) {
      return { sessions: [...known].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1)), listed };
    }
    try {
      const client = await host.start();
      if (client.agent?.agentCapabilities?.sessionCapabilities?.list !== undefined && client.agent.agentCapabilities.sessionCapabilities.list !== null) {
        listed = true;
        let cursor: string | undefined;
        for (let page = 0; page < 20; page++) {
          const res = await client.listSessions({ cwd, ...(cursor !== undefined ? { cursor } : {}) });
          for (const info of res.sessions) {
            fromAgent.push({
              sessionId: info.sessionId,
              agentId: def.id,
              title: typeof info.title === 'string' && info.title !== '' ? info.title : info.sessionId,
              updatedAt: typeof info.updatedAt === 'string' ? info.updatedAt : '',
            });
          }
          cursor = typeof res.nextCursor === 'string' && res.nextCursor !== '' ? res.nextCursor : undefined;
          if (cursor === undefined) {
            break;
          }
        }
      }
    } catch (e) {
      error = e;
    }
    const sessions = mergeSessions(known, fromAgent);
    return error !== undefined ? { sessions, listed, error } : { sessions, listed };
  }

  private known(): KnownSession[] {
    return this.store.get<KnownSession[]>(knownSessionsKey) ?? [];
  }
}
