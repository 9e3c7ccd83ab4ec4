import type { EntryView, PartView } from '../../protocol/sessionView';
import { el, setAttr } from '../dom';
import { MarkdownView } from '../markdown';
import { t } from '../strings';
import type { EntryComponent, SlotChange } from '../viewStore';
import { renderBlock } from './blocks';
import { agentName, isTurnRunning, type RenderEnv } from './env';

type AssistantEntry = Extract<EntryView, { kind: 'assistant' }>;

interface PartComponent {
  readonly kind: PartView['kind'];
  readonly element: HTMLElement;
  /** `appended`: the streaming case, `part`'s text is the previous one followed by it. */
  update(part: PartView, appendOnly: boolean, following: boolean, appended?: string): void;
  headerChanged?(): void;
  /** The turn ended: render what streaming held back, now. */
  turnEnded?(): void;
  dispose?(): void;
}

/**
 * An agent message: text parts (streamed Markdown), thoughts (collapsible) and content blocks.
 * Streaming costs only the growing part: `appendText` ops reach its MarkdownView as they arrive
 * (`streamText`, outside animation frames), and the view paces what reaches the DOM.
 */
export class AssistantMessageView implements EntryComponent {
  readonly kind = 'assistant';
  readonly element = el('article', { class: 'entry entry-assistant' });
  #parts: PartComponent[] = [];
  #entry: AssistantEntry | undefined;

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
  }

  get entryView(): AssistantEntry | undefined {
    return this.#entry;
  }

  update(entry: EntryView, change: SlotChange): void {
    if (entry.kind !== 'assistant') {
      return;
    }
    this.#entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    setAttr(this.element, 'aria-label', agentName(this.#env));
    const appendOnly = change === 'append';
    const count = entry.parts.length;
    for (let i = 0; i < count; i++) {
      const part = entry.parts[i];
      if (part === undefined) {
        continue;
      }
      const following = i < count - 1;
      const component = this.#parts[i];
      if (component?.kind !== part.kind) {
        const fresh = this.#createPart(part, i);
        if (component !== undefined) {
          component.dispose?.();
          this.element.replaceChild(fresh.element, component.element);
        } else {
          this.element.appendChild(fresh.element);
        }
        this.#parts[i] = fresh;
        fresh.update(part, false, following);
      } else {
        component.update(part, appendOnly, following);
      }
    }
    for (const extra of this.#parts.splice(count)) {
      extra.dispose?.();
      extra.element.remove();
    }
  }

  streamText(entry: EntryView, index: number, appended: string): boolean {
    const part = entry.kind === 'assistant' ? entry.parts[index] : undefined;
    const component = this.#parts[index];
    // Only the last part grows in place; a new part changes the structure (and ends a thought).
    if (entry.kind !== 'assistant' || part === undefined || component?.kind !== part.kind || index !== entry.parts.length - 1) {
      return false;
    }
    this.#entry = entry;
    component.update(part, true, false, appended);
    return true;
  }

  headerChanged(): void {
    for (const part of this.#parts) {
      part.headerChanged?.();
    }
  }

  turnEnded(): void {
    for (const part of this.#parts) {
      part.turnEnded?.();
    }
  }

  dispose(): void {
    for (const part of this.#parts) {
      part.dispose?.();
    }
  }

  #createPart(part: PartView, index: number): PartComponent {
    const key = `${this.#entry?.id ?? ''}:${index}`;
    switch (part.kind) {
      case 'text':
        return new TextPart(this.#env);
      case 'thought':
        return new ThoughtPart(this.#env, key);
      case 'block':
        return new BlockPart(this.#env);
    }
  }
}

/** Shows a part's text in its view: only the appended chunk when the update carries it (streaming). */
function showText(view: MarkdownView, text: string, appendOnly: boolean, appended: string | undefined): void {
  if (appended !== undefined) {
    view.append(text, appended);
  } else {
    view.set(text, appendOnly);
  }
}

class TextPart implements PartComponent {
  readonly kind = 'text';
  readonly #view: MarkdownView;
  readonly element: HTMLElement;

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
    this.#view = new MarkdownView(env.scheduler, 'markdown part-text');
    this.element = this.#view.element;
  }

  update(part: PartView, appendOnly: boolean, _following: boolean, appended?: string): void {
    if (part.kind !== 'text') {
      return;
    }
    showText(this.#view, part.text, appendOnly, appended);
  }

  headerChanged(): void {
    // The turn is over: an unclosed fence at the end gets its final (highlighted) rendering.
    if (!isTurnRunning(this.#env)) {
      this.turnEnded();
    }
  }

  turnEnded(): void {
    this.#view.flush();
  }

  dispose(): void {
    this.#view.dispose();
  }
}

/**
 * "Thinking…" while the thought streams (open), "Thought for N s" once the answer starts (closed
 * automatically). A user's toggle wins and is remembered in the UI state.
 */
class ThoughtPart implements PartComponent {
  readonly kind = 'thought';
  readonly element: HTMLDetailsElement;
  readonly #label = el('span', { class: 'thought-label' });
  readonly #statusIcon = el('span', { attrs: { 'aria-hidden': 'true' } });
  #view: MarkdownView | undefined;
  #part: Extract<PartView, { kind: 'thought' }> | undefined;
  #following = false;
  /** What we last set `open` to; a toggle event that disagrees came from the user. */
  #applied: boolean | undefined;

  readonly #env: RenderEnv;
  readonly #key: string;

  constructor(env: RenderEnv, key: string) {
    this.#env = env;
    this.#key = key;
    this.element = el('details', { class: 'thought' }, [el('summary', {}, [this.#statusIcon, this.#label])]);
    this.element.addEventListener('toggle', () => {
      if (this.element.open !== this.#applied) {
        this.#env.ui.setExpanded(this.#key, this.element.open);
        this.#applied = this.element.open;
      }
      this.#syncBody(false);
    });
  }

  update(part: PartView, appendOnly: boolean, following: boolean, appended?: string): void {
    if (part.kind !== 'thought') {
      return;
    }
    this.#part = part;
    this.#following = following;
    this.#refresh();
    this.#syncBody(appendOnly, appended);
  }

  headerChanged(): void {
    this.#refresh();
    if (!isTurnRunning(this.#env)) {
      this.turnEnded();
    }
  }

  turnEnded(): void {
    this.#view?.flush();
  }

  dispose(): void {
    this.#view?.dispose();
  }

  #streaming(): boolean {
    return this.#part !== undefined && !this.#following && this.#part.endedAt === undefined && isTurnRunning(this.#env);
  }

  #refresh(): void {
    const part = this.#part;
    if (part === undefined) {
      return;
    }
    const streaming = this.#streaming();
    const label = streaming
      ? t('Thinking…')
      : part.endedAt !== undefined
        ? t('Thought for {0} s', Math.max(1, Math.round((part.endedAt - part.startedAt) / 1000)))
        : t('Thought');
    // Header changes reach every thought: touch the DOM only when something changed.
    if (this.#label.textContent !== label) {
      this.#label.textContent = label;
    }
    setAttr(this.#statusIcon, 'class', streaming ? 'codicon codicon-loading codicon-modifier-spin' : 'codicon codicon-lightbulb');
    const open = this.#env.ui.isExpanded(this.#key) ?? streaming;
    if (open !== this.#applied) {
      this.#applied = open;
      this.element.open = open;
    }
  }

  /** The body is rendered only once the thought is open (most old thoughts never are). */
  #syncBody(appendOnly: boolean, appended?: string): void {
    if (this.#part === undefined || (!this.element.open && this.#view === undefined)) {
      return;
    }
    if (this.#view === undefined) {
      this.#view = new MarkdownView(this.#env.scheduler, 'markdown thought-body');
      this.element.appendChild(this.#view.element);
      this.#view.set(this.#part.text, false, !this.#streaming());
      return;
    }
    showText(this.#view, this.#part.text, appendOnly, appended);
  }
}

class BlockPart implements PartComponent {
  readonly kind = 'block';
  readonly element = el('div', { class: 'part-block' });
  #last: string | undefined;

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
  }

  update(part: PartView): void {
    if (part.kind !== 'block') {
      return;
    }
    const key = JSON.stringify(part.block);
    if (key === this.#last) {
      return;
    }
    this.#last = key;
    this.element.replaceChildren(renderBlock(part.block, this.#env));
  }
}

