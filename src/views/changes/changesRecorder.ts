import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { hostSemantics, normalizeDriveLetter } from '../../util/paths';
import * as vscode from 'vscode';
import type { ChangeTracker } from '../../changes/changeTracker';
import { readDiskText, type DiskText } from '../../changes/diskText';
import type { SnapshotStore } from '../../changes/snapshotStore';
import { fileMentions, textBefore, type FileMention } from '../../changes/toolChanges';
import { sessionUpdatesOf } from '../../session/sessionActions';
import type { SessionChange } from '../../session/sessionController';
import type { ChatSession } from '../../app/chatSession';
import type { WriteRecord } from '../workspaceFileSystem';

/** What a turn has in flight until it is confirmed (a next turn may start before that). */
export interface TurnWork {
  readonly turnId: number;
  readonly watchers: Map<string, vscode.Disposable>;
  readonly timers: Map<string, NodeJS.Timeout>;
}

export interface ChatState {
  readonly chat: ChatSession;
  readonly tracker: ChangeTracker;
  closed: boolean;
  /** The note we put into the chat's pending context (cleared when a prompt carries it). */
  noteSent: boolean;
  readonly subscriptions: vscode.Disposable[];
  readonly work: Map<number, TurnWork>;
  /** Snapshots and writes of the running turn, in the order they happened (each batch reads the disk asynchronously). */
  queue: Promise<void>;
}

const maxWatchersPerTurn = 500;

export interface ChangesRecorderOptions {
  readonly store: SnapshotStore;
  readonly maxFileBytes: number;
}

/**
 * Records a chat's turns into its {@link ChangeTracker}, fed from the session's events (prompt,
 * tool calls with diffs and locations, permission diffs, turn end), from writes through
 * `fs/write_text_file`, and from file watchers on the files a running turn names (agents like
 * Hermes write files themselves after a permission prompt).
 */
export class ChangesRecorder {
  constructor(private readonly options: ChangesRecorderOptions) {}

  /** The chat closed: its running turns end where they are. */
  endAll(s: ChatState): void {
    for (const w of [...s.work.values()]) {
      this.stopWatching(w);
      s.tracker.endTurn(w.turnId);
    }
    s.work.clear();
  }

  /** The chat is forgotten: its watchers stop. */
  stopAll(s: ChatState): void {
    for (const w of s.work.values()) {
      this.stopWatching(w);
    }
    s.work.clear();
  }

  /** One change of the chat's session: a prompt opens a turn, updates and permissions name files, the turn's end confirms them. */
  onSessionChange(s: ChatState, change: SessionChange): void {
    const a = change.action;
    switch (a.type) {
      case 'promptSubmitted':
        // The note (if any) went out as context with this prompt.
        if (s.noteSent) {
          s.noteSent = false;
          s.tracker.clearNote();
        }
        s.tracker.beginTurn(a.turnId, promptLabel(a.blocks));
        s.work.set(a.turnId, { turnId: a.turnId, watchers: new Map(), timers: new Map() });
        return;
      case 'updateReceived':
      case 'updatesReceived': {
        if (!s.tracker.running) {
          return;
        }
        // Every file a batch of updates names is snapshotted in one go (see onMentions).
        const mentions = sessionUpdatesOf(a).flatMap((u) => {
          if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') {
            return [];
          }
          const entry = change.next.entries.find((e) => e.kind === 'tool' && e.toolCallId === u.toolCallId);
          return fileMentions(u, entry?.kind === 'tool' ? entry.toolKind : undefined);
        });
        void this.onMentions(s, mentions);
        return;
      }
      case 'permissionRequested':
        if (s.tracker.running) {
          // The agent may write as soon as it is allowed (a rule answers at once): the answer
          // waits until the files it names are snapshotted.
          const snapshotted = this.onMentions(s, fileMentions(a.toolCall), 'permission');
          if (snapshotted !== undefined) {
            s.chat.controller.holdAnswer(a.requestId, snapshotted);
          }
        }
        return;
      case 'turnEnded':
      case 'turnFailed':
        void this.finishTurn(s, a.turnId);
        return;
      case 'agentExited': {
        const running = s.tracker.runningTurnId;
        if (running !== undefined) {
          void this.finishTurn(s, running);
        }
        return;
      }
      default:
        return;
    }
  }

  /**
   * A running turn names files it changes: snapshot each one (disk, or the diff's old side when
   * the agent already wrote it), and watch it so direct disk writes are seen; the after text is
   * confirmed from disk when the turn ends. The files of one batch of updates are resolved and
   * read together, asynchronously (the extension host never waits for the disk during a turn);
   * batches apply in order. An agent that writes only once allowed cannot race the read: the
   * permission's answer waits for it (`holdAnswer`). Resolves when the batch is recorded.
   */
  private onMentions(s: ChatState, mentions: readonly FileMention[], source?: 'permission'): Promise<void> | undefined {
    const turnId = s.tracker.runningTurnId;
    const work = turnId !== undefined ? s.work.get(turnId) : undefined;
    if (turnId === undefined || work === undefined || mentions.length === 0) {
      return undefined;
    }
    return this.enqueue(s, async () => {
      const resolved = await Promise.all(mentions.map(async (m) => ({ m, p: await this.resolve(m.path, s.chat.cwd) })));
      const unseen = [...new Set(resolved.flatMap(({ p }) => (p !== undefined && !s.tracker.hasFile(p, turnId) ? [p] : [])))];
      const disks = new Map(await Promise.all(unseen.map(async (p) => [p, await this.readDisk(p)] as const)));
      await this.options.store.load(s.tracker.baseRefs({ turnId }));
      for (const { m, p } of resolved) {
        if (p !== undefined && s.tracker.isOpen(turnId)) {
          this.recordMention(s, work, turnId, p, m, source, disks.get(p));
        }
      }
    });
  }

  private recordMention(s: ChatState, work: TurnWork, turnId: number, p: string, m: FileMention, source: 'permission' | undefined, disk: DiskText | undefined): void {
    const src = source ?? (m.diff !== undefined ? 'toolDiff' : 'location');
    const diff = m.diff;
    if (s.tracker.hasFile(p, turnId) || disk === undefined) {
      s.tracker.recordBefore(p, undefined, { turnId, source: src, needsConfirm: true });
      if (diff !== undefined) {
        // The file was named before (without a diff) after the agent had already written it.
        s.tracker.reviseBefore(p, (base) => textBefore(base, diff), turnId);
      }
      return;
    }
    if (disk.kind === 'notFile') {
      return;
    }
    this.watch(s, work, p);
    if (disk.kind === 'untracked') {
      s.tracker.recordBefore(p, undefined, { turnId, source: src, needsConfirm: true, untracked: disk.why });
      return;
    }
    const before = textBefore(disk.kind === 'text' ? disk.text : undefined, diff);
    s.tracker.recordBefore(p, before.text, { turnId, source: src, needsConfirm: true, uncertain: !before.certain });
  }

  /**
   * Runs `job` after the chat's earlier snapshot work. Disk failures are outcomes (`readDisk`),
   * not errors; anything else thrown must not stop the queue (or hold a permission answer).
   */
  private enqueue(s: ChatState, job: () => Promise<void>): Promise<void> {
    const next = s.queue.then(job).catch(() => undefined);
    s.queue = next;
    return next;
  }

  /** A write through `fs/write_text_file` during the chat's running turn. */
  recordWrite(s: ChatState, record: WriteRecord): void {
    const turnId = s.tracker.runningTurnId;
    if (turnId === undefined) {
      return;
    }
    void this.enqueue(s, async () => {
      const p = await this.resolve(record.path, s.chat.cwd);
      if (p === undefined || !s.tracker.isOpen(turnId)) {
        return;
      }
      // Confirmed from disk at the end of the turn too: the document may have normalised the
      // written text's line endings, and the file is what later reverts compare against.
      s.tracker.recordBefore(p, record.before, { turnId, source: 'write', authoritative: true, needsConfirm: true });
      await this.options.store.load(s.tracker.baseRefs({ turnId, path: p }));
      s.tracker.recordAfter(p, record.after, { turnId, source: 'write' });
    });
  }

  private watch(s: ChatState, work: TurnWork, p: string): void {
    if (work.watchers.has(p) || work.watchers.size >= maxWatchersPerTurn) {
      return;
    }
    // One non-recursive watcher per named file: only those files, never the whole workspace.
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(p)), path.basename(p)));
    const on = (): void => this.onWatched(s, work, p);
    work.watchers.set(p, vscode.Disposable.from(w, w.onDidChange(on), w.onDidCreate(on), w.onDidDelete(on)));
  }

  /** A watched file changed on disk during its turn: record what the agent left there so far. */
  private onWatched(s: ChatState, work: TurnWork, p: string): void {
    const old = work.timers.get(p);
    if (old !== undefined) {
      clearTimeout(old);
    }
    work.timers.set(
      p,
      setTimeout(() => {
        work.timers.delete(p);
        if (s.tracker.runningTurnId !== work.turnId) {
          return;
        }
        void this.enqueue(s, async () => {
          const disk = await this.readDisk(p);
          await this.options.store.load(s.tracker.baseRefs({ turnId: work.turnId, path: p }));
          // What is seen mid-turn may be a write in progress; the turn end reads it again.
          if ((disk.kind === 'text' || disk.kind === 'absent') && s.tracker.runningTurnId === work.turnId && s.tracker.hasFile(p, work.turnId)) {
            s.tracker.recordAfter(p, disk.kind === 'text' ? disk.text : undefined, { turnId: work.turnId });
          }
        });
      }, 50),
    );
  }

  private stopWatching(work: TurnWork): void {
    for (const w of work.watchers.values()) {
      w.dispose();
    }
    work.watchers.clear();
    for (const t of work.timers.values()) {
      clearTimeout(t);
    }
    work.timers.clear();
  }

  /** The turn ended: confirm what the agent left on disk, then end the turn (queued reverts run). */
  private async finishTurn(s: ChatState, turnId: number): Promise<void> {
    const work = s.work.get(turnId);
    if (work === undefined || !s.tracker.isOpen(turnId)) {
      return;
    }
    s.work.delete(turnId);
    try {
      await s.queue; // the turn's last snapshots first
      const paths = s.tracker.pathsToConfirm(turnId);
      const disks = await Promise.all(paths.map((p) => this.readDisk(p)));
      await this.options.store.load(s.tracker.baseRefs({ turnId }));
      paths.forEach((p, i) => {
        const disk = disks[i];
        if (disk?.kind === 'text' || disk?.kind === 'absent') {
          s.tracker.recordAfter(p, disk.kind === 'text' ? disk.text : undefined, { turnId });
        }
      });
    } finally {
      this.stopWatching(work);
      s.tracker.endTurn(turnId);
    }
  }

  /**
   * An absolute, normalised path (symlinked folders resolved, so write records and tool paths
   * agree); a relative tool path starts at the session's cwd (a worktree session's worktree).
   */
  private async resolve(p: string, cwd: string): Promise<string | undefined> {
    if (p === '') {
      return undefined;
    }
    const abs = path.isAbsolute(p) ? path.normalize(p) : path.resolve(cwd, p);
    try {
      return normalizeDriveLetter(path.join(await fs.promises.realpath(path.dirname(abs)), path.basename(abs)), hostSemantics());
    } catch {
      return normalizeDriveLetter(abs, hostSemantics());
    }
  }

  private readDisk(p: string): Promise<DiskText> {
    return readDiskText(p, this.options.maxFileBytes);
  }
}

function promptLabel(blocks: readonly acp.ContentBlock[]): string {
  const text = blocks
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
