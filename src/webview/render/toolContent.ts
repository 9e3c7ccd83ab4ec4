import type { ToolContentView } from '../../protocol/sessionView';
import { appendAnsi, type AnsiState } from '../ansi';
import { button, clear, el, icon, setHidden } from '../dom';
import { renderMarkdown } from '../markdown';
import { t } from '../strings';
import { visibleLabel } from '../text';
import { renderBlock } from './blocks';
import type { RenderEnv } from './env';

/** One item of a tool call's content, re-rendered in place when it changes. */
export interface ContentItem {
  readonly element: HTMLElement;
  /** Takes the new content; false when the item cannot show it and must be rebuilt. */
  update(content: ToolContentView): boolean;
}

export function createContentItem(content: ToolContentView, index: number, entryId: string, env: RenderEnv): ContentItem {
  switch (content.type) {
    case 'text':
      return staticItem(content, textContent(content, index, entryId, env));
    case 'diff':
      return staticItem(content, diffContent(content, index, entryId, env));
    case 'block':
      return staticItem(content, el('div', { class: 'tool-block' }, [renderBlock(content.block, env)]));
    case 'terminal':
      return new TerminalItem(content, index, entryId, env);
  }
}

function staticItem(content: ToolContentView, element: HTMLElement): ContentItem {
  return { element, update: (next) => sameContent(content, next) };
}

function sameContent(a: ToolContentView, b: ToolContentView): boolean {
  if (a === b) {
    return true;
  }
  switch (a.type) {
    case 'text':
      return b.type === 'text' && a.fullLength === b.fullLength && a.markdown === b.markdown && a.text === b.text;
    case 'diff':
      return (
        b.type === 'diff' && a.path === b.path && a.label === b.label && a.isNew === b.isNew && a.added === b.added && a.removed === b.removed && a.multiFile === b.multiFile
      );
    case 'block':
      return b.type === 'block' && JSON.stringify(a.block) === JSON.stringify(b.block);
    case 'terminal':
      return false;
  }
}

function textContent(content: Extract<ToolContentView, { type: 'text' }>, index: number, entryId: string, env: RenderEnv): HTMLElement {
  const body = content.markdown ? renderMarkdown(content.text, env.scheduler, 'markdown tool-markdown') : el('pre', { class: 'tool-output', text: content.text });
  const truncated = content.fullLength > content.text.length;
  return el('div', { class: 'tool-text' }, [
    body,
    truncated &&
      el('div', { class: 'truncated' }, [
        el('span', { class: 'muted', text: t('Output shortened ({0} characters).', content.fullLength.toLocaleString()) }),
        button(t('Open full output'), { icon: 'go-to-file', class: 'link-button', onClick: () => env.actions.openOutput(entryId, index) }),
      ]),
  ]);
}

function diffContent(content: Extract<ToolContentView, { type: 'diff' }>, index: number, entryId: string, env: RenderEnv): HTMLElement {
  const b = el('button', { class: 'diff-summary', attrs: { type: 'button', title: t('Open the diff in an editor') } }, [
    icon('diff'),
    el('span', { class: 'diff-label', text: visibleLabel(content.label) }),
    content.isNew && el('span', { class: 'badge badge-new', text: t('new file') }),
    content.multiFile
      ? el('span', { class: 'badge', text: t('multi-file patch') })
      : el('span', { class: 'diff-stats' }, [
          el('span', { class: 'added', text: `+${content.added}` }),
          el('span', { class: 'removed', text: `−${content.removed}` }),
        ]),
  ]);
  b.addEventListener('click', () => env.actions.openDiff(entryId, index));
  return b;
}

/** Terminal output with ANSI colours, showing the tail; grows in place while the command runs. */
class TerminalItem implements ContentItem {
  readonly element = el('div', { class: 'terminal' });
  private readonly state = el('span', { class: 'terminal-state' });
  private readonly output = el('pre', { class: 'terminal-output', attrs: { tabindex: '0' } });
  private readonly note = el('div', { class: 'truncated' });
  private shown = '';
  private ansi: AnsiState = {};
  private terminalId: string;

  constructor(
    content: Extract<ToolContentView, { type: 'terminal' }>,
    private readonly index: number,
    private readonly entryId: string,
    private readonly env: RenderEnv,
  ) {
    this.terminalId = content.terminalId;
    this.output.setAttribute('aria-label', t('Terminal output'));
    this.element.append(el('div', { class: 'terminal-head' }, [icon('terminal'), el('span', { text: t('Terminal') }), this.state]), this.output, this.note);
    this.apply(content);
  }

  update(content: ToolContentView): boolean {
    if (content.type !== 'terminal' || content.terminalId !== this.terminalId) {
      return false;
    }
    this.apply(content);
    return true;
  }

  private apply(content: Extract<ToolContentView, { type: 'terminal' }>): void {
    const out = content.output;
    const pre = this.output;
    const atBottom = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 8;
    if (out !== this.shown) {
      if (this.shown !== '' && out.length > this.shown.length && out.startsWith(this.shown)) {
        this.ansi = appendAnsi(pre, out.slice(this.shown.length), this.ansi);
      } else {
        clear(pre);
        this.ansi = appendAnsi(pre, out);
      }
      this.shown = out;
      if (content.running && atBottom) {
        pre.scrollTop = pre.scrollHeight;
      }
    }
    pre.classList.toggle('empty', out === '');
    clear(this.state);
    if (content.running) {
      this.state.append(icon('loading', 'codicon-modifier-spin'), el('span', { text: t('Running…') }));
    } else if (content.signal !== undefined && content.signal !== null) {
      this.state.append(el('span', { class: 'exit bad', text: t('Stopped by {0}', content.signal) }));
    } else if (content.exitCode !== undefined && content.exitCode !== null) {
      this.state.append(el('span', { class: content.exitCode === 0 ? 'exit good' : 'exit bad', text: t('Exit code {0}', content.exitCode) }));
    }
    clear(this.note);
    if (content.fullLength > out.length) {
      this.note.append(
        el('span', { class: 'muted', text: t('Showing the last {0} of {1} characters.', out.length.toLocaleString(), content.fullLength.toLocaleString()) }),
        button(t('Show all'), { icon: 'go-to-file', class: 'link-button', onClick: () => this.env.actions.openOutput(this.entryId, this.index) }),
      );
    }
    setHidden(this.note, content.fullLength <= out.length);
  }
}
