import type { ChatSession } from '../../app/chatSession';
import type { PendingPermission } from '../../session/sessionController';
import type { DiffReviewer } from '../permissions/diffReview';

/** Opens the diff of a tool card's `diff` content; Allow/Reject in its title answer the card's pending permission. */
export async function openToolDiff(reviewer: DiffReviewer, chat: ChatSession, entryId: string, contentIndex: number, preserveFocus: boolean): Promise<void> {
  const entry = chat.controller.state.entries.find((e) => e.id === entryId);
  const c = entry?.kind === 'tool' ? entry.content[contentIndex] : undefined;
  if (entry?.kind !== 'tool' || c?.type !== 'diff') {
    return;
  }
  const requestId = entry.permission?.status === 'pending' ? entry.permission.requestId : undefined;
  await reviewer.show(c, {
    agentName: chat.agentName,
    preserveFocus,
    ...(requestId !== undefined ? { target: { kind: 'permission' as const, chat, requestId } } : {}),
  });
}

/** A permission is waiting: open the diff it proposes, per `hermes.review.openDiffs` (never for `onClick`). */
export async function openRequestedDiff(reviewer: DiffReviewer, chat: ChatSession, p: PendingPermission, mode: 'auto' | 'background' | 'onClick'): Promise<void> {
  const entry = chat.controller.state.entries.find((e) => e.kind === 'tool' && e.permission?.requestId === p.requestId);
  const diffIndex = entry?.kind === 'tool' ? entry.content.findIndex((c) => c.type === 'diff') : -1;
  if (entry !== undefined && diffIndex >= 0 && mode !== 'onClick') {
    await openToolDiff(reviewer, chat, entry.id, diffIndex, mode === 'background');
  }
}
