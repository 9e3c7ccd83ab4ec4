import type { EntryView } from '../protocol/sessionView';
import { maxFindEntries, type FindResult } from '../protocol/webviewProtocol';

/**
 * The text an entry shows, for "Find in chat" (the webview's Ctrl+F): what a reader can find on
 * the card, collapsed parts included (the webview opens them to show a match). Markdown is searched
 * as written: `**bold**` finds "bold". The webview walks these matches in the row's text, leaving out
 * what a card shows besides (its status, duration, command, raw input and output: `unsearched` in
 * src/webview/render/findInChat.ts): what this adds or drops, that list follows.
 */
export function searchableText(view: EntryView): string {
  switch (view.kind) {
    case 'user':
      return view.blocks.map((b) => (b.type === 'text' ? b.text : b.type === 'resource_link' ? b.name : b.type === 'resource' ? b.uri : '')).join('\n');
    case 'assistant':
      return view.parts.map((p) => (p.kind === 'block' ? '' : p.text)).join('\n');
    case 'tool': {
      const parts = [view.progress?.label ?? view.title];
      for (const l of view.locations) {
        parts.push(l.label);
      }
      for (const c of view.content) {
        parts.push(c.type === 'text' ? c.text : c.type === 'terminal' ? c.output : c.type === 'diff' ? c.label : '');
      }
      return parts.join('\n');
    }
    case 'notice':
      return `${view.title}\n${view.detail ?? ''}`;
    case 'turnEnd':
      return view.error ?? '';
    case 'plan':
      return view.entries.map((p) => p.content).join('\n');
    case 'question':
      return view.question.kind === 'clarify' ? view.question.questions.map((q) => [q.text, ...q.choices].join('\n')).join('\n') : view.question.prompt;
  }
}

/** Non-overlapping occurrences of `needle` (already lower-cased) in `text`, case-insensitively. */
export function countMatches(text: string, needle: string): number {
  if (needle === '') {
    return 0;
  }
  const hay = text.toLowerCase();
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) {
    n++;
  }
  return n;
}

/** Every entry whose shown text holds `query`, in order, with its count (at most `maxFindEntries` entries listed). */
export function findInViews(count: number, view: (index: number) => EntryView | undefined, query: string, seq: number): FindResult {
  const needle = query.toLowerCase();
  const matches: { index: number; id: string; count: number }[] = [];
  let total = 0;
  if (needle.trim() === '') {
    return { seq, matches, total };
  }
  for (let index = 0; index < count; index++) {
    const v = view(index);
    if (v === undefined) {
      continue;
    }
    const n = countMatches(searchableText(v), needle);
    if (n > 0) {
      total += n;
      if (matches.length < maxFindEntries) {
        matches.push({ index, id: v.id, count: n });
      }
    }
  }
  return { seq, matches, total };
}
