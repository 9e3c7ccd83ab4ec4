import type * as acp from '@agentclientprotocol/sdk';
import type { EntryView, PermissionView, ToolContentView, ToolStatusView } from '../protocol/sessionView';
import { blockView, clipMiddle } from './blockView';
import type { MetaTerminal, ToolEntry } from './sessionState';
import type { ViewContext } from './viewContext';

const maxRawChars = 20_000;
const maxTerminalChars = 32_000;

/** What a tool card's projection needs from the projector: its caches and the agent's permission deadline. */
export interface ToolViewDeps {
  readonly permissionTimeoutMs: number | undefined;
  /** Lines added and removed by a diff (cached per diff object). */
  diffStats(diff: acp.Diff): { readonly added: number; readonly removed: number };
}

/** A tool call's card: status, locations, content (clipped), raw input/output, its permission request. */
export function toolView(t: ToolEntry, ctx: ViewContext, deps: ToolViewDeps): EntryView {
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
          ...(t.permission.status === 'pending' && deps.permissionTimeoutMs !== undefined
            ? { expiresAt: t.permission.requestedAt + deps.permissionTimeoutMs }
            : {}),
        };
  const content: ToolContentView[] = t.content.map((c) => contentView(c, t, ctx, deps));
  const rawInput = rawJson(t.rawInput);
  const rawOutput = rawJson(t.rawOutput);
  return {
    kind: 'tool',
    id: t.id,
    toolCallId: t.toolCallId,
    title: t.title,
    toolKind: t.toolKind,
    status: displayStatus(t),
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
    ...(t.progress !== undefined ? { progress: t.progress } : {}),
    ...(t.confirmed !== undefined ? { confirmed: t.confirmed } : {}),
  };
}

/** The status a card shows: the call's, or `denied` (see {@link denied}). */
export function displayStatus(t: ToolEntry): ToolStatusView {
  return denied(t) ? 'denied' : t.status;
}

/**
 * The user (or a rule) rejected the call's permission and the agent did not run it: "Denied", a
 * choice rather than a failure (Hermes reports a denied edit `failed` on replay, or nothing at all).
 */
function denied(t: ToolEntry): boolean {
  const p = t.permission;
  if (p?.status !== 'selected' || t.status === 'completed' || t.status === 'pending' || t.status === 'in_progress') {
    return false;
  }
  const kind = p.options.find((o) => o.optionId === p.optionId)?.kind;
  return kind === 'reject_once' || kind === 'reject_always';
}

function contentView(c: acp.ToolCallContent, t: ToolEntry, ctx: ViewContext, deps: ToolViewDeps): ToolContentView {
  switch (c.type) {
    case 'content':
      if (c.content.type === 'text') {
        const text = c.content.text;
        const shown = clipMiddle(text);
        // A shortened text (head and tail) is no Markdown document — the cut can fall inside a fence
        // or a table — and what gets that long is logs: it shows as preformatted text, which costs
        // the webview one text node instead of a lex, a sanitize and an element per line (R8: the
        // 16,000 shown characters of a 50 MB log took the chat's script 52–104 ms as Markdown).
        return { type: 'text', text: shown, fullLength: text.length, markdown: shown === text && !hasAnsi(text) };
      }
      return { type: 'block', block: blockView(c.content) };
    case 'diff': {
      const stats = deps.diffStats(c);
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
