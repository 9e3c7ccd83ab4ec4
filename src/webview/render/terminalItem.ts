import type { ToolContentView } from '../../protocol/sessionView';
import { appendAnsi, type AnsiState } from '../ansi';
import { button, clear, el, icon, setHidden } from '../dom';
import { t } from '../strings';
import type { RenderEnv } from './env';
import type { ContentItem } from './contentItem';

/** Terminal output with ANSI colours, showing the tail; grows in place while the command runs. */
export class TerminalItem implements ContentItem {
  readonly element = el('div', { class: 'terminal' });
  readonly #state = el('span', { class: 'terminal-state' });
  readonly #output = el('pre', { class: 'terminal-output', attrs: { tabindex: '0' } });
  readonly #note = el('div', { class: 'truncated' });
  #shown = '';
  #ansi: AnsiState = {};
  #terminalId: string;

  readonly #index: number;
  readonly #entryId: string;
  readonly #env: RenderEnv;

  constructor(
    content: Extract<ToolContentView, { type: 'terminal' }>,
    index: number,
    entryId: string,
    env: RenderEnv,
  ) {
    this.#index = index;
    this.#entryId = entryId;
    this.#env = env;
    this.#terminalId = content.terminalId;
    this.#output.setAttribute('aria-label', t('Terminal output'));
    this.element.append(el('div', { class: 'terminal-head' }, [icon('terminal'), el('span', { text: t('Terminal') }), this.#state]), this.#output, this.#note);
    this.#apply(content);
  }

  update(content: ToolContentView): boolean {
    if (content.type !== 'terminal' || content.terminalId !== this.#terminalId) {
      return false;
    }
    this.#apply(content);
    return true;
  }

  #apply(content: Extract<ToolContentView, { type: 'terminal' }>): void {
    const out = content.output;
    const pre = this.#output;
    const atBottom = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 8;
    if (out !== this.#shown) {
      if (this.#shown !== '' && out.length > this.#shown.length && out.startsWith(this.#shown)) {
        this.#ansi = appendAnsi(pre, out.slice(this.#shown.length), this.#ansi);
      } else {
        clear(pre);
        this.#ansi = appendAnsi(pre, out);
      }
      this.#shown = out;
      if (content.running && atBottom) {
        pre.scrollTop = pre.scrollHeight;
      }
    }
    pre.classList.toggle('empty', out === '');
    clear(this.#state);
    if (content.running) {
      this.#state.append(icon('loading', 'codicon-modifier-spin'), el('span', { text: t('Running…') }));
    } else if (content.signal !== undefined && content.signal !== null) {
      this.#state.append(el('span', { class: 'exit bad', text: t('Stopped by {0}', content.signal) }));
    } else if (content.exitCode !== undefined && content.exitCode !== null) {
      this.#state.append(el('span', { class: content.exitCode === 0 ? 'exit good' : 'exit bad', text: t('Exit code {0}', content.exitCode) }));
    }
    clear(this.#note);
    if (content.fullLength > out.length) {
      this.#note.append(
        el('span', { class: 'muted', text: t('Showing the last {0} of {1} characters.', out.length.toLocaleString(), content.fullLength.toLocaleString()) }),
        button(t('Show all'), { icon: 'go-to-file', class: 'link-button', onClick: () => this.#env.actions.openOutput(this.#entryId, this.#index) }),
      );
    }
    setHidden(this.#note, content.fullLength <= out.length);
  }
}
