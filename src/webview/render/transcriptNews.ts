import { el } from '../dom';
import { t } from '../strings';
import { excerpt, visibleTitle } from '../text';
import type { Frame, Slot } from '../viewStore';
import { agentName, type RenderEnv } from './env';
import type { PermissionPrompt } from './permission';
import { ToolCallView } from './toolCall';
import { outcomeText } from './turnEnd';

export interface NewsHooks {
  /** True when the user is typing in the composer: a new permission prompt must not take focus. */
  composerBusy(): boolean;
  /** Whether the entry has a row (is near the view). */
  isMounted(slot: Slot): boolean;
  /** Brings an entry into view. */
  reveal(id: string): void;
}

/**
 * What the transcript tells a screen reader as it happens: a finished reply, a turn that ended
 * badly, a warning, a permission request (which also takes the focus when this chat has the
 * keyboard and the user is not typing in its composer).
 */
export class TranscriptNews {
  /** What is outside the rows, in words (the log's description, for screen readers). */
  readonly extent = el('p', { class: 'visually-hidden', attrs: { id: 'transcript-extent' } });
  readonly #seenPermissions = new Set<string>();
  readonly #announced = new Set<string>();
  #focusOwed: Slot | undefined;
  readonly #env: RenderEnv;
  readonly #hooks: NewsHooks;

  constructor(env: RenderEnv, hooks: NewsHooks) {
    this.#env = env;
    this.#hooks = hooks;
  }

  /** The rows hold entries `start`…`end - 1` of `count`: the others are named (with the way to reach them). */
  describeExtent({ start, end, count }: { readonly start: number; readonly end: number; readonly count: number }): void {
    const text =
      start > 0 || end < count ? t('Entries {0} to {1} of {2} are shown; scroll or press Ctrl+F to find the others.', start + 1, end, count) : '';
    if (this.extent.textContent !== text) {
      this.extent.textContent = text;
    }
  }

  render(frame: Frame, slots: readonly Slot[]): void {
    if (!frame.snapshot) {
      this.#announce(frame, slots);
    } else {
      // Entries already on screen when the view (re)loads are not news.
      for (const slot of slots) {
        if (slot.kind === 'assistant') {
          this.#announced.add(slot.id);
        }
      }
    }
    this.#watchPermissions(frame);
  }

  /** A permission prompt that waited for the cards chunk is there: it gets the focus it was owed. */
  permissionShown(): void {
    const prompt = pendingPrompt(this.#focusOwed);
    if (prompt !== undefined) {
      this.#focusOwed = undefined;
      if (this.#mayTakeFocus()) {
        focusPrompt(prompt);
      }
    }
  }

  #announce(frame: Frame, slots: readonly Slot[]): void {
    for (const slot of frame.inserted) {
      const index = slots.indexOf(slot);
      if (index < 0) {
        continue;
      }
      // An agent message is complete once something follows it.
      const before = slots[index - 1];
      if (before?.entry?.kind === 'assistant') {
        this.#announceReply(before.entry);
      }
      const entry = slot.entry;
      if (entry?.kind === 'turnEnd') {
        if (entry.outcome !== 'end_turn') {
          const detail = entry.error !== undefined && entry.error !== '' ? `: ${excerpt(entry.error, 120)}` : '';
          this.#env.announce(t('Turn ended: {0}', outcomeText(entry.outcome)) + detail);
        }
      } else if (entry?.kind === 'notice' && entry.level !== 'info') {
        this.#env.announce(`${entry.level === 'error' ? t('Error') : t('Warning')}: ${entry.title}`);
      }
    }
  }

  #announceReply(entry: Extract<Slot['entry'], { kind: 'assistant' }>): void {
    if (this.#announced.has(entry.id)) {
      return;
    }
    this.#announced.add(entry.id);
    const text = entry.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(' ').trim();
    if (text !== '') {
      this.#env.announce(t('{0} replied: {1}', agentName(this.#env), excerpt(text)));
    }
  }

  /**
   * Whether a new prompt may take the focus: only from this chat's own keyboard. Taking it while
   * the user types in another chat or in an editor would move their keys here (the browser lets a
   * frame take the page's focus), where Enter or Space would land on the prompt.
   */
  #mayTakeFocus(): boolean {
    return this.extent.ownerDocument.hasFocus() && !this.#hooks.composerBusy();
  }

  /** Announces a new permission request and moves focus to it (brought into view) when this chat has the keyboard and the user is not typing. */
  #watchPermissions(frame: Frame): void {
    let focused = false;
    for (const slot of frame.dirty) {
      const entry = slot.entry;
      const requestId = entry?.kind === 'tool' && entry.permission?.status === 'pending' ? entry.permission.requestId : undefined;
      if (entry?.kind !== 'tool' || requestId === undefined || this.#seenPermissions.has(requestId)) {
        continue;
      }
      this.#seenPermissions.add(requestId);
      this.#env.announce(t('Permission requested: {0}', visibleTitle(entry.title)));
      if (!focused && this.#mayTakeFocus()) {
        focused = true; // several at once: the first one
        if (!this.#hooks.isMounted(slot)) {
          this.#hooks.reveal(slot.id);
        }
        const prompt = pendingPrompt(slot);
        if (prompt === undefined) {
          this.#focusOwed = slot; // its prompt comes with the cards chunk: `permissionShown`
        } else {
          focusPrompt(prompt);
        }
      }
    }
  }
}

/** The pending permission prompt of a tool call's row, once it is shown. */
function pendingPrompt(slot: Slot | undefined): PermissionPrompt | undefined {
  const c = slot?.component;
  return c instanceof ToolCallView ? c.pendingPrompt : undefined;
}

function focusPrompt(prompt: PermissionPrompt): void {
  prompt.element.focus({ preventScroll: true });
  prompt.element.scrollIntoView?.({ block: 'nearest' });
}

/** A click in the log: a file link opens the file; nothing but a web or mail link may navigate the webview. */
export function followLink(e: MouseEvent, log: HTMLElement, env: RenderEnv): void {
  const view = log.ownerDocument.defaultView;
  const target = e.target;
  if (view === null || !(target instanceof view.Element)) {
    return;
  }
  const link = target.closest('a');
  if (link === null || !log.contains(link)) {
    return;
  }
  if (link.classList.contains('file-link')) {
    e.preventDefault();
    const path = link.getAttribute('data-path');
    const line = Number(link.getAttribute('data-line') ?? '');
    if (path !== null && path !== '') {
      env.actions.openLocation(path, Number.isInteger(line) && line > 0 ? line : undefined);
    }
    return;
  }
  const href = link.getAttribute('href') ?? '';
  if (!/^(?:https?:|mailto:)/i.test(href)) {
    e.preventDefault(); // nothing else may navigate the webview
  }
}
