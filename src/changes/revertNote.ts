/** One thing the user undid of the agent's work, for the note sent with the next prompt. */
export type RevertNoteItem =
  | {
      readonly kind: 'hunk';
      readonly path: string;
      readonly turnId: number;
      /** 1-based line in the file before the turn where the change was (what is there again now). */
      readonly line: number;
      /** How many lines the agent had written there, and the first of them. */
      readonly agentLines: number;
      readonly agentPreview: string;
      readonly baseLines: number;
    }
  | { readonly kind: 'deleted'; readonly path: string; readonly turnId: number }
  | { readonly kind: 'recreated'; readonly path: string; readonly turnId: number }
  | { readonly kind: 'restored'; readonly path: string; readonly turnId: number };

const maxItems = 20;
const maxPreview = 60;

/**
 * The context note ("the user reverted these hunks: …") sent ahead of the next prompt, so the
 * agent does not redo what the user undid. Short: paths, lines and a preview, at most 20 items.
 */
export function formatRevertNote(items: readonly RevertNoteItem[], relative: (path: string) => string = (p) => p): string {
  if (items.length === 0) {
    return '';
  }
  const lines = items.slice(0, maxItems).map((it) => {
    const file = relative(it.path);
    switch (it.kind) {
      case 'hunk': {
        const where = it.baseLines > 1 ? `lines ${it.line}–${it.line + it.baseLines - 1}` : `line ${it.line}`;
        const were = it.agentLines === 1 ? 'was' : 'were';
        const what =
          it.agentLines === 0
            ? 'the lines you deleted were put back'
            : `your ${plural(it.agentLines, 'line')} starting "${preview(it.agentPreview)}" ${were} ${it.baseLines === 0 ? 'removed' : 'replaced by the previous text'}`;
        return `- ${file} ${it.baseLines === 0 ? `near line ${Math.max(1, it.line)}` : where} (turn ${it.turnId}): ${what}`;
      }
      case 'deleted':
        return `- ${file} (turn ${it.turnId}): the file you created was deleted`;
      case 'recreated':
        return `- ${file} (turn ${it.turnId}): the file you deleted was restored`;
      case 'restored':
        return `- ${file}: restored to how it was before turn ${it.turnId}`;
    }
  });
  if (items.length > maxItems) {
    lines.push(`- … and ${items.length - maxItems} more`);
  }
  return [
    'Note from the editor: since your last turn the user reverted some of your changes. They are no longer in the files; do not re-apply them unless asked.',
    ...lines,
  ].join('\n');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function preview(line: string): string {
  const t = line.replace(/\r?\n$/, '').trim();
  return t.length > maxPreview ? `${t.slice(0, maxPreview - 1)}…` : t;
}
