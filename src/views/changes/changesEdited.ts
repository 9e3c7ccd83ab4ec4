import * as fs from 'node:fs';
import type { ChangeTracker } from '../../changes/changeTracker';
import type { SnapshotStore } from '../../changes/snapshotStore';
import type { ChatSession } from '../../app/chatSession';
import { openDocument } from './workspaceText';

/**
 * The Changes view's "edited since": whether a pending hunk of a file's change in a turn was
 * edited since the agent wrote it. Remembered while the document's version (or the file's size
 * and mtime) and the tracker are unchanged: the view refreshes often, and only a yes/no is kept,
 * not the text.
 */
export class EditedSinceCache {
  private readonly editedCache = new Map<string, { readonly key: string; readonly edited: boolean }>();

  constructor(
    private readonly store: SnapshotStore,
    private readonly readCurrent: (filePath: string) => Promise<string | undefined>,
  ) {}

  async editedSince(chat: ChatSession, tracker: ChangeTracker, turnId: number, filePath: string): Promise<boolean> {
    const doc = openDocument(filePath);
    let content: string;
    if (doc !== undefined) {
      content = `doc:${doc.version}`;
    } else {
      try {
        const st = await fs.promises.stat(filePath);
        content = `disk:${st.size}:${st.mtimeMs}`;
      } catch {
        content = 'absent';
      }
    }
    const id = `${chat.id}/${turnId}/${filePath}`;
    const key = `${content}|${tracker.version}`;
    const hit = this.editedCache.get(id);
    if (hit?.key === key) {
      return hit.edited;
    }
    const f = tracker.file(turnId, filePath);
    const current = await this.readCurrent(filePath);
    await this.store.load(tracker.baseRefs({ turnId, path: filePath }));
    const analysis = tracker.analyze(turnId, filePath, current);
    const edited = analysis?.hunks.some((h) => h.status === 'modified' && f?.kept.has(h.hunk.key) !== true && f?.reverted.has(h.hunk.key) !== true) === true;
    this.editedCache.set(id, { key, edited });
    return edited;
  }

  /** Forgets what was remembered for a chat's files. */
  forgetChat(chat: ChatSession): void {
    for (const id of [...this.editedCache.keys()]) {
      if (id.startsWith(`${chat.id}/`)) {
        this.editedCache.delete(id);
      }
    }
  }

  clear(): void {
    this.editedCache.clear();
  }
}
