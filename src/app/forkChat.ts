import type { AgentDefinition } from '../host/agentHost';
import { toMarkdown } from '../session/transcript';
import type { Localize } from '../util/l10n';
import type { ChatSession } from './chatSession';
import { firstUserText } from './sessionHistory';

/**
 * Forks a chat into a new one (made by `newChat`). The whole session: the agent's own `session/fork`
 * when advertised. From an earlier user message (or without native fork): a new session that shows
 * the transcript up to that message and sends it as context with the first prompt — labelled
 * "forked with transcript", since the agent has not seen it otherwise. The original is untouched;
 * `draft` is the message the fork starts from, for the new chat's composer.
 */
export async function forkChat(
  source: ChatSession,
  fromEntryId: string | undefined,
  newChat: (def: AgentDefinition) => ChatSession,
  cwd: string,
  t: Localize,
): Promise<{ chat: ChatSession; draft?: string }> {
  const entries = source.controller.state.entries;
  const index = fromEntryId !== undefined ? entries.findIndex((e) => e.id === fromEntryId) : -1;
  const fromMessage = index >= 0 ? entries[index] : undefined;
  const client = source.host.client;
  // `fork` is unstable in ACP v1, so the stable types do not know it (Hermes, Claude, opencode advertise it).
  const caps = client?.agent?.agentCapabilities?.sessionCapabilities as { fork?: unknown } | null | undefined;
  const sessionId = source.sessionId;
  const chat = newChat(source.host.definition);
  const prior = index >= 0 ? entries.slice(0, index) : entries;
  const draft = fromMessage?.kind === 'user' ? fromMessage.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : undefined;
  if (fromMessage !== undefined && !prior.some((e) => e.kind === 'user' || e.kind === 'assistant' || e.kind === 'tool')) {
    // From the first message there is nothing to carry: a plain new session, the message in its composer.
    return draft !== undefined ? { chat, draft } : { chat };
  }
  // Until the agent names the fork (session_info_update), it is named after its source.
  chat.showTitle(t('Fork of {0}', source.controller.state.title ?? firstUserText(source) ?? source.agentName));
  if (fromMessage === undefined && client !== undefined && sessionId !== undefined && caps?.fork !== undefined && caps.fork !== null) {
    const res = await client.forkSession({ sessionId, cwd, ...source.controller.setup });
    chat.controller.useSetup(source.controller.setup);
    chat.controller.useConnection(client, source.controller.state.quirks);
    chat.controller.dispatch({ type: 'transcriptCopied', entries });
    chat.controller.attach(res.sessionId, res);
    chat.controller.addNotice('info', t('Forked from “{0}” — both sessions continue independently.', source.controller.state.title ?? source.agentName));
    return { chat };
  }
  chat.controller.dispatch({ type: 'transcriptCopied', entries: prior });
  const transcript = toMarkdown({ ...source.controller.state, entries: prior, plan: [], commands: [] });
  chat.setContextNote('fork', t('The conversation this fork starts from'), [
    {
      type: 'text',
      text: `This session was forked from an earlier conversation. Here is that conversation up to the fork point, for context:

${transcript}
---

The new message follows.

`,
    },
  ]);
  chat.controller.addNotice(
    'info',
    t('Forked with transcript: {0} starts a new session; your next message carries the conversation above as text.', chat.agentName),
  );
  return draft !== undefined ? { chat, draft } : { chat };
}
