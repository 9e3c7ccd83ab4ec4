import type * as acp from '@agentclientprotocol/sdk';
import type {
  BlockView,
  ConfigOptionView,
  EntryView,
  PartView,
  PermissionView,
  SessionHeaderView,
  SessionView,
  SelectView,
  ToolContentView,
} from '../protocol/sessionView';
import type { EntryOp } from '../protocol/webviewProtocol';
import { diffStats } from '../util/lineDiff';
import { diffEntries } from './entryDiff';
import type { AssistantEntry, Entry, MetaTerminal, SessionState, ToolEntry } from './sessionState';

/** What the view needs beyond the session state; supplied by the surface layer. */
export interface ViewContext {
  readonly agentName: string;
  readonly demo: boolean;
  readonly readOnly: boolean;
  readonly acceptsImages: boolean;
  readonly pendingPermissions: number;
  readonly status?: string;
  /** Context the next prompt will carry, shown (and removable) above the composer. */
  readonly contextNotes?: readonly { readonly key: string; readonly label: string; readonly text: string }[];
  readonly now: number;
  /** Workspace-relative form of an absolute path, for labels. */
  relativePath(path: string): string;
  /** What a turn changed in files that is still pending review (for the footer's restore buttons). */
  turnChanges?(turnId: number): { readonly files: number; readonly added: number; readonly removed: number } | undefined;
  /** Live output of a client-created terminal (terminal/create), if we own it. */
  terminal?(terminalId: string): { readonly output: string; readonly exitCode?: number | null; readonly signal?: string | null; readonly running: boolean } | undefined;
}

/** Tool text longer than this is sent as head + tail; the full text opens in an editor. */
export const maxToolTextChars = 16_000;
const headChars = 4_000;
const maxRawChars = 20_000;
const maxTerminalChars = 32_000;

/**
 * Projects session state into the webview's view model, and state changes into small patches.
 * Projections are cached per entry object (entries are immutable), so a patch costs only the
 * entries that changed; a growing assistant message becomes `appendText` ops carrying only the
 * new characters.
 */
export class ViewProjector {
  private readonly cache = new WeakMap<Entry, EntryView>();
  private readonly statsCache = new WeakMap<object, { added: number; removed: number }>();
  private lastHeader: SessionHeaderView | undefined;

  constructor(private permissionTimeoutMs?: number) {}

  setPermissionTimeout(ms: number | undefined): void {
    this.permissionTimeoutMs = ms;
  }

  snapshot(state: SessionState, ctx: ViewContext): SessionView {
    const header = this.header(state, ctx);
    this.lastHeader = header;
    return { header, entries: state.entries.map((e) => this.entry(e, ctx)) };
  }

  /** Ops turning the view of `prev` into the view of `next`, plus the header when it changed. */
  patch(prev: SessionState, next: SessionState, ctx: ViewContext): { ops: EntryOp[]; header?: SessionHeaderView } {
    const ops: EntryOp[] = [];
    for (const change of diffEntries(prev.entries, next.entries)) {
      if (change.op === 'remove') {
        ops.push(change);
        continue;
      }
      if (change.op === 'replace') {
        const before = prev.entries[change.index];
        if (before?.kind === 'assistant' && change.entry.kind === 'assistant') {
          const appended = appendOps(before, change.entry, change.index);
          if (appended !== undefined) {
            ops.push(...appended);
            continue;
          }
        }
      }
      ops.push({ op: change.op, index: change.index, entry: this.entry(change.entry, ctx) });
    }
    const header = this.header(next, ctx);
    if (this.lastHeader !== undefined && sameHeader(this.lastHeader, header)) {
      return { ops };
    }
    this.lastHeader = header;
    return { ops, header };
  }

  /** Re-projects one entry (e.g. its live terminal output changed outside the session state). */
  invalidate(entry: Entry): void {
    this.cache.delete(entry);
  }

  entry(e: Entry, ctx: ViewContext): EntryView {
    const cached = this.cache.get(e);
    if (cached !== undefined) {
      return cached;
    }
    const view = this.project(e, ctx);
    this.cache.set(e, view);
    return view;
  }

  private project(e: Entry, ctx: ViewContext): EntryView {
    switch (e.kind) {
      case 'user':
        return { kind: 'user', id: e.id, blocks: e.blocks.map(blockView), origin: e.origin, excluded: e.excluded === true };
      case 'assistant':
        return { kind: 'assistant', id: e.id, parts: partsView(e) };
      case 'tool':
        return this.toolView(e, ctx);
      case 'plan':
        return { kind: 'plan', id: e.id, entries: e.entries.map((p) => ({ content: p.content, priority: p.priority, status: p.status })) };
      case 'notice':
        return {
          kind: 'notice',
          id: e.id,
          level: e.level,
          title: e.title,
          actions: e.actions ?? [],
          ...(e.detail !== undefined ? { detail: e.detail } : {}),
          ...(e.forkFrom !== undefined ? { forkFrom: e.forkFrom } : {}),
        };
      case 'turnEnd': {
        const changes = ctx.turnChanges?.(e.turnId);
        return {
          kind: 'turnEnd',
          id: e.id,
          turnId: e.turnId,
          outcome: e.outcome,
          durationMs: e.durationMs,
          ...(e.usage !== undefined ? { usage: e.usage } : {}),
          ...(e.error !== undefined ? { error: e.error } : {}),
          ...(changes !== undefined && changes.files > 0 ? { changes } : {}),
        };
      }
    }
  }

  private toolView(t: ToolEntry, ctx: ViewContext): EntryView {
    const permission: PermissionView | undefined =
      t.permission === undefined
        ? undefined
        : {
            requestId: t.permission.requestId,
            status: t.permission.status,
            options: t.permission.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
            requestedAt: t.permission.requestedAt,
            ...(t.permission.answeredAt !== undefined ? { answeredAt: t.permission.answeredAt } : {}),
            ...(t.permission.optionId !== undefined ? { optionId: t.permission.optionId } : {}),
            ...(t.permission.answeredBy !== undefined ? { answeredBy: t.permission.answeredBy } : {}),
            ...(t.permission.check !== undefined ? { check: t.permission.check } : {}),
            ...(t.permission.remembered !== undefined ? { remembered: t.permission.remembered } : {}),
            ...(t.permission.status === 'pending' && this.permissionTimeoutMs !== undefined
              ? { expiresAt: t.permission.requestedAt + this.permissionTimeoutMs }
              : {}),
          };
    const content: ToolContentView[] = t.content.map((c) => this.contentView(c, t, ctx));
    const rawInput = rawJson(t.rawInput);
    const rawOutput = rawJson(t.rawOutput);
    return {
      kind: 'tool',
      id: t.id,
      toolCallId: t.toolCallId,
      title: t.title,
      toolKind: t.toolKind,
      status: t.status,
      locations: t.locations.map((l) => {
        const line = typeof l.line === 'number' ? l.line : undefined;
        return { path: l.path, label: `${ctx.relativePath(l.path)}${line !== undefined ? `:${line}` : ''}`, ...(line !== undefined ? { line } : {}) };
      }),
      content: [...content, ...metaTerminalsWithoutContent(t).map((m) => terminalView(m.terminalId, m, false))],
      startedAt: t.at,
      ...(t.endedAt !== undefined ? { endedAt: t.endedAt } : {}),
      ...(rawInput !== undefined ? { rawInput } : {}),
      ...(rawOutput !== undefined ? { rawOutput } : {}),
      ...(permission !== undefined ? { permission } : {}),
    };
  }

  private contentView(c: acp.ToolCallContent, t: ToolEntry, ctx: ViewContext): ToolContentView {
    switch (c.type) {
      case 'content':
        if (c.content.type === 'text') {
          const text = c.content.text;
          return { type: 'text', text: clipMiddle(text), fullLength: text.length, markdown: !hasAnsi(text) };
        }
        return { type: 'block', block: blockView(c.content) };
      case 'diff': {
        let stats = this.statsCache.get(c);
        if (stats === undefined) {
          stats = diffStats(c.oldText ?? '', c.newText);
          this.statsCache.set(c, stats);
        }
        return {
          type: 'diff',
          path: c.path,
          label: ctx.relativePath(c.path),
          isNew: c.oldText === undefined || c.oldText === null || c.oldText === '',
          added: stats.added,
          removed: stats.removed,
          multiFile: isMultiFilePatch(c),
        };
      }
      case 'terminal': {
        const own = ctx.terminal?.(c.terminalId);
        if (own !== undefined) {
          return terminalView(c.terminalId, own, own.running);
        }
        const meta = t.metaTerminals?.find((m) => m.terminalId === c.terminalId);
        return terminalView(c.terminalId, meta ?? { output: '' }, meta !== undefined && meta.exitCode === undefined);
      }
    }
  }

  private header(state: SessionState, ctx: ViewContext): SessionHeaderView {
    // ACP session-config-options: a client that understands `configOptions` uses them alone when an
    // agent sends them with the legacy `modes`/`models` (Claude sends both: four selectors otherwise).
    const legacy = state.configOptions.length === 0;
    return {
      hostTime: ctx.now,
      agentName: ctx.agentName,
      demo: ctx.demo,
      phase: state.phase,
      plan: state.plan,
      configOptions: state.configOptions.map(configOptionView).filter((o): o is ConfigOptionView => o !== undefined),
      commands: state.commands.map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.input !== undefined && c.input !== null && 'hint' in c.input ? { hint: c.input.hint } : {}),
      })),
      pendingPermissions: ctx.pendingPermissions,
      contextNotes: ctx.contextNotes ?? [],
      readOnly: ctx.readOnly,
      acceptsImages: ctx.acceptsImages,
      ...(state.sessionId !== undefined ? { sessionId: state.sessionId } : {}),
      ...(state.title !== undefined ? { title: state.title } : {}),
      ...(state.turn !== undefined ? { turnStartedAt: state.turn.startedAt } : {}),
      ...(state.usage !== undefined ? { usage: state.usage } : {}),
      ...(legacy && state.modes !== undefined && state.modes.availableModes.length > 0
        ? {
            modes: {
              current: state.modes.currentModeId,
              options: state.modes.availableModes.map((m) => ({ id: m.id, name: m.name, ...(typeof m.description === 'string' ? { description: m.description } : {}) })),
            },
          }
        : {}),
      ...(legacy && state.models !== undefined
        ? {
            models: {
              current: state.models.currentModelId,
              options: state.models.availableModels.map((m) => ({ id: m.modelId, name: m.name, ...(m.description !== undefined ? { description: m.description } : {}) })),
            },
          }
        : {}),
      ...(ctx.status !== undefined ? { status: ctx.status } : {}),
    };
  }
}

/** `appendText` ops when `next` only grew `prev` (the reducer only ever extends the last part). */
function appendOps(prev: AssistantEntry, next: AssistantEntry, index: number): EntryOp[] | undefined {
  const a = prev.parts;
  const b = next.parts;
  if (b.length < a.length || a.length === 0) {
    return undefined;
  }
  for (let i = 0; i < a.length - 1; i++) {
    if (a[i] !== b[i]) {
      return undefined;
    }
  }
  const ops: EntryOp[] = [];
  const lastIndex = a.length - 1;
  const before = a[lastIndex];
  const after = b[lastIndex];
  if (before === undefined || after === undefined) {
    return undefined;
  }
  if (before !== after) {
    // Only pure growth of the last part is an append; anything else (a thought that ended) re-sends the entry.
    if (before.kind === 'block' || after.kind === 'block' || after.kind !== before.kind || after.text.length < before.text.length || after.endedAt !== before.endedAt) {
      return undefined;
    }
    ops.push({ op: 'appendText', index, part: lastIndex, kind: before.kind, text: after.text.slice(before.text.length) });
  }
  for (let i = a.length; i < b.length; i++) {
    const p = b[i];
    if (p === undefined || p.kind === 'block') {
      return undefined;
    }
    ops.push({ op: 'appendText', index, part: i, kind: p.kind, text: p.text, at: p.at });
  }
  return ops;
}

function partsView(e: AssistantEntry): PartView[] {
  return e.parts.map((p, i): PartView => {
    if (p.kind === 'block') {
      return { kind: 'block', block: blockView(p.block) };
    }
    if (p.kind === 'thought') {
      const endedAt = p.endedAt ?? e.parts[i + 1]?.at;
      return { kind: 'thought', text: p.text, startedAt: p.at, ...(endedAt !== undefined ? { endedAt } : {}) };
    }
    return { kind: 'text', text: p.text };
  });
}

export function blockView(b: acp.ContentBlock): BlockView {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'image':
      return { type: 'image', mimeType: b.mimeType, data: b.data, ...(typeof b.uri === 'string' ? { uri: b.uri } : {}) };
    case 'audio':
      return { type: 'audio', mimeType: b.mimeType };
    case 'resource_link':
      return { type: 'resource_link', uri: b.uri, name: b.name, ...(typeof b.title === 'string' ? { title: b.title } : {}) };
    case 'resource':
      return { type: 'resource', uri: b.resource.uri, ...('text' in b.resource ? { text: clipMiddle(b.resource.text) } : {}) };
  }
}

function configOptionView(o: acp.SessionConfigOption): ConfigOptionView | undefined {
  const category = typeof o.category === 'string' ? { category: o.category } : {};
  if (o.type === 'boolean') {
    return { type: 'boolean', id: o.id, name: o.name, value: o.currentValue, ...category };
  }
  if (o.type === 'select') {
    const options: SelectView['options'][number][] = [];
    for (const item of o.options) {
      if ('options' in item) {
        for (const inner of item.options) {
          options.push({ id: inner.value, name: `${item.name}: ${inner.name}`, ...(typeof inner.description === 'string' ? { description: inner.description } : {}) });
        }
      } else {
        options.push({ id: item.value, name: item.name, ...(typeof item.description === 'string' ? { description: item.description } : {}) });
      }
    }
    return { type: 'select', id: o.id, name: o.name, select: { current: o.currentValue, options }, ...category };
  }
  // ACP: clients ignore config option types they do not know.
  return undefined;
}

function terminalView(
  terminalId: string,
  t: { readonly output: string; readonly exitCode?: number | null; readonly signal?: string | null },
  running: boolean,
): ToolContentView {
  const output = t.output.length > maxTerminalChars ? t.output.slice(t.output.length - maxTerminalChars) : t.output;
  return {
    type: 'terminal',
    terminalId,
    output,
    fullLength: t.output.length,
    running,
    ...(t.exitCode !== undefined ? { exitCode: t.exitCode } : {}),
    ...(t.signal !== undefined ? { signal: t.signal } : {}),
  };
}

function metaTerminalsWithoutContent(t: ToolEntry): readonly MetaTerminal[] {
  const terms = t.metaTerminals;
  if (terms === undefined) {
    return [];
  }
  return terms.filter((m) => !t.content.some((c) => c.type === 'terminal' && c.terminalId === m.terminalId));
}

export function clipMiddle(text: string, max = maxToolTextChars): string {
  if (text.length <= max) {
    return text;
  }
  const tail = max - headChars;
  return `${text.slice(0, headChars)}\n… ${text.length - max} characters not shown …\n${text.slice(text.length - tail)}`;
}

function rawJson(value: unknown): string | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value === 'object' && Object.keys(value).length === 0) {
    return undefined;
  }
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  } catch {
    text = '[value that cannot be shown as JSON]';
  }
  return text.length > maxRawChars ? `${text.slice(0, maxRawChars)}\n…` : text;
}

function hasAnsi(text: string): boolean {
  return text.includes('\u001b[');
}

/** Hermes V4A patches: several comma-joined paths in `path`, raw patch text in `newText`. */
function isMultiFilePatch(c: acp.Diff): boolean {
  return /,\s*\S/.test(c.path) && (c.newText.startsWith('*** Begin Patch') || c.path.split(',').length > 1);
}

function sameHeader(a: SessionHeaderView, b: SessionHeaderView): boolean {
  for (const key of Object.keys(b) as (keyof SessionHeaderView)[]) {
    if (key === 'hostTime') {
      continue;
    }
    if (a[key] !== b[key] && JSON.stringify(a[key]) !== JSON.stringify(b[key])) {
      return false;
    }
  }
  return Object.keys(a).length === Object.keys(b).length;
}
