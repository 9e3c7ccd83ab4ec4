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

/**
 * Slash-command autocomplete: typing `/` at the start lists the agent's commands and the chat's own,
 * filtered by prefix; `note` (the agent's commands are not there yet) is said under them.
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
  refresh(commands: readonly SlashItem[], note?: string): void {
    this.note = note;
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
