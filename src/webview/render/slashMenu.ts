import type { CommandView } from '../../protocol/sessionView';
import type { ClientCommandName } from '../../protocol/webviewProtocol';
import { el } from '../dom';
import { t } from '../strings';
import { ListboxMenu, type PickKey } from './listboxMenu';

/**
 * Whether Enter on `command` in the menu also sends the message (issue 22: `/help` + Enter used to
 * only complete). It does when what is typed after `/` is the command itself, or a prefix of a
 * command that takes no argument (ACP `input` absent: nothing more to type). A bare `/` only
 * completes: the first command is not the user's choice yet (it may be `/reset`).
 */
export function enterSendsCommand(command: CommandView, typed: string): boolean {
  const name = command.name.toLowerCase();
  const query = typed.toLowerCase();
  return query === name || (command.hint === undefined && query !== '' && name.startsWith(query));
}

/** A command the menu offers: the agent's, or one of the chat's own (`client`: run by the host, never sent). */
export type SlashItem = CommandView & { readonly client?: ClientCommandName };

/** The chat's own slash commands, in the menu's words (run by the host: chatMessages.ts). */
function clientCommands(): readonly SlashItem[] {
  const descriptions: Readonly<Record<ClientCommandName, string>> = {
    new: t('Start a new session'),
    sessions: t('Show the sessions of this workspace'),
    restart: t('Restart the agent'),
    traffic: t('Show the traffic log'),
    copy: t('Copy the transcript as Markdown'),
  };
  // Every name of the protocol's list, in its order (the Record makes a missing one a compile error).
  return (Object.keys(descriptions) as ClientCommandName[]).map((name) => ({ name, description: descriptions[name], client: name }));
}

/**
 * Slash-command autocomplete: typing `/` at the start lists the agent's commands, then the chat's
 * own that none of them shadows — also while the agent starts and has sent none (issue 38) —
 * filtered by prefix; while `waitingFor` an agent, a line says its commands come when it is ready.
 */
export class SlashMenu extends ListboxMenu<SlashItem> {
  private dismissedFor: string | undefined;
  private note: string | undefined;

  constructor(
    textarea: HTMLTextAreaElement,
    /** `send`: complete and send the message (Enter on what was typed); else complete only. */
    private readonly choose: (command: SlashItem, send: boolean) => void,
  ) {
    super(textarea, t('Commands'));
  }

  /** Re-evaluates the menu for the textarea's text and caret. */
  refresh(agentCommands: readonly CommandView[], waitingFor?: string): void {
    this.note = waitingFor === undefined ? undefined : t('{0}’s own commands appear here once it is ready.', waitingFor === '' ? t('The agent') : waitingFor);
    const taken = new Set(agentCommands.map((c) => c.name.toLowerCase()));
    const commands: readonly SlashItem[] = [...agentCommands, ...clientCommands().filter((c) => !taken.has(c.name))];
    const value = this.textarea.value;
    const caret = this.textarea.selectionStart;
    const m = /^\/(\S*)$/.exec(value.slice(0, caret));
    const firstToken = /^\/\S*/.exec(value)?.[0];
    if (m === null || commands.length === 0 || firstToken?.length !== caret) {
      this.close();
      return;
    }
    if (this.dismissedFor === value) {
      return;
    }
    this.dismissedFor = undefined;
    const query = (m[1] ?? '').toLowerCase();
    const matches = commands.filter((c) => c.name.toLowerCase().startsWith(query));
    if (matches.length === 0) {
      this.close();
      return;
    }
    const previous = this.matches[this.active]?.name;
    this.show(matches, (c) => c.name === previous);
  }

  protected override footer(): HTMLElement | undefined {
    return this.note !== undefined ? el('li', { class: 'slash-note', text: this.note, attrs: { role: 'presentation' } }) : undefined;
  }

  protected override pick(command: SlashItem, key: PickKey): void {
    const typed = /^\/(\S*)/.exec(this.textarea.value)?.[1] ?? '';
    this.close();
    // The chat's own commands run on Enter or a click; Tab completes them like any other.
    this.choose(command, command.client !== undefined ? key !== 'tab' : key === 'enter' && enterSendsCommand(command, typed));
  }

  protected override dismiss(): void {
    this.dismissedFor = this.textarea.value;
    this.close();
  }

  protected override renderItem(command: SlashItem): (HTMLElement | false)[] {
    return [
      el('span', { class: 'slash-name', text: `/${command.name}` }),
      command.hint !== undefined && command.hint !== '' ? el('span', { class: 'slash-hint', text: command.hint }) : false,
      command.client !== undefined && el('span', { class: 'slash-origin', text: t('chat'), attrs: { title: t('A command of this chat, not of the agent') } }),
      el('span', { class: 'slash-description', text: command.description }),
    ];
  }
}
