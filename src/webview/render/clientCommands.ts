import type { CommandView } from '../../protocol/sessionView';
import { clientCommandNames, type ClientCommandName } from '../../protocol/webviewProtocol';
import { t } from '../strings';
import type { SlashItem } from './slashMenu';

/** The chat's own slash commands, in the menu's words (run by the host: chatMessages.ts). */
function clientCommands(): readonly SlashItem[] {
  const descriptions: Readonly<Record<ClientCommandName, string>> = {
    new: t('Start a new session'),
    sessions: t('Show the sessions of this workspace'),
    restart: t('Restart the agent'),
    traffic: t('Show the traffic log'),
    copy: t('Copy the transcript as Markdown'),
  };
  return clientCommandNames.map((name) => ({ name, description: descriptions[name], client: name }));
}

/** The `/` menu's items: the agent's commands, then the chat's own that no agent command shadows. */
export function withClientCommands(agent: readonly CommandView[]): readonly SlashItem[] {
  const taken = new Set(agent.map((c) => c.name.toLowerCase()));
  return [...agent, ...clientCommands().filter((c) => !taken.has(c.name))];
}
