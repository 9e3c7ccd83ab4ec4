import type * as acp from '@agentclientprotocol/sdk';
import type { SessionController } from '../session/sessionController';
import type { Entry, ToolEntry } from '../session/sessionState';

/** A file's text now, or undefined when it is absent or cannot be read as text. */
export type FileText = (path: string) => Promise<string | undefined>;

/**
 * Edits the agent never closed, ended as `completed` when the file shows they were applied.
 *
 * Hermes 0.19 sends no `tool_call_update` for `patch` and `write_file` — allowed, in `accept_edits`
 * mode, or for a new file alike (test/fixtures/hermes/edits.jsonl) — so the turn's end leaves those
 * calls "ended without a result". The client can see more: the call (or the permission request it
 * joined) carries the proposed text as a diff, and when the permission was allowed (or none was
 * asked) and every file it names now holds that text, the edit was applied. Anything else (denied,
 * a file that does not match, no diff) stays as it was. The chat and the runner both run this right
 * after the turn (app/turnRun.ts), so a card and a `tool_result` say the same.
 */
export async function confirmAppliedEdits(controller: SessionController, turnId: number | undefined, read: FileText, now: () => number): Promise<void> {
  const candidates = controller.state.entries.filter((e): e is ToolEntry => isCandidate(e, turnId));
  const confirmed: string[] = [];
  for (const call of candidates) {
    const diffs = call.content.filter((c): c is acp.Diff & { type: 'diff' } => c.type === 'diff');
    const checks = await Promise.all(diffs.map(async (d) => applied(await read(d.path).catch(() => undefined), d)));
    if (diffs.length > 0 && checks.every(Boolean)) {
      confirmed.push(call.id);
    }
  }
  if (confirmed.length > 0) {
    controller.dispatch({ type: 'toolsConfirmed', entryIds: confirmed, at: now() });
  }
}

/** An edit of this turn still without a result, that was allowed or never asked about. */
function isCandidate(e: Entry, turnId: number | undefined): boolean {
  if (e.kind !== 'tool' || e.status !== 'ended' || e.toolKind !== 'edit' || (turnId !== undefined && e.turnId !== turnId)) {
    return false;
  }
  const p = e.permission;
  if (p === undefined) {
    return true;
  }
  const option = p.status === 'selected' ? p.options.find((o) => o.optionId === p.optionId) : undefined;
  return option?.kind === 'allow_once' || option?.kind === 'allow_always';
}

/** Whether a file's text shows the diff applied: the whole new text, or a snippet's new side in place of its old. */
export function applied(text: string | undefined, diff: { readonly oldText?: string | null; readonly newText: string }): boolean {
  if (text === undefined) {
    return false;
  }
  const now = text.replace(/\r\n/g, '\n');
  const after = diff.newText.replace(/\r\n/g, '\n');
  if (now === after) {
    return true;
  }
  const before = (diff.oldText ?? '').replace(/\r\n/g, '\n');
  // A snippet diff (opencode, Claude): the new side is there and the old side is gone.
  return after !== '' && before !== '' && now.includes(after) && !now.includes(before);
}
