import type { ToolContentView } from '../../protocol/sessionView';
import { button, el, icon } from '../dom';
import { loadCards } from '../lazy/cards';
import { chunkError, withCards } from '../lazy/lazyCard';
import { renderMarkdown } from '../markdown';
import { t } from '../strings';
import { visibleLabel } from '../text';
import { renderBlock } from './blocks';
import type { ContentItem, OutputBox } from './contentItem';
import type { RenderEnv } from './env';

export type { ContentItem } from './contentItem';

export function createContentItem(content: ToolContentView, index: number, entryId: string, env: RenderEnv): ContentItem {
  switch (content.type) {
    case 'text':
      return staticItem(content, textContent(content, index, entryId, env));
    case 'diff':
      return staticItem(content, diffContent(content, index, entryId, env));
    case 'block':
      return staticItem(content, el('div', { class: 'tool-block' }, [renderBlock(content.block, env)]));
    case 'terminal': {
      const cards = loadCards();
      return cards instanceof Promise ? new LazyTerminalItem(content, index, entryId, env) : new cards.TerminalItem(content, index, entryId, env);
    }
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
  const body = content.markdown ? renderMarkdown(content.text, env.scheduler, 'markdown tool-markdown') : outputBox(content.text, env);
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

/**
 * A tool's output in its capped box. A long one goes in as its first 4,000 characters and the rest
 * once the page is idle (500 ms at the latest), or when find looks in it: laying out 16 KB of
 * wrapped text was most of the first frame of a long session's opening (bench/README.md, P8), and
 * now takes a task of its own. Two text nodes flow as one, so nothing shows where it was cut.
 */
function outputBox(text: string, env: RenderEnv): OutputBox {
  /** Characters put in at once: more than the 320 px box shows. */
  const firstChars = 4_000;
  const box: OutputBox = el('pre', { class: 'tool-output', text: text.slice(0, firstChars) });
  if (text.length > firstChars) {
    box.rest = () => {
      box.rest = undefined;
      box.append(text.slice(firstChars));
    };
    env.scheduler.whenIdle(() => box.rest?.(), 500);
  }
  return box;
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

/**
 * Terminal output (with ANSI colours) comes with the cards chunk, like the other cards a chat's
 * first paint rarely shows; until it is there the item keeps the latest content and says what it is.
 */
class LazyTerminalItem implements ContentItem {
  /** Where the item goes (`display: contents`): the card keeps this element whatever it holds. */
  readonly element = el('div', { class: 'lazy-slot' });
  private inner: ContentItem | undefined;
  private latest: Extract<ToolContentView, { type: 'terminal' }>;

  constructor(content: Extract<ToolContentView, { type: 'terminal' }>, index: number, entryId: string, env: RenderEnv) {
    this.latest = content;
    this.element.append(el('div', { class: 'terminal muted', text: t('Terminal') }));
    withCards(
      (cards) => {
        const inner = new cards.TerminalItem(this.latest, index, entryId, env);
        this.inner = inner;
        this.element.replaceChildren(inner.element);
      },
      (error) => this.element.replaceChildren(chunkError(t('terminal'), error)),
    );
  }

  update(content: ToolContentView): boolean {
    if (content.type !== 'terminal' || content.terminalId !== this.latest.terminalId) {
      return false;
    }
    this.latest = content;
    return this.inner?.update(content) ?? true;
  }
}
