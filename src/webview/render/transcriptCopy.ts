import type { Transcript } from './transcript';

/**
 * Whether the page's selection takes in the whole transcript (select all, or a drag past its first
 * and last rows): it then reaches both spacers around the rows, which stand for the entries the
 * virtualized transcript has no DOM for. Such a copy is the host's (`transcript/copy`: the whole
 * conversation as Markdown); any other selection is copied as the browser does.
 */
export function copiesWholeTranscript(doc: Document, transcript: Transcript): boolean {
  const selection = doc.getSelection();
  if (selection === null || selection.rangeCount === 0 || selection.isCollapsed || transcript.extentOf.count === 0) {
    return false;
  }
  const range = selection.getRangeAt(0);
  const { above, below } = transcript.rows.spacers;
  return range.intersectsNode(above) && range.intersectsNode(below);
}
