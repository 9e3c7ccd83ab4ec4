import type { EntryView } from '../../protocol/sessionView';
import { button, el, icon, setHidden } from '../dom';
import { t } from '../strings';
import { excerpt, visibleTitle } from '../text';
import type { EntryComponent, Frame, Slot } from '../viewStore';
import { cardEntry } from '../lazy/lazyCard';
import { AssistantMessageView } from './assistantMessage';
import { agentName, type RenderEnv } from './env';
import type { PermissionPrompt } from './permission';
import { ToolCallView } from './toolCall';
import { outcomeText } from './turnEnd';
import { UserMessageView } from './userMessage';

function createComponent(entry: EntryView, env: RenderEnv): EntryComponent {
  switch (entry.kind) {
    case 'user':
      return new UserMessageView(env);
    case 'assistant':
      return new AssistantMessageView(env);
    case 'tool':
      return new ToolCallView(env);
    case 'plan':
      return cardEntry('plan', t('plan'), (cards) => new cards.PlanView());
    case 'notice':
      return cardEntry('notice', t('notice'), (cards) => new cards.NoticeView(env));
    case 'turnEnd':
      return cardEntry('turnEnd', t('turn summary'), (cards) => new cards.TurnEndView(env));
    case 'question':
      return cardEntry('question', t('question'), (cards) => new cards.QuestionView(env));
  }
}

/** Closer than this to the bottom counts as "at the bottom". */
const bottomSlackPx = 24;
/** Entries per group element (see `reorder`). */
const entriesPerGroup = 32;

export interface TranscriptHooks {
  /** True when the user is typing in the composer: a new permission prompt must not take focus. */
  composerBusy(): boolean;
}

/**
 * The conversation: one DOM node per entry, in entry order. A frame touches only the entries that
 * changed; inserts and removes move nodes, never rebuild the list. Sticks to the bottom while the
 * user is there, and offers "Jump to latest" when they scrolled up.
 */
export class Transcript {
  readonly element: HTMLElement;
  /** The scroll container, `role="log"`. */
  readonly log: HTMLElement;
  private readonly list = el('div', { class: 'transcript-list' });
  private readonly groups: HTMLElement[] = [];
  /** Whether a ResizeObserver keeps the view at the bottom as content grows. */
  private observed = false;
  private readonly empty = el('div', { class: 'empty-state' });
  private readonly jump: HTMLButtonElement;
  private slots: readonly Slot[] = [];
  private pinned = true;
  private lastScrollTop = 0;
  private restored = false;
  private saveTimer: number | undefined;
  private readonly seenPermissions = new Set<string>();
  private readonly announced = new Set<string>();

  constructor(
    private readonly env: RenderEnv,
    private readonly hooks: TranscriptHooks,
  ) {
    this.log = el('div', { class: 'transcript', attrs: { role: 'log', 'aria-live': 'off', tabindex: '0' } }, [this.list, this.empty]);
    this.log.setAttribute('aria-label', t('Conversation'));
    this.jump = button(t('Jump to latest'), { icon: 'arrow-down', class: 'jump-latest', onClick: () => this.jumpToLatest() });
    setHidden(this.jump, true);
    this.element = el('div', { class: 'transcript-wrap' }, [this.log, this.jump]);
    this.log.addEventListener('scroll', () => this.onScroll());
    this.log.addEventListener('click', (e) => this.onClick(e));
    const win = this.log.ownerDocument.defaultView;
    if (win !== null && 'ResizeObserver' in win) {
      // Content can grow outside a frame (a paced Markdown tail, an image, a <details>): stay at the bottom.
      const observer = new win.ResizeObserver(() => this.stick());
      observer.observe(this.list);
      observer.observe(this.log);
      this.observed = true;
    }
    this.renderEmpty(true);
  }

  render(frame: Frame, slots: readonly Slot[]): void {
    this.slots = slots;
    for (const slot of frame.removed) {
      slot.component?.dispose?.();
      slot.component?.element.remove();
      slot.component = undefined;
    }
    for (const slot of frame.dirty) {
      let component = slot.component;
      if (component?.kind !== slot.entry.kind) {
        component?.dispose?.();
        component?.element.remove();
        component = createComponent(slot.entry, this.env);
        slot.component = component;
        component.update(slot.entry, 'full');
      } else {
        component.update(slot.entry, slot.change);
      }
    }
    if (frame.structure) {
      this.reorder(slots);
    }
    if (frame.header) {
      for (const slot of slots) {
        slot.component?.headerChanged?.();
      }
    }
    this.renderEmpty(false);
    if (!frame.snapshot) {
      this.announce(frame, slots);
    } else {
      // Entries already on screen when the view (re)loads are not news.
      for (const slot of slots) {
        if (slot.entry.kind === 'assistant') {
          this.announced.add(slot.entry.id);
        }
      }
    }
    this.watchPermissions(frame);
    if (frame.snapshot && !this.restored) {
      this.restored = true;
      this.restoreScroll();
    }
    // Growth, an entry inserted included, is the ResizeObserver's (after layout, so reading the
    // scroll height costs nothing); reading it here would force a layout in the frame's task, which
    // then lays out again (~8 ms of a long reply's last frame in code-server).
    if (frame.snapshot || !this.observed) {
      this.stick();
    }
  }

  /**
   * The turn ended: each message that is on screen as rendered renders now what its streaming
   * view held back (in the task of the message that ended the turn, before the frame; an entry
   * waiting for the frame renders whole then anyway).
   */
  turnEnded(slots: readonly Slot[]): void {
    for (const slot of slots) {
      if (slot.change === 'none') {
        slot.component?.turnEnded?.();
      }
    }
  }

  /** The pending permission prompt the keyboard shortcuts answer: the focused card's, else the first. */
  pendingPrompt(focused: Element | null): PermissionPrompt | undefined {
    let first: PermissionPrompt | undefined;
    for (const slot of this.slots) {
      const c = slot.component;
      if (c instanceof ToolCallView) {
        const prompt = c.pendingPrompt;
        if (prompt !== undefined) {
          if (focused !== null && c.element.contains(focused)) {
            return prompt;
          }
          first ??= prompt;
        }
      }
    }
    return first;
  }

  jumpToLatest(): void {
    this.pinned = true;
    this.scrollToBottom();
    this.updateJump();
  }

  /**
   * Puts the entries' elements in order, `entriesPerGroup` per group element. Off-screen groups
   * skip layout and paint (`content-visibility: auto`); grouping keeps the number of elements the
   * browser checks for visibility on every frame, and the list's own children, small in a long
   * session (one per entry cost a millisecond per frame at 2,000 entries).
   */
  private reorder(slots: readonly Slot[]): void {
    const needed = Math.ceil(slots.length / entriesPerGroup);
    while (this.groups.length < needed) {
      const group = el('div', { class: 'entry-group' });
      this.list.appendChild(group);
      this.groups.push(group);
    }
    for (const extra of this.groups.splice(needed)) {
      extra.remove();
    }
    this.groups.forEach((group, g) => {
      let cursor: ChildNode | null = group.firstChild;
      const end = Math.min(slots.length, (g + 1) * entriesPerGroup);
      for (let i = g * entriesPerGroup; i < end; i++) {
        const node = slots[i]?.component?.element;
        if (node === undefined) {
          continue;
        }
        if (node === cursor) {
          cursor = cursor.nextSibling;
          continue;
        }
        group.insertBefore(node, cursor);
      }
      // What is left belongs to no entry, or to a later group (which takes it back).
      while (cursor !== null) {
        const next: ChildNode | null = cursor.nextSibling;
        cursor.remove();
        cursor = next;
      }
    });
  }

  private renderEmpty(initial: boolean): void {
    const isEmpty = this.slots.length === 0;
    setHidden(this.empty, !isEmpty);
    if (isEmpty) {
      const header = this.env.header();
      this.empty.replaceChildren(
        icon('hubot', 'empty-icon'),
        el('p', {
          text: initial || header === undefined ? t('Connecting…') : t('Ask {0} anything. Type / for commands.', header.agentName),
        }),
        // The Demo's replies are scripted: say how to reach the real thing.
        ...(header?.demo === true
          ? [el('p', { class: 'empty-hint', text: t('This is the built-in Demo agent: its replies are scripted. To chat with Hermes, install Hermes Agent, then run “Hermes: Select Agent” (or “Hermes: Set Up Agent…” when it is not on PATH).') })]
          : []),
      );
    }
  }

  private announce(frame: Frame, slots: readonly Slot[]): void {
    for (const slot of frame.inserted) {
      const index = slots.indexOf(slot);
      if (index < 0) {
        continue;
      }
      // An agent message is complete once something follows it.
      const before = slots[index - 1];
      if (before?.entry.kind === 'assistant') {
        this.announceReply(before);
      }
      const entry = slot.entry;
      if (entry.kind === 'turnEnd') {
        if (entry.outcome !== 'end_turn') {
          const detail = entry.error !== undefined && entry.error !== '' ? `: ${excerpt(entry.error, 120)}` : '';
          this.env.announce(t('Turn ended: {0}', outcomeText(entry.outcome)) + detail);
        }
      } else if (entry.kind === 'notice' && entry.level !== 'info') {
        this.env.announce(`${entry.level === 'error' ? t('Error') : t('Warning')}: ${entry.title}`);
      }
    }
  }

  private announceReply(slot: Slot): void {
    const entry = slot.entry;
    if (entry.kind !== 'assistant' || this.announced.has(entry.id)) {
      return;
    }
    this.announced.add(entry.id);
    const text = entry.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(' ').trim();
    if (text !== '') {
      this.env.announce(t('{0} replied: {1}', agentName(this.env), excerpt(text)));
    }
  }

  /** Announces a new permission request and moves focus to it, unless the user is typing. */
  private watchPermissions(frame: Frame): void {
    let focused = false;
    for (const slot of frame.dirty) {
      const c = slot.component;
      if (!(c instanceof ToolCallView)) {
        continue;
      }
      const prompt = c.pendingPrompt;
      const requestId = c.entryView?.permission?.requestId;
      if (prompt === undefined || requestId === undefined || this.seenPermissions.has(requestId)) {
        continue;
      }
      this.seenPermissions.add(requestId);
      this.env.announce(t('Permission requested: {0}', visibleTitle(c.entryView?.title ?? '')));
      if (!focused && !this.hooks.composerBusy()) {
        focused = true; // several at once: the first one
        prompt.element.focus({ preventScroll: true });
        prompt.element.scrollIntoView?.({ block: 'nearest' });
      }
    }
  }

  private onClick(e: MouseEvent): void {
    const view = this.log.ownerDocument.defaultView;
    const target = e.target;
    if (view === null || !(target instanceof view.Element)) {
      return;
    }
    const link = target.closest('a');
    if (link === null || !this.log.contains(link)) {
      return;
    }
    if (link.classList.contains('file-link')) {
      e.preventDefault();
      const path = link.getAttribute('data-path');
      const line = Number(link.getAttribute('data-line') ?? '');
      if (path !== null && path !== '') {
        this.env.actions.openLocation(path, Number.isInteger(line) && line > 0 ? line : undefined);
      }
      return;
    }
    const href = link.getAttribute('href') ?? '';
    if (!/^(?:https?:|mailto:)/i.test(href)) {
      e.preventDefault(); // nothing else may navigate the webview
    }
  }

  private onScroll(): void {
    const log = this.log;
    const distance = log.scrollHeight - log.scrollTop - log.clientHeight;
    if (distance <= bottomSlackPx) {
      this.pinned = true;
    } else if (log.scrollTop < this.lastScrollTop - 1) {
      this.pinned = false; // the user scrolled up
    }
    this.lastScrollTop = log.scrollTop;
    this.updateJump();
    this.scheduleSave();
  }

  private updateJump(): void {
    setHidden(this.jump, this.pinned);
  }

  private stick(): void {
    if (this.pinned) {
      this.scrollToBottom();
    }
  }

  private scrollToBottom(): void {
    const log = this.log;
    const top = log.scrollHeight - log.clientHeight;
    if (top > 0 && Math.abs(log.scrollTop - top) > 1) {
      log.scrollTop = top;
    }
    this.lastScrollTop = log.scrollTop;
  }

  private restoreScroll(): void {
    const saved = this.env.ui.scrollTop;
    if (saved >= 0) {
      this.pinned = false;
      this.log.scrollTop = saved;
      this.lastScrollTop = this.log.scrollTop;
      this.updateJump();
    }
  }

  private scheduleSave(): void {
    if (this.saveTimer !== undefined) {
      return;
    }
    this.saveTimer = this.env.scheduler.setTimeout(() => {
      this.saveTimer = undefined;
      this.env.ui.scrollTop = this.pinned ? -1 : this.log.scrollTop;
    }, 250);
  }
}
