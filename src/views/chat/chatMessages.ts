import { retryPlan } from '../../app/turnRetry';
import * as vscode from 'vscode';
import type * as acp from '@agentclientprotocol/sdk';
import type { ChatSession } from '../../app/chatSession';
import { describeError } from '../../agentPort/agentErrors';
import type { ClientCommandName, HostMessage, WebviewMessage } from '../../protocol/webviewProtocol';
import { toMarkdown } from '../../session/transcript';
import type { DeepCutQuestion } from '../../agentPort/transport';
import { openAgentSettings } from '../setup/agentSetup';
import type { AgentDefinition, AgentHost } from '../../host/agentHost';
import { CommandId } from '../commandIds';
import type { Configuration } from '../configuration';
import { promptBlocks } from './promptAttachments';
import { openLocation, searchWorkspaceFiles } from './workspaceFiles';

/**
 * The agent counted more user turns to cut than the user agreed to in the chat (turns added from
 * another client meanwhile): ask again, modally, with its numbers.
 */
async function confirmDeepCut(q: DeepCutQuestion, confirmedTurns: number): Promise<boolean> {
  if (q.userTurnsCut <= confirmedTurns) {
    return true;
  }
  const cut = vscode.l10n.t('Cut {0} turns and resend', q.userTurnsCut);
  const detail =
    q.archivedMessages !== undefined
      ? vscode.l10n.t('The agent would archive {0} user turns ({1} messages), more than the chat showed.', q.userTurnsCut, q.archivedMessages)
      : vscode.l10n.t('The agent would archive {0} user turns, more than the chat showed.', q.userTurnsCut);
  return (await vscode.window.showWarningMessage(vscode.l10n.t('Rewrite the conversation?'), { modal: true, detail }, cut)) === cut;
}

/**
 * What the messages ask of the chats' owner (`ChatManager` is it): declared here, so the manager
 * and its messages do not import each other.
 */
export interface ChatActions {
  openDiff(chat: ChatSession, entryId: string, contentIndex: number, preserveFocus: boolean): Promise<void>;
  forkAndOpen(source: ChatSession, fromEntryId?: string, send?: readonly acp.ContentBlock[]): Promise<ChatSession | undefined>;
  restartAgent(host: AgentHost): Promise<void>;
  reconnectAgent(chat: ChatSession): Promise<void>;
  newSidebarSession(def?: AgentDefinition): Promise<ChatSession>;
}

/** What a chat's webview asks for (prompt, cancel, permission answers, notice buttons, …), answered in VS Code. */
export class ChatMessages {
  constructor(
    private readonly manager: ChatActions,
    private readonly config: Configuration,
    /** The workspace check of the agent's own reads (an attachment is a read too): the real path, or an error. */
    private readonly checkRead: (path: string) => Promise<string>,
  ) {}

  /** What a chat webview asked for. */
  handle(
    message: Exclude<WebviewMessage, { type: 'webview/ready' | 'session/resync' }>,
    chat: ChatSession,
    reply: (message: HostMessage) => void = () => undefined,
  ): void {
    switch (message.type) {
      case 'prompt/submit': {
        const caps = chat.host.client?.agent?.agentCapabilities?.promptCapabilities;
        void promptBlocks(message.text, message.attachments, { embedded: caps?.embeddedContext === true, images: caps?.image === true, check: this.checkRead }).then(({ blocks, refused }) => {
          for (const r of refused) {
            chat.controller.addNotice('warning', vscode.l10n.t('{0} was not attached: {1}', r.label, r.reason));
          }
          return chat.submit(blocks);
        }).then((result) => {
          // Not sent (the agent could not start, or another turn took the session first): the
          // message goes back to the composer rather than vanishing.
          if (result === undefined) {
            reply({ type: 'composer/insert', text: message.text });
            for (const attachment of message.attachments) {
              reply({ type: 'composer/attach', attachment });
            }
          }
        });
        return;
      }
      case 'turn/cancel':
        void chat.cancel();
        return;
      case 'permission/choose':
        chat.choosePermission(message.requestId, message.optionId, 'user', message.rememberPrefix);
        return;
      case 'location/open':
        void openLocation(message.path, message.line);
        return;
      case 'output/open':
        void this.openOutput(chat, message.entryId, message.contentIndex);
        return;
      case 'diff/open':
        void this.manager.openDiff(chat, message.entryId, message.contentIndex, false);
        return;
      case 'notice/action':
        void this.runNoticeAction(message.action, chat);
        return;
      case 'mode/set':
        void this.guard(chat, () => chat.controller.setMode(message.modeId));
        return;
      case 'model/set':
        void this.guard(chat, () => chat.controller.setModel(message.modelId));
        return;
      case 'config/set':
        void this.guard(chat, () => chat.controller.setConfigOption(message.configId, message.value));
        return;
      case 'signIn/choose':
        void chat.signIn.choose(message.methodId);
        return;
      case 'signIn/retry':
        void chat.signIn.tryAgain();
        return;
      case 'transcript/copy':
        void vscode.env.clipboard.writeText(toMarkdown(chat.controller.state, { timings: true }));
        return;
      case 'clientCommand/run':
        void this.runClientCommand(message.name, chat);
        return;
      case 'fork/fromHere':
        void this.manager.forkAndOpen(chat, message.entryId);
        return;
      case 'composer/removeNote':
        chat.removeContextNote(message.key);
        return;
      case 'turn/restore':
        void vscode.commands.executeCommand('hermes.restoreTurn', chat.id, message.turnId);
        return;
      case 'turn/rewind':
        void vscode.commands.executeCommand('hermes.rewindTurn', chat.id, message.turnId);
        return;
      case 'question/answer':
        chat.controller.questions.answerClarify(message.requestId, message.answers);
        return;
      case 'question/lock':
        void chat.controller.questions.lockClarify(message.requestId, message.questionId, message.answer).then((r) => {
          if (r === 'expired') {
            chat.controller.addNotice('info', vscode.l10n.t('{0} stopped waiting for that answer; it was not locked.', chat.agentName));
          }
        });
        return;
      case 'question/secret':
        // Straight to the agent: never logged, never in the state, the transcript or the view.
        chat.controller.questions.answerSecret(message.requestId, message.value);
        return;
      case 'question/cancel':
        chat.controller.questions.cancel(message.requestId);
        return;
      case 'message/rewrite':
        void this.guard(chat, async () => {
          await chat.rewrite(message.entryId, [{ type: 'text', text: message.text }], (q) => confirmDeepCut(q, message.confirmedTurns));
        });
        return;
      case 'suggestion/choose':
        void chat.useModel(message.value);
        return;
      case 'turn/retry': {
        // Nothing while another turn runs; a prompt the agent holds is sent once, in a fork from before it.
        const plan = chat.controller.state.phase === 'idle' ? retryPlan(chat.controller.state, message.turnId) : undefined;
        if (plan?.kind === 'resend') {
          void chat.submit(plan.blocks);
        } else if (plan?.kind === 'fork') {
          void this.manager.forkAndOpen(chat, plan.fromEntryId, plan.blocks);
        }
        return;
      }
      case 'request/call':
        if (message.call.method !== 'mentions/search') {
          return; // the channel answers the transcript's own requests
        }
        void searchWorkspaceFiles(message.call.params.query).then(
          (value) => reply({ type: 'request/result', id: message.id, ok: true, value }),
          (e: unknown) => reply({ type: 'request/result', id: message.id, ok: false, error: describeError(e) }),
        );
        return;
    }
  }

  /** The chat's own slash commands (`/new`, `/sessions`, `/restart`, `/traffic`, `/copy`): the client runs them. */
  private async runClientCommand(name: ClientCommandName, chat: ChatSession): Promise<void> {
    switch (name) {
      case 'new':
        await vscode.commands.executeCommand(CommandId.newSession);
        return;
      case 'sessions':
        await vscode.commands.executeCommand(CommandId.showHistory);
        return;
      case 'restart':
        await this.manager.restartAgent(chat.host);
        return;
      case 'traffic':
        await vscode.commands.executeCommand(CommandId.showTraffic);
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(toMarkdown(chat.controller.state, { timings: true }));
        return;
    }
  }

  async runNoticeAction(action: string, chat: ChatSession): Promise<void> {
    switch (action) {
      case 'showTraffic':
        await vscode.commands.executeCommand(CommandId.showTraffic);
        return;
      case 'restartAgent':
        await this.manager.restartAgent(chat.host);
        return;
      case 'setupProvider':
        await vscode.commands.executeCommand(CommandId.setupProvider);
        return;
      case 'newSession':
        await vscode.commands.executeCommand(CommandId.newSession);
        return;
      case 'checkInstallation':
        await vscode.commands.executeCommand(CommandId.checkInstallation);
        return;
      case 'openSettings':
      case 'openRemoteSettings':
        await openAgentSettings(action === 'openRemoteSettings' ? 'remote' : 'user');
        return;
      case 'setupAgent':
        await vscode.commands.executeCommand(CommandId.setupAgent, chat.host.definition.id);
        return;
      case 'reconnectAgent':
        await this.manager.reconnectAgent(chat);
        return;
      case 'openHandoffSource':
        await vscode.commands.executeCommand(CommandId.revealChat, chat.handedOffFrom);
        return;
      case 'useDemoAgent': {
        const demo = this.config.agents().agents.find((a) => a.demo === true);
        if (demo !== undefined) {
          await this.manager.newSidebarSession(demo);
        }
        return;
      }
    }
  }

  private async guard(chat: ChatSession, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      chat.controller.addNotice('warning', vscode.l10n.t('{0} refused the change.', chat.agentName), describeError(e));
    }
  }

  private async openOutput(chat: ChatSession, entryId: string, contentIndex: number): Promise<void> {
    const entry = chat.controller.state.entries.find((e) => e.id === entryId);
    if (entry?.kind !== 'tool') {
      return;
    }
    const c = entry.content[contentIndex];
    let text: string | undefined;
    let language = 'markdown';
    if (c?.type === 'content' && c.content.type === 'text') {
      text = c.content.text;
    } else if (c?.type === 'diff') {
      text = c.newText;
      language = 'plaintext';
    } else {
      const term = entry.metaTerminals?.[0];
      text = term?.output;
      language = 'plaintext';
    }
    if (text === undefined) {
      return;
    }
    const doc = await vscode.workspace.openTextDocument({ content: text, language });
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }
}
