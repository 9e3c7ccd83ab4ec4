import type { CommandView, SessionHeaderView } from '../../protocol/sessionView';
import type { AttachmentView } from '../../protocol/webviewProtocol';
import { button, clear, el, icon, setHidden, uniqueId } from '../dom';
import { LazyMenu } from '../lazy/lazyMenu';
import { t } from '../strings';
import { visibleLabel } from '../text';
import type { RenderEnv } from './env';
import type { HeldPromptLine } from './heldPrompt';
import type { MentionMenu } from './mentionMenu';
import type { SlashMenu } from './slashMenu';
import type { ClientCommandName } from '../../protocol/webviewProtocol';
import { LazyHeaderCard } from '../lazy/lazyCard';
import { loadCards } from '../lazy/cards';

/**
 * The composer: a multi-line textarea ("Message"), Send and Stop, the reason Send is unavailable,
 * the host's status line, and slash-command and `@` autocomplete. Enter sends, Shift+Enter adds a
 * line, Enter during IME composition is left to the IME. In an open menu Tab completes and Enter
 * completes — and sends when the choice is what was typed (`/help`): one Enter, not two. The draft
 * lives in the UI state, so it survives reloads and snapshots.
 */
export class Composer {
  readonly element = el('div', { class: 'composer' });
  readonly textarea: HTMLTextAreaElement;
  readonly #send: HTMLButtonElement;
  readonly #stop: HTMLButtonElement;
  readonly #hint = el('div', { class: 'composer-hint', attrs: { id: uniqueId('composer-hint') } });
  readonly #status = el('div', { class: 'composer-status', attrs: { role: 'status' } });
  /** The prompt the agent holds: said before the next message is sent, with "Start fresh" (issue 38). */
  readonly #held: LazyHeaderCard<HeldPromptLine>;
  readonly #menu: LazyMenu<SlashMenu>;
  readonly #mentions: LazyMenu<MentionMenu>;
  readonly #chips = el('div', { class: 'attachments' });
  readonly #notes = el('div', { class: 'attachments context-notes' });
  #notesKey = '';
  #attachments: AttachmentView[] = [];
  #header: SessionHeaderView | undefined;
  #commands: readonly CommandView[] = [];
  /** A message sent before the first header: posted when it comes (or given back if it cannot be sent). */
  #queued: { readonly text: string; readonly attachments: AttachmentView[] } | undefined;

  readonly #env: RenderEnv;

  constructor(env: RenderEnv, controls: HTMLElement) {
    this.#env = env;
    this.#held = new LazyHeaderCard(t('note about the held message'), (h) => h.held !== undefined, (cards) => new cards.HeldPromptLine(env));
    const inputId = uniqueId('composer-input');
    const textarea = el('textarea', {
      class: 'composer-input',
      attrs: { id: inputId, rows: '2', 'aria-describedby': this.#hint.id, spellcheck: 'true' },
    });
    this.textarea = textarea;
    textarea.value = env.ui.draft;
    this.#menu = new LazyMenu(
      (cards) =>
        new cards.SlashMenu(textarea, (command, send) => {
          if (command.client !== undefined && send) {
            this.#runClientCommand(command.client);
            return;
          }
          this.#insertCommand(command, send);
          if (send) {
            this.#submit();
          }
        }),
      (menu) => menu.refresh(this.#commands, this.#waitingForCommands()),
    );
    this.#mentions = new LazyMenu(
      (cards) =>
        new cards.MentionMenu(
          textarea,
          (query) => this.#env.actions.searchMentions(query),
          (mention, range, send) => {
            // The `@query` text becomes a chip: the file is sent as context, not as typed text.
            const v = textarea.value;
            this.#setValue(v.slice(0, range.start) + v.slice(range.end));
            textarea.setSelectionRange(range.start, range.start);
            this.attach({ path: mention.path, label: mention.label });
            if (send) {
              this.#submit();
            }
          },
        ),
      (menu) => menu.refresh(),
    );
    this.#send = button(t('Send'), { icon: 'send', class: 'primary send', onClick: () => this.#submit() });
    this.#send.setAttribute('aria-describedby', this.#hint.id);
    this.#send.setAttribute('aria-keyshortcuts', 'Enter');
    this.#stop = button(t('Stop'), { icon: 'debug-stop', class: 'secondary stop', onClick: () => this.#env.actions.cancelTurn() });
    this.#stop.setAttribute('aria-keyshortcuts', 'Escape');
    setHidden(this.#stop, true);

    this.element.append(
      this.#status,
      this.#held.element,
      this.#notes,
      this.#chips,
      el('div', { class: 'composer-box' }, [el('label', { class: 'visually-hidden', attrs: { for: inputId }, text: t('Message') }), this.#menu.element, this.#mentions.element, textarea]),
      el('div', { class: 'composer-toolbar' }, [controls, el('span', { class: 'spacer' }), this.#stop, this.#send]),
      this.#hint,
    );
    setHidden(this.#status, true);
    setHidden(this.#chips, true);
    setHidden(this.#notes, true);
    this.#notes.setAttribute('role', 'group');
    this.#notes.setAttribute('aria-label', t('Notes sent with the next message'));
    this.#chips.setAttribute('aria-label', t('Context for the next message'));
    this.#chips.setAttribute('role', 'group');

    textarea.addEventListener('input', () => {
      this.#env.ui.draft = textarea.value;
      this.#menu.refresh();
      this.#mentions.refresh();
      this.#updateButtons();
    });
    textarea.addEventListener('click', () => this.#menu.refresh());
    textarea.addEventListener('keyup', (e) => {
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') {
        this.#menu.refresh();
      }
    });
    textarea.addEventListener('blur', () => {
      this.#menu.close();
      this.#mentions.close();
    });
    textarea.addEventListener('keydown', (e) => this.#onKeyDown(e));
    textarea.addEventListener('paste', (e) => this.#onPaste(e));
    this.updateHeader(undefined);
  }

  /** True when the textarea has focus and holds text (a permission prompt then does not steal focus). */
  get isBusy(): boolean {
    return this.textarea.ownerDocument.activeElement === this.textarea && this.textarea.value.trim() !== '';
  }

  /**
   * While the agent starts, a message can be sent: the host holds it until the session is ready
   * (and hands it back to the composer if it never is), so Enter is never silently ignored. Before
   * the page has heard from the host at all (a chat just shown again loads its page anew), the
   * message waits here for the session's header ({@link updateHeader}).
   */
  get canSend(): boolean {
    const h = this.#header;
    return h === undefined || (!h.readOnly && (h.phase === 'idle' || h.phase === 'new' || h.phase === 'starting' || (h.phase === 'exited' && h.restarting === true)));
  }

  updateHeader(header: SessionHeaderView | undefined): void {
    this.#header = header;
    this.#commands = header?.commands ?? [];
    const running = header?.phase === 'running' || header?.phase === 'cancelling';
    setHidden(this.#stop, !running);
    this.#stop.disabled = header?.phase === 'cancelling';
    this.textarea.disabled = header?.readOnly === true;
    const agent = header?.agentName ?? t('the agent');
    this.textarea.placeholder = header?.readOnly === true ? '' : t('Message {0} — Enter to send, / for commands, @ for files', agent);
    const status = header?.status;
    this.#status.textContent = status ?? '';
    setHidden(this.#status, status === undefined || status === '');
    this.#renderNotes(header?.contextNotes ?? []);
    if (header !== undefined) {
      this.#held.update(header);
    }
    this.#hint.textContent = this.#reason(header) ?? '';
    setHidden(this.#hint, this.#hint.textContent === '');
    this.#updateButtons();
    if (this.#menu.isOpen) {
      this.#menu.refresh();
    }
    const queued = this.#queued;
    if (header !== undefined && queued !== undefined) {
      this.#queued = undefined;
      if (this.canSend) {
        this.#env.actions.submitPrompt(queued.text, queued.attachments);
      } else {
        // It cannot go now (a turn is running, the chat is read-only): back into the composer, not lost.
        const rest = this.textarea.value;
        this.#setValue(rest === '' ? queued.text : `${queued.text}\n${rest}`);
        this.#attachments = [...queued.attachments, ...this.#attachments];
        this.#renderChips();
      }
    }
  }

  /** `composer/insert`: appends to the draft (on a new line when the text has several lines). */
  insert(text: string): void {
    const current = this.textarea.value;
    const separator = current === '' || /\s$/.test(current) || /^\s/.test(text) ? '' : text.includes('\n') ? '\n' : ' ';
    this.#setValue(current + separator + text);
    this.focus();
  }

  /** `composer/attach`: a file or selection chip, sent with the next prompt. */
  attach(attachment: AttachmentView): void {
    const same = (a: AttachmentView): boolean =>
      a.image === undefined && attachment.image === undefined && a.path === attachment.path && a.startLine === attachment.startLine && a.endLine === attachment.endLine;
    if (!this.#attachments.some(same)) {
      this.#attachments.push(attachment);
      this.#renderChips();
    }
    this.focus();
  }

  focus(): void {
    this.textarea.focus();
    const end = this.textarea.value.length;
    this.textarea.setSelectionRange(end, end);
  }

  #reason(header: SessionHeaderView | undefined): string | undefined {
    if (header === undefined) {
      return t('Connecting…');
    }
    if (header.readOnly) {
      return t('This conversation is read-only: {0} could not restore it. Start a new session to continue.', header.agentName);
    }
    if (header.restarting === true && (header.phase === 'exited' || header.phase === 'starting' || header.phase === 'new')) {
      return t('Restarting {0}… A message sent now goes once it is ready.', header.agentName);
    }
    switch (header.phase) {
      case 'starting':
        return t('Starting {0}… A message sent now goes once it is ready.', header.agentName);
      case 'running':
        return t('{0} is working… Press Escape or Stop to cancel.', header.agentName);
      case 'cancelling':
        return t('Cancelling…');
      case 'exited':
        return t('{0} has exited.', header.agentName);
      case 'idle':
      case 'new':
        return undefined;
    }
  }

  /** Pasted images become chips — only for agents that accept images (ACP promptCapabilities.image). */
  #onPaste(e: ClipboardEvent): void {
    const items = Array.from(e.clipboardData?.items ?? []).filter((i) => i.kind === 'file' && /^image\/(png|jpeg|gif|webp)$/.test(i.type));
    if (items.length === 0) {
      return;
    }
    e.preventDefault();
    if (this.#header?.acceptsImages !== true) {
      this.#hint.textContent = t('{0} does not accept images.', this.#header?.agentName ?? t('the agent'));
      setHidden(this.#hint, false);
      return;
    }
    const view = this.textarea.ownerDocument.defaultView;
    const files = items.map((i) => i.getAsFile()).filter((f): f is File => f !== null);
    if (view !== null) {
      void Promise.resolve(loadCards()).then(
        (cards) => cards.readPastedImages(files, view, (a) => this.attach(a)),
        () => undefined,
      );
    }
  }

  #updateButtons(): void {
    this.#send.disabled = !this.canSend || this.textarea.value.trim() === '';
  }

  #onKeyDown(e: KeyboardEvent): void {
    if (this.#menu.handleKey(e) || this.#mentions.handleKey(e)) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    // IME: Enter confirms the composition, it does not send (keyCode 229 for older engines).
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.keyCode === 229 || e.altKey || e.ctrlKey || e.metaKey) {
      return;
    }
    e.preventDefault();
    this.#submit();
  }

  /** The agent whose commands have not arrived yet (it is starting), for a line under the menu. */
  #waitingForCommands(): string | undefined {
    const h = this.#header;
    const waiting = h === undefined || h.phase === 'new' || h.phase === 'starting' || h.restarting === true;
    return waiting && this.#commands.length === 0 ? (h?.agentName ?? '') : undefined;
  }

  #runClientCommand(name: ClientCommandName): void {
    this.#menu.close();
    this.#setValue('');
    this.#env.actions.runClientCommand(name);
  }

  #submit(): void {
    const text = this.textarea.value;
    if (text.trim() === '' || !this.canSend) {
      return;
    }
    if (this.#header === undefined) {
      this.#queued = { text: this.#queued === undefined ? text : `${this.#queued.text}\n${text}`, attachments: [...(this.#queued?.attachments ?? []), ...this.#attachments] };
      this.#hint.textContent = t('Connecting… The message goes as soon as the chat is ready.');
      setHidden(this.#hint, false);
    } else {
      this.#env.actions.submitPrompt(text, this.#attachments);
    }
    this.#menu.close();
    this.#setValue('');
    this.#attachments = [];
    this.#renderChips();
  }

  /** Host-owned context (a fork's transcript, "you reverted these hunks"): visible, removable. */
  #renderNotes(notes: readonly { readonly key: string; readonly label: string; readonly text: string }[]): void {
    const key = JSON.stringify(notes.map((n) => [n.key, n.label, n.text.length]));
    if (key === this.#notesKey) {
      return;
    }
    this.#notesKey = key;
    clear(this.#notes);
    setHidden(this.#notes, notes.length === 0);
    for (const note of notes) {
      const preview = note.text.length > 400 ? `${note.text.slice(0, 400)}…` : note.text;
      this.#notes.appendChild(chip('note', note.label, preview, 'note', () => this.#env.actions.removeNote(note.key)));
    }
  }

  #renderChips(): void {
    clear(this.#chips);
    setHidden(this.#chips, this.#attachments.length === 0);
    for (const attachment of this.#attachments) {
      const remove = (): void => {
        this.#attachments = this.#attachments.filter((a) => a !== attachment);
        this.#renderChips();
        this.textarea.focus();
      };
      this.#chips.appendChild(chip('attachment', visibleLabel(attachment.label), visibleLabel(attachment.path), attachment.image !== undefined ? 'file-media' : 'file', remove));
    }
  }

  /** Puts `/name ` in place of the typed token (without the space when it is sent as it is). */
  #insertCommand(command: CommandView, send: boolean): void {
    const value = this.textarea.value;
    const rest = value.replace(/^\/\S*/, '').replace(/^[ \t]+/, '');
    const head = send && rest === '' ? `/${command.name}` : `/${command.name} `;
    this.#setValue(head + rest);
    this.textarea.setSelectionRange(head.length, head.length);
  }

  #setValue(value: string): void {
    this.textarea.value = value;
    this.#env.ui.draft = value;
    this.#updateButtons();
  }
}

/** A chip above the composer (a note, an attachment): its icon, label and tooltip, and a button that removes it. */
function chip(kind: string, label: string, title: string, iconName: string, onRemove: () => void): HTMLElement {
  const name = t('Remove {0}', label);
  const remove = button('', { icon: 'close', class: 'icon-button chip-remove', ariaLabel: name, title: name, onClick: onRemove });
  return el('span', { class: `chip ${kind}`, attrs: { title } }, [icon(iconName), el('span', { class: 'chip-label', text: label }), remove]);
}
