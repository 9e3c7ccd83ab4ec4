import type * as acp from '@agentclientprotocol/sdk';
import type { AgentDefinition } from '../host/agentHost';
import { briefBudget, handoffBrief, type HandoffBrief } from '../session/handoff';
import type { AssistantEntry } from '../session/sessionState';
import type { Localize } from '../util/l10n';
import type { ChatSession } from './chatSession';
import { firstUserText } from './sessionHistory';

/** What the agent handing off is asked when the user wants a summary instead of the turns. */
export const SUMMARY_REQUEST = [
  'Another coding agent is about to take over this work in the same folder.',
  'Write a summary for it: the goal, what has been done (files changed and why), what is left to do,',
  'decisions made and anything it must not undo. Reply with the summary only.',
].join(' ');

export interface HandoffRequest {
  readonly source: ChatSession;
  readonly target: AgentDefinition;
  /** Ask the source agent for a summary first (a turn in its chat), instead of sending the turns. */
  readonly summary: boolean;
  /** A new chat of `def` working in `cwd`. */
  readonly newChat: (def: AgentDefinition, cwd: string) => ChatSession;
  /** The target agent's context window (tokens) if a chat of it has reported one. */
  readonly knownContextSize?: number;
  /** Files the client saw change in the source session (the Changes view). */
  readonly changedFiles?: readonly string[];
  readonly t: Localize;
}

export interface Handoff {
  readonly chat: ChatSession;
  readonly brief: HandoffBrief;
  /** How the brief travels: an embedded resource when the agent takes them, else text. */
  readonly as: 'resource' | 'text';
  /** The brief's budget in characters, from the new agent's context window when known. */
  readonly budgetChars: number;
}

/**
 * "Continue with another agent…" (issue 40): a session of `target` in the source chat's cwd (its
 * worktree, or the workspace), seeded with the conversation so far as a context note on its first
 * prompt — an embedded Markdown resource when the agent advertises `embeddedContext`, else text —
 * within the new agent's context budget. Both chats say what happened; the new one links back.
 */
export async function handoffChat(req: HandoffRequest): Promise<Handoff> {
  const { source, t } = req;
  const summary = req.summary ? await askSummary(source, t) : undefined;
  const chat = req.newChat(req.target, source.cwd);
  chat.handedOffFrom = source;
  const started = await chat.ensureStarted();
  const size = (started ? await reportedWindow(chat) : undefined) ?? req.knownContextSize;
  const budgetChars = briefBudget(size);
  const brief = handoffBrief(
    { state: source.controller.state, agentName: source.agentName, cwd: source.cwd, ...(req.changedFiles !== undefined ? { changedFiles: req.changedFiles } : {}) },
    { budgetChars, ...(summary !== undefined ? { summary } : {}) },
  );
  const embedded = started && chat.host.client?.agent?.agentCapabilities?.promptCapabilities?.embeddedContext === true;
  const block: acp.ContentBlock = embedded
    ? { type: 'resource', resource: { uri: `hermes-acp://handoff/${encodeURIComponent(source.sessionId ?? source.id)}.md`, mimeType: 'text/markdown', text: brief.text } }
    : { type: 'text', text: brief.text };
  const sourceTitle = source.controller.state.title ?? firstUserText(source) ?? source.agentName;
  chat.setContextNote('handoff', t('The conversation handed over from {0}', source.agentName), [block]);
  chat.showTitle(t('{0} (from {1})', sourceTitle, source.agentName));
  chat.controller.addNotice('info', t('Continued from “{0}” with {1}.', sourceTitle, source.agentName), describeBrief(brief, summary !== undefined, req.target.name, embedded, t), ['openHandoffSource']);
  source.controller.addNotice('info', t('Handed off to {0} in a new chat.', req.target.name), t('This chat stays as it is; both can go on independently.'));
  return { chat, brief, as: embedded ? 'resource' : 'text', budgetChars };
}

/** How long a new session may take to report its context window (Hermes sends it just after `session/new`). */
export const WINDOW_WAIT_MS = 2000;

/** The window the new session reports in its first `usage_update`, if it does so soon after starting. */
function reportedWindow(chat: ChatSession): Promise<number | undefined> {
  const now = chat.controller.state.usage?.size;
  if (now !== undefined) {
    return Promise.resolve(now);
  }
  return new Promise((resolve) => {
    const done = (size: number | undefined): void => {
      clearTimeout(timer);
      sub.dispose();
      resolve(size);
    };
    const sub = chat.onDidChange(() => {
      const size = chat.controller.state.usage?.size;
      if (size !== undefined) {
        done(size);
      }
    });
    const timer = setTimeout(() => done(undefined), WINDOW_WAIT_MS);
  });
}

function describeBrief(brief: HandoffBrief, summarized: boolean, target: string, embedded: boolean, t: Localize): string {
  const how = embedded ? t('as an attached document') : t('as text');
  const files = brief.files.length > 0 ? t(' It names {0} changed file(s) and the current plan, if any.', brief.files.length) : '';
  if (summarized) {
    return t('Your next message carries a summary the previous agent wrote, {0}, instead of the {1} turn(s).', how, brief.turns) + files;
  }
  const trimmed =
    brief.keptTurns < brief.turns || brief.cut
      ? t(' The {0} oldest turn(s) were left out to fit {1}’s context; ask the previous agent for a summary to keep them.', brief.turns - brief.keptTurns + (brief.cut ? 1 : 0), target)
      : '';
  return t('Your next message carries the conversation so far ({0} turn(s)), {1}.', brief.turns, how) + trimmed + files;
}

/** Runs a summary turn in the source chat and returns its reply; the chat must be idle. */
async function askSummary(source: ChatSession, t: Localize): Promise<string> {
  if (source.controller.state.phase !== 'idle') {
    throw new Error(t('{0} is still working: wait for its turn to end (or stop it), then hand off again.', source.agentName));
  }
  const before = source.controller.state.entries.length;
  const result = await source.submit([{ type: 'text', text: SUMMARY_REQUEST }]);
  const reply = source.controller.state.entries
    .slice(before)
    .filter((e): e is AssistantEntry => e.kind === 'assistant')
    .map((e) => e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''))
    .join('\n')
    .trim();
  if (result?.kind !== 'ended' || reply === '') {
    throw new Error(t('{0} wrote no summary. Hand off without one, or try again.', source.agentName));
  }
  return reply;
}
