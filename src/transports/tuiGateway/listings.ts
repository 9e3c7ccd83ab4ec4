import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../../util/json';
import type { LiveSessionInfo } from '../../agentPort/transport';
import { epochToIso } from './wire';

function rows(raw: unknown): unknown[] {
  return isObject(raw) && Array.isArray(raw.sessions) ? raw.sessions : [];
}

/** `session.list` (`SessionListRow`: stored sessions, most recent first) as ACP session infos. */
export function parseStoredSessions(raw: unknown, cwd: string): acp.SessionInfo[] {
  return rows(raw).flatMap((r): acp.SessionInfo[] => {
    if (!isObject(r) || typeof r.id !== 'string') {
      return [];
    }
    const title = typeof r.title === 'string' && r.title !== '' ? r.title : typeof r.preview === 'string' ? r.preview : '';
    const updatedAt = epochToIso(r.last_active ?? r.started_at);
    return [{ sessionId: r.id, cwd: typeof r.cwd === 'string' ? r.cwd : cwd, ...(title !== '' ? { title } : {}), ...(updatedAt !== undefined ? { updatedAt } : {}) }];
  });
}

/** `session.active_list` (`SessionActiveItem`: live sessions of this gateway process). */
export function parseLiveSessions(raw: unknown): LiveSessionInfo[] {
  return rows(raw).flatMap((r): LiveSessionInfo[] => {
    if (!isObject(r) || typeof r.id !== 'string') {
      return [];
    }
    const s = (k: string): string => (typeof r[k] === 'string' ? r[k] : '');
    const startedAt = epochToIso(r.started_at);
    const lastActiveAt = epochToIso(r.last_active);
    return [
      {
        sessionId: r.id,
        ...(s('session_key') !== '' ? { storedSessionId: s('session_key') } : {}),
        title: s('title'),
        preview: s('preview'),
        model: s('model'),
        status: s('status'),
        messageCount: typeof r.message_count === 'number' ? r.message_count : 0,
        ...(startedAt !== undefined ? { startedAt } : {}),
        ...(lastActiveAt !== undefined ? { lastActiveAt } : {}),
      },
    ];
  });
}
