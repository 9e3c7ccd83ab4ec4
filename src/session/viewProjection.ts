import type * as acp from '@agentclientprotocol/sdk';
import type { EntryOutline, EntryView, PartView, SessionHeaderView, SessionView } from '../protocol/sessionView';
import type { EntryOp } from '../protocol/webviewProtocol';
import { diffStats } from '../util/lineDiff';
import { blockView } from './blockView';
import { diffEntries } from './entryDiff';
import { headerView, sameHeader } from './headerView';
import { questionView } from './questionView';
import type { AssistantEntry, Entry, SessionState } from './sessionState';
import { toolView } from './toolView';
import type { ViewContext } from './viewContext';
import { fitRange, outlineOf, type ViewLimits } from './viewWindow';

export type { ViewContext } from './viewContext';

/**
 * Projects session state into the webview's view model, and state changes into small patches.
 * Projections are cached per entry object (entries are immutable), so a patch costs only the
 * entries that changed; a growing assistant message becomes `appendText` ops carrying only the
 * new characters.
 */
export class ViewProjector {
  private readonly cache = new WeakMap<Entry, EntryView>();
  private readonly statsCache = new WeakMap<object, { added: number; removed: number }>();
  private readonly outlines = new WeakMap<Entry, EntryOutline>();
  private lastHeader: SessionHeaderView | undefined;

  constructor(private permissionTimeoutMs?: number) {}

  setPermissionTimeout(ms: number | undefined): void {
    this.permissionTimeoutMs = ms;
  }

  /**
   * The whole view; with `limits`, a long transcript's last entries whole and the earlier ones as
   * outlines (`SessionView.earlier`), which the webview asks for when it scrolls near them.
   */
  snapshot(state: SessionState, ctx: ViewContext, limits?: ViewLimits): SessionView {
    const header = headerView(state, ctx);
    this.lastHeader = header;
    if (limits === undefined) {
      return { header, entries: state.entries.map((e) => this.entry(e, ctx)) };
    }
    const { from, views } = fitRange(state.entries, 0, state.entries.length, limits, (e) => this.entry(e, ctx), true);
    if (from === 0) {
      return { header, entries: views };
    }
    const earlier: EntryOutline[] = [];
    for (let i = 0; i < from; i++) {
      const e = state.entries[i];
      if (e !== undefined) {
        earlier.push(this.outline(e));
      }
    }
    return { header, entries: views, earlier };
  }

  /** The views of entries `from`…`to - 1` that fit `limits` (`entries/get`). */
  range(state: SessionState, ctx: ViewContext, from: number, to: number, limits: ViewLimits): { from: number; views: EntryView[] } {
    return fitRange(state.entries, from, to, limits, (e) => this.entry(e, ctx));
  }

  private outline(e: Entry): EntryOutline {
    let o = this.outlines.get(e);
    if (o === undefined) {
      o = outlineOf(e);
      this.outlines.set(e, o);
    }
    return o;
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
    const header = headerView(next, ctx);
    if (this.lastHeader !== undefined && sameHeader(this.lastHeader, header)) {
      return { ops };
    }
    this.lastHeader = header;
    return { ops, header };
  }

  /**
   * Re-projects one entry whose view depends on something outside the session state (a live
   * terminal's output, the files its turn changed): true when the view the webview was sent is
   * not what it would be now. An entry never projected whole (outlined, or not sent yet) is
   * projected fresh when it is needed, so it has nothing to re-send.
   */
  reproject(entry: Entry, ctx: ViewContext): boolean {
    const before = this.cache.get(entry);
    if (before === undefined) {
      return false;
    }
    const view = this.project(entry, ctx);
    // Views are plain JSON built in a fixed key order: equal views serialize equally (and
    // JSON.stringify is far cheaper than a generic deep comparison in the extension host).
    if (JSON.stringify(before) === JSON.stringify(view)) {
      return false;
    }
    this.cache.set(entry, view);
    return true;
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
        return {
          kind: 'user',
          id: e.id,
          blocks: e.blocks.map(blockView),
          origin: e.origin,
          excluded: e.excluded === true,
          ...(e.mergedWith !== undefined ? { mergedWith: { reason: e.mergedWith.reason, text: e.mergedWith.text } } : {}),
        };
      case 'assistant':
        return { kind: 'assistant', id: e.id, parts: partsView(e) };
      case 'tool':
        return toolView(e, ctx, { permissionTimeoutMs: this.permissionTimeoutMs, diffStats: (c) => this.diffStats(c) });
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
          ...(e.log !== undefined ? { log: e.log } : {}),
          ...(e.forkFrom !== undefined ? { forkFrom: e.forkFrom } : {}),
          ...(e.suggestions !== undefined ? { suggestions: e.suggestions } : {}),
        };
      case 'question':
        return questionView(e);
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
          ...(e.provider !== undefined ? { provider: e.provider } : {}),
          ...(e.outcome === 'error' ? { retry: true, retryIn: e.heldFrom !== undefined ? 'newSession' : 'session' } : {}),
          ...(e.heldFrom !== undefined ? { startFresh: e.heldFrom } : {}),
          ...(changes !== undefined && changes.files > 0 ? { changes } : {}),
        };
      }
    }
  }

  private diffStats(c: acp.Diff): { added: number; removed: number } {
    let stats = this.statsCache.get(c);
    if (stats === undefined) {
      stats = diffStats(c.oldText ?? '', c.newText);
      this.statsCache.set(c, stats);
    }
    return stats;
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

