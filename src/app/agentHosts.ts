import type * as acp from '@agentclientprotocol/sdk';
import type { AcpClientOptions } from '../acp/acpConnection';
import { AgentHost, type AgentDefinition } from '../host/agentHost';
import type { ClientPorts } from '../agentPort/clientPorts';
import { describeError } from '../agentPort/agentErrors';
import { notificationLabel } from '../util/displayText';
import { Emitter } from '../util/emitter';
import type { Localize } from '../util/l10n';
import type { ChatSession } from './chatSession';
import { RespawnPolicy } from './respawnPolicy';
import { connectTransportLazily } from '../host/lazyConnect';
import type { QuestionPort } from '../agentPort/questionPort';

export interface AgentHostsOptions {
  /** Where the agents run (the first workspace folder). */
  readonly cwd: () => string;
  readonly clientInfo: acp.Implementation;
  readonly ports: ClientPorts;
  readonly capabilities?: AcpClientOptions['capabilities'];
  readonly t: Localize;
  /** The chats on a host: a restart tells them first and restores their sessions afterwards. */
  readonly chatsOn: (host: AgentHost) => readonly ChatSession[];
  /** Whether the agent may start now (workspace trust); false leaves it stopped. */
  readonly allow: (def: AgentDefinition) => Promise<boolean>;
  /** Says something outside any chat (a restart that failed), as a notification. */
  readonly report: (message: string) => void;
  readonly now?: () => number;
  /** Where non-ACP transports send clarify / secret questions (the chats). */
  readonly questions?: QuestionPort;
  /** The token or key a non-ACP transport needs (SecretStorage in the extension). */
  readonly transportSecret?: (def: AgentDefinition) => Promise<string | undefined>;
}

/**
 * The agents of a window: one {@link AgentHost} per configured agent (one process shared by all its
 * sessions — ACP multiplexes them), replaced when its definition changes; restarts, and crash
 * recovery after an exit nobody asked for ({@link RespawnPolicy}), each chat restoring its session
 * into the same chat.
 */
export class AgentHosts {
  private readonly hosts = new Map<string, AgentHost>();
  private readonly respawns = new RespawnPolicy<AgentHost>();
  private readonly respawnTimers = new Set<NodeJS.Timeout>();
  /** Hosts of an old definition that open chats still use (see {@link retire}). */
  private readonly retired = new Set<AgentHost>();
  private disposed = false;
  private readonly onDidCreateEmitter = new Emitter<AgentHost>();
  /** A host was created (its traffic log can be shown, its state and exits watched). */
  readonly onDidCreate = this.onDidCreateEmitter.event;

  constructor(private readonly options: AgentHostsOptions) {}

  get all(): readonly AgentHost[] {
    return [...this.hosts.values()];
  }

  /** The agent host for a definition, created on first use. */
  hostFor(def: AgentDefinition): AgentHost {
    let host = this.hosts.get(def.id);
    if (host !== undefined && sameDefinition(host.definition, def)) {
      return host;
    }
    if (host !== undefined) {
      // The definition changed in the settings: the next start uses the new one.
      this.retire(host);
    }
    host = new AgentHost(def, {
      cwd: this.options.cwd(),
      clientInfo: this.options.clientInfo,
      ports: this.options.ports,
      ...(this.options.capabilities !== undefined ? { capabilities: this.options.capabilities } : {}),
      ...(this.options.questions !== undefined ? { questions: this.options.questions } : {}),
      ...(this.options.transportSecret !== undefined ? { transportSecret: this.options.transportSecret } : {}),
      connectTransport: connectTransportLazily,
    });
    const h = host;
    host.onDidExit((exit) => {
      if (!exit.expected) {
        this.scheduleRespawn(h);
      }
    });
    this.hosts.set(def.id, host);
    this.onDidCreateEmitter.fire(host);
    return host;
  }

  /** Restarts an agent; every chat on it restores its session. */
  async restart(host: AgentHost): Promise<void> {
    if (host.state.kind !== 'ready' && !(await this.options.allow(host.definition))) {
      return;
    }
    // Nobody can answer these any more: tell the agent before it goes (stop waits for the writes).
    for (const c of this.options.chatsOn(host)) {
      c.controller.cancelPendingPermissions('agent restarted');
      c.noteRestart();
    }
    try {
      await host.restart();
    } catch (e) {
      this.options.report(this.options.t('{0} could not restart: {1}', host.definition.name, notificationLabel(describeError(e), 500)));
    }
    await Promise.all(this.options.chatsOn(host).map((c) => c.ensureStarted()));
  }

  /**
   * "Reconnect with the new settings": moves a chat from a retired host to the current one of its
   * agent and restores its session there (`session/load` into the same chat, as after a restart);
   * the old host goes once no chat uses it.
   */
  async reconnect(chat: ChatSession): Promise<boolean> {
    const old = chat.host;
    const current = this.hosts.get(old.definition.id);
    if (current === undefined || current === old) {
      return chat.ensureStarted();
    }
    if (chat.controller.state.phase === 'running' || chat.controller.state.phase === 'cancelling') {
      chat.controller.addNotice('info', this.options.t('Stop the running turn (or wait for it to end), then reconnect.'), undefined, ['reconnectAgent']);
      return false;
    }
    chat.useHost(current);
    const ok = await chat.ensureStarted();
    await this.release(old);
    return ok;
  }

  /** A chat on `host` closed: a retired host nobody uses any more is disposed. */
  async release(host: AgentHost): Promise<void> {
    if (this.retired.has(host) && this.options.chatsOn(host).length === 0) {
      this.retired.delete(host);
      await host.dispose();
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const t of this.respawnTimers) {
      clearTimeout(t);
    }
    await Promise.all([...this.hosts.values(), ...this.retired].map((h) => h.dispose()));
    this.hosts.clear();
    this.retired.clear();
    this.onDidCreateEmitter.dispose();
  }

  /**
   * Never a dead chat (issue 17): chats on the old definition's process keep it, told that the
   * settings changed and offered a reconnect; with no chat on it, it goes at once.
   */
  private retire(host: AgentHost): void {
    const chats = this.options.chatsOn(host);
    if (chats.length === 0) {
      void host.dispose();
      return;
    }
    this.retired.add(host);
    const title = this.options.t('{0}’s settings changed. This chat keeps using the running agent until you reconnect.', host.definition.name);
    for (const c of chats) {
      c.controller.addNotice('info', title, undefined, ['reconnectAgent']);
    }
  }

  /**
   * Crash recovery: when an agent exits unexpectedly while chats use it, restart it with backoff
   * and restore each chat's session with `session/load` into the same chat. Past the policy's
   * limit, the notices' "Restart Agent" action remains.
   */
  private scheduleRespawn(host: AgentHost): void {
    const chats = this.options.chatsOn(host).filter((c) => c.sessionId !== undefined);
    if (chats.length === 0 || this.disposed) {
      return;
    }
    const { t } = this.options;
    const delay = this.respawns.next(host, (this.options.now ?? Date.now)());
    if (delay === undefined) {
      for (const c of chats) {
        c.showStatus(t('{0} keeps exiting; use Restart Agent when it is fixed.', host.definition.name));
      }
      return;
    }
    for (const c of chats) {
      c.showStatus(t('{0} exited; restarting in {1} s…', host.definition.name, Math.round(delay / 1000)));
    }
    const timer = setTimeout(() => {
      this.respawnTimers.delete(timer);
      // Only a host still in the state its exit left: one stopped, restarted or started since
      // (Stop, Restart Agent, a chat's own start) is not ours to bring back.
      if (!this.disposed && host.state.kind === 'exited') {
        void this.restart(host);
      }
    }, delay);
    this.respawnTimers.add(timer);
  }
}

function sameDefinition(a: AgentDefinition, b: AgentDefinition): boolean {
  return (
    a.command === b.command &&
    a.name === b.name &&
    a.args.join('\0') === b.args.join('\0') &&
    JSON.stringify(a.env) === JSON.stringify(b.env) &&
    JSON.stringify(a.transport) === JSON.stringify(b.transport)
  );
}
