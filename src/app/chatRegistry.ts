import type { QuestionPort } from '../agentPort/questionPort';
import type * as acp from '@agentclientprotocol/sdk';
import type { AgentHost } from '../host/agentHost';
import type { ChatSession } from './chatSession';
import { closeSessionIfSupported } from '../session/sessionClose';

/**
 * The chats of a window. Agent requests name their session, so they are routed here to the chat
 * that shows it; a request for a session no chat shows is answered at once (nobody could).
 */
export class ChatRegistry {
  private readonly chats = new Set<ChatSession>();

  get all(): readonly ChatSession[] {
    return [...this.chats];
  }

  [Symbol.iterator](): Iterator<ChatSession> {
    return this.chats.values();
  }

  add(chat: ChatSession): void {
    this.chats.add(chat);
  }

  /** The chats whose agent runs in `host`. */
  on(host: AgentHost): ChatSession[] {
    return [...this.chats].filter((c) => c.host === host);
  }

  forSession(sessionId: string): ChatSession | undefined {
    for (const chat of this.chats) {
      if (chat.sessionId === sessionId) {
        return chat;
      }
    }
    return undefined;
  }

  /** `session/request_permission`, to the chat of its session. Always settles. */
  routePermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const chat = this.forSession(params.sessionId);
    if (chat === undefined) {
      // No chat shows this session: nobody can answer, so say so rather than let the agent wait.
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    return chat.controller.requestPermission(params, signal);
  }

  /**
   * Clarify / secret questions of a non-ACP transport, to the chat of their session; with no such
   * chat nobody can answer, so the question is cancelled at once (clarify `{}`, secret declined).
   */
  readonly questions: Required<Pick<QuestionPort, 'clarify' | 'secret'>> = {
    clarify: (request, signal) => this.forSession(request.sessionId)?.controller.questions.port.clarify(request, signal) ?? Promise.resolve({ kind: 'cancelled' }),
    secret: (request, signal) => this.forSession(request.sessionId)?.controller.questions.port.secret(request, signal) ?? Promise.resolve({ kind: 'declined' }),
  };

  /**
   * Closes a chat: its running turn is cancelled, `release` frees what the session holds (its
   * terminals), the agent is told with `session/close` when it advertises it (it keeps the stored
   * session for a later load), then the chat is disposed (pending requests answered).
   */
  async close(chat: ChatSession, release: (sessionId: string) => Promise<void>): Promise<void> {
    if (chat.controller.state.phase === 'running') {
      await chat.cancel();
    }
    if (chat.sessionId !== undefined) {
      await release(chat.sessionId);
      await closeSessionIfSupported(chat.host.client, chat.sessionId);
    }
    chat.dispose();
    this.chats.delete(chat);
  }

  disposeAll(): void {
    for (const chat of this.chats) {
      chat.dispose();
    }
    this.chats.clear();
  }
}
