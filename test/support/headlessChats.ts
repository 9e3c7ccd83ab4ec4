import { ChatSession } from '../../src/app/chatSession';
import { scopeFor } from '../../src/app/settingsScope';
import { AgentHost, type AgentDefinition, type AgentHostOptions } from '../../src/host/agentHost';
import type { AssistantEntry } from '../../src/session/sessionState';
import { formatMessage } from '../../src/util/l10n';

/**
 * Chats on real agent processes without VS Code (ChatSession on an AgentHost, consent given,
 * permissions cancelled), as the hand-off tests open them; `dispose` ends every one.
 */
export class HeadlessChats {
  private readonly hosts: AgentHost[] = [];
  private readonly chats: ChatSession[] = [];

  constructor(
    private readonly clientName: string,
    /** More host options per agent (environment, a transport connector). */
    private readonly extra: (def: AgentDefinition) => Partial<AgentHostOptions> = () => ({}),
  ) {}

  get count(): number {
    return this.chats.length;
  }

  /** A new chat of `def` working in `cwd` (the `newChat` hand-off takes). */
  readonly open = (def: AgentDefinition, cwd: string): ChatSession => {
    const host = new AgentHost(def, {
      cwd,
      clientInfo: { name: this.clientName, version: '0.0.0' },
      ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
      ...this.extra(def),
    });
    this.hosts.push(host);
    const chat = new ChatSession({ host, cwd, consent: { allow: () => Promise.resolve(true) }, t: formatMessage, settingsScope: () => scopeFor('ssh-remote') });
    this.chats.push(chat);
    return chat;
  };

  async dispose(): Promise<void> {
    for (const c of this.chats.splice(0)) {
      c.dispose();
    }
    await Promise.all(this.hosts.splice(0).map((h) => h.dispose()));
  }
}

/** The text of a chat's newest agent message. */
export function lastReplyText(chat: ChatSession): string {
  return (
    chat.controller.state.entries
      .filter((e): e is AssistantEntry => e.kind === 'assistant')
      .at(-1)
      ?.parts.map((p) => (p.kind === 'text' ? p.text : ''))
      .join('') ?? ''
  );
}
