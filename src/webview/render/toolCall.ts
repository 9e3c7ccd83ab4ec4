import type { EntryView, ToolKindView, ToolStatusView } from '../../protocol/sessionView';
import { clear, el, icon, setAttr, setHidden, uniqueId } from '../dom';
import { t } from '../strings';
import { formatDuration, visibleLabel, visibleText, visibleTitle } from '../text';
import type { EntryComponent } from '../viewStore';
import { agentName, type RenderEnv } from './env';
import { asError, loadCards } from '../lazy/cards';
import { chunkError } from '../lazy/lazyCard';
import type { PermissionPrompt } from './permission';
import { createContentItem, type ContentItem } from './toolContent';

type ToolEntry = Extract<EntryView, { kind: 'tool' }>;

const kindIcons: Readonly<Record<ToolKindView, string>> = {
  read: 'file',
  edit: 'edit',
  delete: 'trash',
  move: 'arrow-swap',
  search: 'search',
  execute: 'terminal',
  think: 'lightbulb',
  fetch: 'globe',
  switch_mode: 'arrow-both',
  other: 'tools',
};

const statusIcons: Readonly<Record<ToolStatusView, string>> = {
  pending: 'circle-large-outline',
  in_progress: 'loading',
  completed: 'check',
  failed: 'error',
  cancelled: 'circle-slash',
  ended: 'question',
  interrupted: 'debug-disconnect',
  denied: 'circle-slash',
};

export function statusText(status: ToolStatusView): string {
  switch (status) {
    case 'pending':
      return t('Pending');
    case 'in_progress':
      return t('In progress');
    case 'completed':
      return t('Completed');
    case 'failed':
      return t('Failed');
    case 'cancelled':
      return t('Cancelled');
    case 'ended':
      return t('Ended without a result');
    case 'interrupted':
      return t('Interrupted');
    case 'denied':
      return t('Denied');
  }
}

/** Kinds whose cards start expanded: they change things, so their content matters. */
const expandedKinds: ReadonlySet<ToolKindView> = new Set(['edit', 'delete', 'move', 'execute']);

/**
 * A tool call card: kind icon, title, status, locations, content (text, diff summary, terminal),
 * raw input/output on demand and, when the agent asks, the permission prompt. Updated in place on
 * `replace`; the body is built only while expanded, and expansion survives updates.
 */
export class ToolCallView implements EntryComponent {
  readonly kind = 'tool';
  readonly element: HTMLElement;
  readonly #titleId = uniqueId('tool-title');
  readonly #bodyId = uniqueId('tool-body');
  readonly #toggle: HTMLButtonElement;
  readonly #chevron = icon('chevron-right');
  readonly #kindIcon = icon('tools', 'tool-icon');
  readonly #title = el('span', { class: 'tool-title' });
  readonly #emoji = el('span', { class: 'tool-emoji', attrs: { 'aria-hidden': 'true' } });
  readonly #status = el('span', { class: 'tool-status' });
  readonly #duration = el('span', { class: 'tool-duration muted' });
  readonly #locations = el('div', { class: 'tool-locations' });
  readonly #body = el('div', { class: 'tool-body' });
  readonly #contentBox = el('div', { class: 'tool-content' });
  readonly #command = el('pre', { class: 'tool-command' });
  readonly #raw = el('div', { class: 'tool-raw' });
  #items: ContentItem[] = [];
  #prompt: PermissionPrompt | undefined;
  #waitingForPrompt: HTMLElement | undefined;
  #disposed = false;
  #entry: ToolEntry | undefined;
  #bodyBuilt = false;
  #rawShown: { input?: string; output?: string } = {};

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
    this.#title.id = this.#titleId;
    this.#body.id = this.#bodyId;
    this.#toggle = el('button', { class: 'tool-toggle', attrs: { type: 'button', 'aria-controls': this.#bodyId } }, [this.#chevron, this.#kindIcon, this.#emoji, this.#title]);
    this.#toggle.addEventListener('click', () => {
      if (this.#entry === undefined || this.#forcedOpen()) {
        return;
      }
      this.#env.ui.setExpanded(this.#entry.id, !this.#expanded());
      this.#render();
    });
    this.element = el('article', { class: 'entry tool-card', attrs: { 'aria-labelledby': this.#titleId } }, [
      el('div', { class: 'tool-head' }, [this.#toggle, this.#status, this.#duration]),
      this.#locations,
      this.#body,
    ]);
    this.#body.append(this.#command, this.#contentBox, this.#raw);
  }

  /** The permission prompt while one is pending (keyboard shortcuts, focus). */
  get pendingPrompt(): PermissionPrompt | undefined {
    return this.#prompt?.pending === true ? this.#prompt : undefined;
  }

  get entryView(): ToolEntry | undefined {
    return this.#entry;
  }

  update(entry: EntryView): void {
    if (entry.kind !== 'tool' || entry === this.#entry) {
      return;
    }
    const previous = this.#entry;
    this.#entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    this.element.className = `entry tool-card kind-${entry.toolKind} status-${entry.status}`;
    this.#kindIcon.className = `codicon codicon-${kindIcons[entry.toolKind]} tool-icon`;
    const progress = entry.progress;
    // A progress card (API Server `hermes.tool.progress`): the tool's emoji and label, as Hermes shows them.
    this.#title.textContent = progress !== undefined && progress.label !== '' ? visibleTitle(progress.label) : visibleTitle(entry.title);
    this.#emoji.textContent = progress?.emoji ?? '';
    setHidden(this.#emoji, progress === undefined || progress.emoji === '');
    this.element.classList.toggle('tool-progress', progress !== undefined);
    this.#renderStatus(entry);
    if (previous?.locations !== entry.locations) {
      this.#renderLocations(entry);
    }
    if (entry.permission !== undefined) {
      this.#showPermission(entry);
    } else if (this.#prompt !== undefined) {
      this.#prompt.dispose();
      this.#prompt.element.remove();
      this.#prompt = undefined;
    }
    this.#render();
  }

  dispose(): void {
    this.#prompt?.dispose();
    this.#disposed = true;
  }

  /**
   * The permission prompt comes with the cards chunk (the page fetches it when idle after its
   * first paint, so it is there before an agent asks). A card shown before that waits for it with
   * a line saying so, then shows the prompt and tells the transcript (`env.permissionShown`), which
   * gives a pending one the focus as it would have.
   */
  #showPermission(entry: ToolEntry): void {
    const permission = entry.permission;
    if (permission === undefined) {
      return;
    }
    const cards = loadCards();
    if (cards instanceof Promise) {
      if (this.#waitingForPrompt === undefined) {
        this.#waitingForPrompt = el('div', { class: 'permission permission-loading muted', text: t('Permission requested: {0}', visibleTitle(entry.title)) });
        this.element.appendChild(this.#waitingForPrompt);
        cards.then(
          () => {
            this.#waitingForPrompt?.remove();
            this.#waitingForPrompt = undefined;
            if (!this.#disposed && this.#entry !== undefined) {
              this.#showPermission(this.#entry);
              this.#env.permissionShown?.();
            }
          },
          (error: unknown) => this.#waitingForPrompt?.replaceChildren(chunkError(t('permission prompt'), asError(error))),
        );
      }
      return;
    }
    this.#prompt ??= new cards.PermissionPrompt(this.#env);
    this.#prompt.update(permission, entry.title);
    if (this.#prompt.element.parentNode !== this.element) {
      this.element.appendChild(this.#prompt.element);
    }
  }

  #forcedOpen(): boolean {
    return this.#entry?.permission?.status === 'pending';
  }

  #expanded(): boolean {
    const entry = this.#entry;
    if (entry === undefined) {
      return false;
    }
    if (this.#forcedOpen()) {
      return true;
    }
    const pref = this.#env.ui.isExpanded(entry.id);
    if (pref !== undefined) {
      return pref;
    }
    return expandedKinds.has(entry.toolKind) || entry.status === 'failed' || entry.content.some((c) => c.type === 'diff' || c.type === 'terminal');
  }

  #render(): void {
    const entry = this.#entry;
    if (entry === undefined) {
      return;
    }
    const open = this.#expanded();
    this.#toggle.setAttribute('aria-expanded', String(open));
    this.#chevron.className = `codicon codicon-${open ? 'chevron-down' : 'chevron-right'}`;
    this.element.classList.toggle('expanded', open);
    const hasBody = entry.content.length > 0 || entry.rawInput !== undefined || entry.rawOutput !== undefined || commandOf(entry) !== undefined;
    this.element.classList.toggle('no-body', !hasBody);
    setHidden(this.#body, !open || !hasBody);
    if (open && hasBody) {
      this.#renderBody(entry);
    }
  }

  #renderStatus(entry: ToolEntry): void {
    clear(this.#status);
    this.#status.className = `tool-status status-${entry.status}`;
    const spin = entry.status === 'in_progress' ? 'codicon-modifier-spin' : '';
    this.#status.append(icon(statusIcons[entry.status], spin), el('span', { class: 'status-text', text: statusText(entry.status) }));
    // The agent sent no result: say how the client knows it was applied.
    this.#status.title = entry.confirmed === 'disk' ? t('Completed: the file holds the proposed change ({0} sent no result)', agentName(this.#env)) : statusText(entry.status);
    this.#duration.textContent = entry.endedAt !== undefined ? formatDuration(entry.endedAt - entry.startedAt) : '';
  }

  #renderLocations(entry: ToolEntry): void {
    clear(this.#locations);
    setHidden(this.#locations, entry.locations.length === 0);
    for (const loc of entry.locations) {
      const label = visibleLabel(loc.label);
      const b = el('button', { class: 'location', attrs: { type: 'button', title: t('Open {0}', label) } }, [icon('go-to-file'), el('span', { text: label })]);
      b.addEventListener('click', () => this.#env.actions.openLocation(loc.path, loc.line));
      this.#locations.appendChild(b);
    }
  }

  #renderBody(entry: ToolEntry): void {
    const command = commandOf(entry);
    setHidden(this.#command, command === undefined);
    this.#command.textContent = command !== undefined ? `$ ${command}` : '';

    // Content: keep every item that can show its new content; rebuild the others.
    const next: ContentItem[] = [];
    entry.content.forEach((content, index) => {
      const existing = this.#items[index];
      if (existing?.update(content) === true) {
        next.push(existing);
      } else {
        const fresh = createContentItem(content, index, entry.id, this.#env);
        if (existing !== undefined) {
          this.#contentBox.replaceChild(fresh.element, existing.element);
        } else {
          this.#contentBox.appendChild(fresh.element);
        }
        next.push(fresh);
      }
    });
    for (const extra of this.#items.slice(entry.content.length)) {
      extra.element.remove();
    }
    this.#items = next;

    if (!this.#bodyBuilt || this.#rawShown.input !== entry.rawInput || this.#rawShown.output !== entry.rawOutput) {
      clear(this.#raw);
      if (entry.rawInput !== undefined) {
        this.#raw.appendChild(this.#rawDetails(t('Raw input'), entry.rawInput, `${entry.id}:rawInput`));
      }
      if (entry.rawOutput !== undefined) {
        this.#raw.appendChild(this.#rawDetails(t('Raw output'), entry.rawOutput, `${entry.id}:rawOutput`));
      }
      this.#rawShown = { ...(entry.rawInput !== undefined ? { input: entry.rawInput } : {}), ...(entry.rawOutput !== undefined ? { output: entry.rawOutput } : {}) };
    }
    this.#bodyBuilt = true;
  }

  /** A collapsed `<details>`; the text is put in only when opened. */
  #rawDetails(label: string, text: string, key: string): HTMLElement {
    const pre = el('pre', { class: 'tool-raw-text' });
    const details = el('details', { class: 'raw-details' }, [el('summary', { text: label }), pre]);
    const fill = (): void => {
      if (details.open && pre.textContent === '') {
        pre.textContent = text;
      }
    };
    details.open = this.#env.ui.isExpanded(key) ?? false;
    fill();
    details.addEventListener('toggle', () => {
      if (details.open !== (this.#env.ui.isExpanded(key) ?? false)) {
        this.#env.ui.setExpanded(key, details.open);
      }
      fill();
    });
    return details;
  }
}

/** The shell command of an execute tool, from its raw input, when the title does not show it already. */
function commandOf(entry: ToolEntry): string | undefined {
  if (entry.toolKind !== 'execute' || entry.rawInput?.trimStart().startsWith('{') !== true) {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry.rawInput);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) {
    return undefined;
  }
  const value: unknown = (parsed as Record<string, unknown>).command;
  const command = typeof value === 'string' ? value : Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(' ') : undefined;
  if (command === undefined || command === '' || entry.title.includes(command)) {
    return undefined;
  }
  return visibleText(command.length > 2000 ? `${command.slice(0, 2000)}…` : command);
}
