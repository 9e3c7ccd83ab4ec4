/**
 * The extension's chat layer without VS Code: one {@link AgentHost} (a real agent process) and
 * {@link ChatSession}s on it, wired the way `ChatManager` wires them — permission requests routed
 * to the chat whose session they name (else answered `cancelled`), "Restart Agent" = host.restart()
 * then every chat's ensureStarted() (which restores with `session/load`), closeChat = cancel if
 * running, then dispose; dispose = chats first, then the host (the order of `ChatManager.dispose`,
 * which is what `deactivate()` runs).
 *
 * `env` is handed to the host by reference: a change applies from the next (re)start, which is how
 * a suite switches `SCRIPTED_AGENT_CRASH_ON_LOAD` on for one restart.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import type { RequestTimeouts } from '../../../src/acp/acpConnection';
import type { AgentExitedError } from '../../../src/agentPort/agentErrors';
import type { TrafficLog } from '../../../src/wire/trafficLog';
import type { Entry, SessionState } from '../../../src/session/sessionState';
import { ChatSession } from '../../../src/app/chatSession';
import { formatMessage } from '../../../src/util/l10n';
import { scriptedAgentPath } from '../../support/paths';
import { agentTapPath, TAG_VAR } from './support';

export interface PermissionCall {
  readonly params: acp.RequestPermissionRequest;
  readonly at: number;
  /** The chat it was routed to (undefined: no chat showed the session; answered cancelled at once). */
  readonly chatId: string | undefined;
  settledAt?: number;
  response?: acp.RequestPermissionResponse;
}

export interface RigOptions {
  readonly cwd: string;
  /** Environment for the agent; kept by reference (changes apply at the next start). */
  readonly env?: Record<string, string>;
  /** Run the agent under agentTap.js, logging what the client wrote to this file. */
  readonly tapFile?: string;
  /** Tag put in the agent's environment ({@link TAG_VAR}) so its processes can be found in /proc. */
  readonly tag?: string;
  readonly timeouts?: Partial<RequestTimeouts>;
  /** The host's traffic log (default: a new one with the default bounds). */
  readonly log?: TrafficLog;
}

export class ChatRig {
  readonly env: Record<string, string>;
  readonly host: AgentHost;
  readonly chats = new Set<ChatSession>();
  readonly permissionCalls: PermissionCall[] = [];
  readonly exits: { at: number; error: AgentExitedError }[] = [];
  readonly restartErrors: unknown[] = [];
  readonly definition: AgentDefinition;

  constructor(readonly options: RigOptions) {
    this.env = options.env ?? {};
    if (options.tag !== undefined) {
      this.env[TAG_VAR] = options.tag;
    }
    this.definition = {
      id: 'hardening',
      name: 'Scripted',
      command: process.execPath,
      args: options.tapFile !== undefined ? [agentTapPath, options.tapFile, scriptedAgentPath] : [scriptedAgentPath],
      env: {},
    };
    this.host = new AgentHost(this.definition, {
      cwd: options.cwd,
      clientInfo: { name: 'hermes-acp-hardening', version: '0.0.0' },
      ports: { permission: { requestPermission: (params, signal) => this.routePermission(params, signal) } },
      capabilities: { session: { configOptions: { boolean: {} } } },
      env: this.env,
      ...(options.log !== undefined ? { log: options.log } : {}),
      ...(options.timeouts !== undefined ? { timeouts: options.timeouts } : {}),
    });
    this.host.onDidExit((error) => this.exits.push({ at: Date.now(), error }));
  }

  createChat(): ChatSession {
    const chat = new ChatSession({ host: this.host, cwd: this.options.cwd, consent: { allow: () => Promise.resolve(true) }, t: formatMessage });
    this.chats.add(chat);
    return chat;
  }

  chatForSession(sessionId: string): ChatSession | undefined {
    for (const chat of this.chats) {
      if (chat.sessionId === sessionId) {
        return chat;
      }
    }
    return undefined;
  }

  /** ChatManager.restartAgent: restart the process, then every chat on it restores its session. */
  async restartAgent(): Promise<void> {
    for (const c of this.chats) {
      c.noteRestart();
    }
    try {
      await this.host.restart();
    } catch (e) {
      this.restartErrors.push(e);
    }
    await Promise.all([...this.chats].map((c) => c.ensureStarted()));
  }

  /** ChatManager.closeChat (there are no client terminals here). */
  async closeChat(chat: ChatSession): Promise<void> {
    if (chat.controller.state.phase === 'running') {
      await chat.cancel();
    }
    chat.dispose();
    this.chats.delete(chat);
  }

  /** ChatManager.dispose (= deactivate): chats first, then the agent host. */
  async dispose(): Promise<void> {
    for (const chat of this.chats) {
      chat.dispose();
    }
    this.chats.clear();
    await this.host.dispose();
  }

  /** Permission calls that have not settled. */
  get unsettledPermissions(): PermissionCall[] {
    return this.permissionCalls.filter((c) => c.settledAt === undefined);
  }

  private routePermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const chat = this.chatForSession(params.sessionId);
    const call: PermissionCall = { params, at: Date.now(), chatId: chat?.id };
    this.permissionCalls.push(call);
    const answer = chat === undefined ? Promise.resolve<acp.RequestPermissionResponse>({ outcome: { outcome: 'cancelled' } }) : chat.controller.requestPermission(params, signal);
    void answer.then((response) => {
      call.response = response;
      call.settledAt = Date.now();
    });
    return answer;
  }
}

// ── transcript helpers ───────────────────────────────────────────────────────────────────────

export function userText(e: Entry): string {
  return e.kind === 'user' ? e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
}

export function userTexts(chat: ChatSession): string[] {
  return chat.controller.state.entries.filter((e) => e.kind === 'user').map(userText);
}

/** The conversation as content: user messages, assistant messages and tool calls, in order. */
export interface ContentItem {
  readonly id: string;
  readonly kind: 'user' | 'assistant' | 'tool';
  /** What it says: the text, or the tool call id and title. */
  readonly sig: string;
}

export function conversation(source: { readonly controller: { readonly state: SessionState } }): ContentItem[] {
  const out: ContentItem[] = [];
  for (const e of source.controller.state.entries) {
    if (e.kind === 'user') {
      out.push({ id: e.id, kind: 'user', sig: `user:${userText(e)}` });
    } else if (e.kind === 'assistant') {
      out.push({ id: e.id, kind: 'assistant', sig: `assistant:${e.parts.map((p) => (p.kind === 'block' ? `[${p.block.type}]` : `${p.kind}:${p.text}`)).join('|')}` });
    } else if (e.kind === 'tool') {
      out.push({ id: e.id, kind: 'tool', sig: `tool:${e.toolCallId}` });
    }
  }
  return out;
}

/** Notices in the chat, newest last. */
export function notices(chat: ChatSession): Extract<Entry, { kind: 'notice' }>[] {
  return chat.controller.state.entries.filter((e): e is Extract<Entry, { kind: 'notice' }> => e.kind === 'notice');
}
