import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { ChangeTracker, type PlannedFile, type ReadCurrent, type RevertPlan, type RevertTarget, type Untracked } from '../changes/changeTracker';
import { textReplacements } from '../changes/hunks';
import { formatRevertNote } from '../changes/revertNote';
import { removeStaleSpillDirs, SnapshotStore, type SnapshotUsage } from '../changes/snapshotStore';
import { fileMentions, textBefore, type FileMention } from '../changes/toolChanges';
import { sessionUpdatesOf } from '../session/sessionActions';
import type { SessionChange } from '../session/sessionController';
import { Emitter } from '../util/emitter';
import { hostSemantics, normalizeDriveLetter, samePath } from '../util/paths';
import { displayLabel, notificationLabel } from '../util/displayText';
import type { ChatManager } from './chatManager';
import type { ChatSession } from '../app/chatSession';
import { ChangesContextKey } from './changesIds';
import type { WriteRecord } from './workspaceFileSystem';

/** What to do when a hunk's region was edited since the agent wrote it. */
export type ConflictPolicy = 'ask' | 'skip' | 'overwrite' | 'fail';

export interface ChangeOpResult {
  /** The operation waited for a running turn to end. */
  readonly queued: boolean;
  /** Files that were changed. */
  readonly changedFiles: readonly string[];
  /** Conflicting hunks (edited since): left alone, or overwritten with `overwrite`. */
  readonly conflicts: number;
  /** Nothing was done: the user cancelled at the conflict question, or `fail` met a conflict. */
  readonly cancelled: boolean;
  /** Hunks asked for that no longer exist (the agent rewrote the file before a queued revert ran). */
  readonly missing: number;
}

/** Every chat the view knows, with its tracker. Closed chats stay until their changes are kept or cleared. */
export interface ChatChanges {
  readonly chat: ChatSession;
  readonly tracker: ChangeTracker;
  readonly closed: boolean;
}

export interface ChangesServiceOptions {
  readonly manager: ChatManager;
  /** Writes through `fs/write_text_file` (the `WorkspaceFileSystem` `onDidWrite` option, relayed by the manager). */
  readonly onDidWrite?: (listener: (record: WriteRecord) => void) => { dispose(): void };
  /** Where snapshots spill to once memory is full (the extension's storage); none: memory only. */
  readonly storageDir?: string;
  readonly memoryCapBytes?: number;
  readonly diskCapBytes?: number;
  readonly maxFileBytes?: number;
  /**
   * How the "user reverted these hunks" note reaches the next prompt. Default: the chat's pending
   * context (sent once, ahead of the next prompt). A composer that shows removable notes replaces it.
   */
  readonly noteSink?: (chat: ChatSession, note: string | undefined, onRemove?: () => void) => void;
}

type DiskText = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'absent' } | { readonly kind: 'untracked'; readonly why: Untracked } | { readonly kind: 'notFile' };

/** What a turn has in flight until it is confirmed (a next turn may start before that). */
interface TurnWork {
  readonly turnId: number;
  readonly watchers: Map<string, vscode.Disposable>;
  readonly timers: Map<string, NodeJS.Timeout>;
}

interface ChatState {
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
const defaultMaxFileBytes = 8 * 1024 * 1024;

/**
 * The Changes feature's host side: one {@link ChangeTracker} per chat, fed from the session's
 * events (prompt, tool calls with diffs and locations, permission diffs, turn end), from writes
 * through `fs/write_text_file`, and from file watchers on the files a running turn names (agents
 * like Hermes write files themselves after a permission prompt). Applies reverts as undoable
 * WorkspaceEdits, never while the chat's turn runs.
 */
export class ChangesService implements vscode.Disposable {
  private readonly states = new Map<ChatSession, ChatState>();
  readonly store: SnapshotStore;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** Trackers, decisions or the queue changed (debounced; the tree and CodeLens refresh on it). */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private changeTimer: NodeJS.Timeout | undefined;
  private readonly maxFileBytes: number;
  private readonly reconcileTimers = new Map<string, NodeJS.Timeout>();
  private readonly editedCache = new Map<string, { readonly key: string; readonly edited: boolean }>();

  constructor(private readonly options: ChangesServiceOptions) {
    this.maxFileBytes = options.maxFileBytes ?? defaultMaxFileBytes;
    let spillDir: string | undefined;
    if (options.storageDir !== undefined) {
      const root = path.join(options.storageDir, 'change-snapshots');
      void removeStaleSpillDirs(root, isAlive);
      spillDir = path.join(root, `${process.pid}-${randomBytes(4).toString('hex')}`);
    }
    this.store = new SnapshotStore({
      ...(spillDir !== undefined ? { spillDir } : {}),
      ...(options.memoryCapBytes !== undefined ? { memoryCapBytes: options.memoryCapBytes } : {}),
      ...(options.diskCapBytes !== undefined ? { diskCapBytes: options.diskCapBytes } : {}),
    });
    const managerSub = options.manager.onDidChange(() => this.syncChats());
    this.disposables.push({ dispose: () => managerSub.dispose() });
    if (options.onDidWrite !== undefined) {
      const writeSub = options.onDidWrite((record) => this.onWrite(record));
      this.disposables.push({ dispose: () => writeSub.dispose() });
    }
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === 'file' && e.contentChanges.length > 0) {
          this.scheduleReconcile(documentPath(e.document.uri));
        }
      }),
    );
    this.syncChats();
  }

  /** Chats with their trackers (closed chats too, until their changes are kept or forgotten). */
  get chats(): readonly ChatChanges[] {
    return [...this.states.values()].map((s) => ({ chat: s.chat, tracker: s.tracker, closed: s.closed }));
  }

  trackerFor(chat: ChatSession): ChangeTracker | undefined {
    return this.states.get(chat)?.tracker;
  }

  chatById(id: string): ChatSession | undefined {
    return [...this.states.keys()].find((c) => c.id === id);
  }

  /** Snapshot memory and disk, plus the hunks' texts. */
  usage(): SnapshotUsage & { readonly hunkBytes: number; readonly files: number } {
    let hunkBytes = 0;
    let files = 0;
    for (const s of this.states.values()) {
      const u = s.tracker.usage();
      hunkBytes += u.hunkBytes;
      files += u.files;
    }
    return { ...this.store.usage(), hunkBytes, files };
  }

  /** Reverts some hunks of one file in one turn. */
  revertHunks(chat: ChatSession, turnId: number, filePath: string, keys: readonly string[], policy: ConflictPolicy = 'ask'): Promise<ChangeOpResult> {
    return this.execute(chat, [{ turnId, path: filePath, keys }], policy, 'revert');
  }

  /** Reverts a file's pending hunks in one turn, or (turnId undefined) in every turn, latest first. */
  revertFile(chat: ChatSession, turnId: number | undefined, filePath: string, policy: ConflictPolicy = 'ask'): Promise<ChangeOpResult> {
    const tracker = this.trackerFor(chat);
    const turns = tracker?.turns().filter((t) => (turnId === undefined || t.turnId === turnId) && t.files.some((f) => f.path === filePath)) ?? [];
    return this.execute(chat, turns.map((t) => ({ turnId: t.turnId, path: filePath })), policy, 'revert');
  }

  /** Reverts every pending hunk of a turn (kept hunks stay). */
  revertTurn(chat: ChatSession, turnId: number, policy: ConflictPolicy = 'ask'): Promise<ChangeOpResult> {
    const turn = this.trackerFor(chat)?.turns().find((t) => t.turnId === turnId);
    return this.execute(chat, (turn?.files ?? []).map((f) => ({ turnId, path: f.path })), policy, 'revert');
  }

  /**
   * "Restore to before this turn": every file the turn or a later one touched goes back to how it
   * was before the turn — kept hunks included, created files deleted, deleted files recreated.
   * Edits made since in other regions survive; conflicting ones are asked about (`ask`).
   */
  restoreTurn(chat: ChatSession, turnId: number, policy: ConflictPolicy = 'ask'): Promise<ChangeOpResult> {
    return this.execute(chat, { restoreFrom: turnId }, policy, 'restore');
  }

  /** Restores the files to before the turn, then forks the conversation from that turn's prompt: code and conversation rewound. */
  async rewindTurn(chat: ChatSession, turnId: number): Promise<ChangeOpResult> {
    const result = await this.restoreTurn(chat, turnId, 'ask');
    if (result.cancelled) {
      return result;
    }
    const entry = chat.controller.state.entries.find((e) => e.kind === 'user' && e.turnId === turnId);
    await this.options.manager.forkAndOpen(chat, entry?.id);
    return result;
  }

  /** Keeps (accepts) hunks, a file, a turn, or everything of a chat. Never waits: nothing on disk changes. */
  keep(chat: ChatSession, scope: { turnId?: number; path?: string; keys?: readonly string[] } = {}): void {
    this.trackerFor(chat)?.keep(scope);
    this.fireChanged();
  }

  /** Keeps everything in every chat; closed chats' changes are forgotten (nothing is left to act on). */
  keepAll(): void {
    for (const s of [...this.states.values()]) {
      s.tracker.keep();
      if (s.closed) {
        this.forgetChat(s);
      }
    }
    this.fireChanged();
  }

  /** Forgets a chat's change history and frees its snapshots (restores before it become impossible). */
  clear(chat?: ChatSession): void {
    for (const s of [...this.states.values()]) {
      if (chat === undefined || s.chat === chat) {
        s.tracker.forget();
        s.tracker.clearNote();
        this.syncNote(s);
        if (s.closed) {
          this.forgetChat(s);
        }
      }
    }
    this.fireChanged();
  }

  /** The note for the next prompt ("the user reverted …"), as the agent will see it. */
  noteText(chat: ChatSession): string {
    const tracker = this.trackerFor(chat);
    return tracker !== undefined ? formatRevertNote(tracker.note, relativePath) : '';
  }

  /** Removes the note before it is sent. */
  removeNote(chat: ChatSession): void {
    const s = this.states.get(chat);
    if (s !== undefined) {
      s.tracker.clearNote();
      this.syncNote(s);
      this.fireChanged();
    }
  }

  /**
   * Whether a pending hunk of the file's change in a turn was edited since (the view's "edited
   * since"). Remembered while the document's version (or the file's size and mtime) and the
   * tracker are unchanged: the view refreshes often, and only a yes/no is kept, not the text.
   */
  async editedSince(chat: ChatSession, turnId: number, filePath: string): Promise<boolean> {
    const tracker = this.trackerFor(chat);
    if (tracker === undefined) {
      return false;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && samePath(d.uri.fsPath, filePath, hostSemantics()) && !d.isClosed);
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

  /** What a file holds now: the open document (unsaved edits included), else the disk. */
  async readCurrent(filePath: string): Promise<string | undefined> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && samePath(d.uri.fsPath, filePath, hostSemantics()) && !d.isClosed);
    if (doc !== undefined) {
      return doc.getText();
    }
    const disk = await this.readDisk(filePath);
    return disk.kind === 'text' ? disk.text : undefined;
  }

  dispose(): void {
    if (this.changeTimer !== undefined) {
      clearTimeout(this.changeTimer);
    }
    for (const t of this.reconcileTimers.values()) {
      clearTimeout(t);
    }
    for (const s of [...this.states.values()]) {
      this.forgetChat(s);
    }
    for (const d of this.disposables) {
      d.dispose();
    }
    this.store.dispose();
    this.editedCache.clear();
    this.onDidChangeEmitter.dispose();
  }

  // ---- tracking ------------------------------------------------------------------------------

  private syncChats(): void {
    const live = new Set(this.options.manager.allChats);
    for (const chat of live) {
      if (!this.states.has(chat)) {
        this.attach(chat);
      }
    }
    for (const s of [...this.states.values()]) {
      if (!live.has(s.chat) && !s.closed) {
        s.closed = true;
        for (const w of [...s.work.values()]) {
          this.stopWatching(w);
          s.tracker.endTurn(w.turnId);
        }
        s.work.clear();
        if (s.tracker.turns().length === 0) {
          this.forgetChat(s);
        }
        this.fireChanged();
      }
    }
  }

  private attach(chat: ChatSession): void {
    const tracker = new ChangeTracker({ store: this.store, maxFileBytes: this.maxFileBytes });
    const s: ChatState = { chat, tracker, closed: false, noteSent: false, subscriptions: [], work: new Map(), queue: Promise.resolve() };
    const sessionSub = chat.controller.onDidChange((change) => this.onSessionChange(s, change));
    const trackerSub = tracker.onDidChange(() => this.fireChanged());
    s.subscriptions.push({ dispose: () => sessionSub.dispose() }, { dispose: () => trackerSub.dispose() });
    this.states.set(chat, s);
  }

  private forgetChat(s: ChatState): void {
    for (const w of s.work.values()) {
      this.stopWatching(w);
    }
    s.work.clear();
    for (const d of s.subscriptions) {
      d.dispose();
    }
    s.tracker.dispose();
    this.states.delete(s.chat);
    for (const id of [...this.editedCache.keys()]) {
      if (id.startsWith(`${s.chat.id}/`)) {
        this.editedCache.delete(id);
      }
    }
  }

  private onSessionChange(s: ChatState, change: SessionChange): void {
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
      const resolved = await Promise.all(mentions.map(async (m) => ({ m, p: await this.resolve(m.path) })));
      const unseen = [...new Set(resolved.flatMap(({ p }) => (p !== undefined && !s.tracker.hasFile(p, turnId) ? [p] : [])))];
      const disks = new Map(await Promise.all(unseen.map(async (p) => [p, await this.readDisk(p)] as const)));
      await this.store.load(s.tracker.baseRefs({ turnId }));
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

  private onWrite(record: WriteRecord): void {
    const chat = this.options.manager.allChats.find((c) => c.sessionId === record.sessionId);
    const s = chat !== undefined ? this.states.get(chat) : undefined;
    const turnId = s?.tracker.runningTurnId;
    if (s === undefined || turnId === undefined) {
      return;
    }
    void this.enqueue(s, async () => {
      const p = await this.resolve(record.path);
      if (p === undefined || !s.tracker.isOpen(turnId)) {
        return;
      }
      // Confirmed from disk at the end of the turn too: the document may have normalised the
      // written text's line endings, and the file is what later reverts compare against.
      s.tracker.recordBefore(p, record.before, { turnId, source: 'write', authoritative: true, needsConfirm: true });
      await this.store.load(s.tracker.baseRefs({ turnId, path: p }));
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
          await this.store.load(s.tracker.baseRefs({ turnId: work.turnId, path: p }));
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
      await this.store.load(s.tracker.baseRefs({ turnId }));
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

  private scheduleReconcile(filePath: string): void {
    if (![...this.states.values()].some((s) => s.tracker.firstTurnWith(filePath) !== undefined)) {
      return;
    }
    const old = this.reconcileTimers.get(filePath);
    if (old !== undefined) {
      clearTimeout(old);
    }
    this.reconcileTimers.set(
      filePath,
      setTimeout(() => {
        this.reconcileTimers.delete(filePath);
        void this.readCurrent(filePath).then(async (current) => {
          for (const s of this.states.values()) {
            await this.store.load(s.tracker.baseRefs({ path: filePath }));
            s.tracker.reconcile(filePath, current);
          }
          // Regions edited since change how the file shows even when no hunk flipped.
          this.fireChanged();
        });
      }, 200),
    );
  }

  // ---- reverting -----------------------------------------------------------------------------

  private execute(chat: ChatSession, what: readonly RevertTarget[] | { readonly restoreFrom: number }, policy: ConflictPolicy, kind: 'revert' | 'restore'): Promise<ChangeOpResult> {
    const s = this.states.get(chat);
    const none: ChangeOpResult = { queued: false, changedFiles: [], conflicts: 0, cancelled: false, missing: 0 };
    if (s === undefined) {
      return Promise.resolve(none);
    }
    const queued = s.tracker.running;
    if (queued) {
      void vscode.window.setStatusBarMessage(vscode.l10n.t('Hermes: the revert waits until {0} finishes its turn.', chat.agentName), 5000);
      this.fireChanged();
    }
    return s.tracker.whenIdle(async () => {
      const plan = (read: ReadCurrent, force: boolean): RevertPlan =>
        'restoreFrom' in what ? s.tracker.planRestore(what.restoreFrom, read, { force }) : s.tracker.planRevert(what, read, { force });
      const paths = 'restoreFrom' in what ? restorePaths(s.tracker, what.restoreFrom) : [...new Set(what.map((t) => t.path))];
      const missing = 'restoreFrom' in what ? 0 : countMissing(s.tracker, what);
      await this.store.load(s.tracker.baseRefs({}));
      // The user may type between reading and applying: read again and re-plan (a few times).
      for (let attempt = 0; attempt < 3; attempt++) {
        const currents = new Map<string, string | undefined>();
        for (const p of paths) {
          currents.set(p, await this.readCurrent(p));
        }
        const read: ReadCurrent = (p) => currents.get(p);
        let chosen = plan(read, policy === 'overwrite');
        if (chosen.conflicts > 0 && policy !== 'overwrite' && policy !== 'skip') {
          const answer = policy === 'fail' ? undefined : await askAboutConflicts(chosen, kind);
          if (answer === undefined) {
            return { queued, changedFiles: [], conflicts: chosen.conflicts, cancelled: true, missing };
          }
          if (answer === 'overwrite') {
            chosen = plan(read, true);
          }
        }
        const conflicts = chosen.conflicts;
        const applied = await this.apply(chosen.files);
        if (applied === undefined) {
          continue;
        }
        s.tracker.commit(chosen.files);
        this.syncNote(s);
        const untracked = chosen.files.filter((f) => f.untracked !== undefined);
        if (untracked.length > 0) {
          void vscode.window.showWarningMessage(
            vscode.l10n.t('Not reverted (no snapshot was kept — too large, binary, or over the snapshot limit): {0}', untracked.map((f) => notificationLabel(relativePath(f.path), 500)).join(', ')),
          );
        }
        return { queued, changedFiles: applied, conflicts, cancelled: false, missing };
      }
      void vscode.window.showWarningMessage(vscode.l10n.t('The files kept changing while reverting; nothing was reverted. Try again.'));
      return { queued, changedFiles: [], conflicts: 0, cancelled: true, missing };
    });
  }

  /**
   * Applies planned results as ONE undoable WorkspaceEdit (minimal line replacements, file
   * deletes and creates), then saves the documents that had no unsaved edits before. Undefined
   * when a document changed since it was read (the caller re-plans).
   */
  private async apply(files: readonly PlannedFile[]): Promise<string[] | undefined> {
    const changed = files.filter((f) => f.changed && f.untracked === undefined);
    if (changed.length === 0) {
      return [];
    }
    const edit = new vscode.WorkspaceEdit();
    const meta: vscode.WorkspaceEditEntryMetadata = { label: vscode.l10n.t('Revert agent changes'), needsConfirmation: false };
    const save: vscode.Uri[] = [];
    for (const f of changed) {
      const uri = vscode.Uri.file(f.path);
      if (f.result === undefined) {
        edit.deleteFile(uri, { ignoreIfNotExists: true }, meta);
        continue;
      }
      const edits: [vscode.TextEdit, vscode.WorkspaceEditEntryMetadata][] = [];
      // A document has one line ending and normalises inserted text to it: set the snapshot's
      // own (when it has one) so a restore gives back its bytes, CRLF included.
      const eol = lineEnding(f.result);
      if (f.current === undefined) {
        await fs.promises.mkdir(path.dirname(f.path), { recursive: true });
        edit.createFile(uri, { ignoreIfExists: false }, meta);
        if (f.result !== '') {
          edits.push([vscode.TextEdit.insert(new vscode.Position(0, 0), f.result), meta]);
        }
        if (eol !== undefined) {
          edits.push([vscode.TextEdit.setEndOfLine(eol), meta]);
        }
        edit.set(uri, edits);
        save.push(uri);
        continue;
      }
      const doc = await vscode.workspace.openTextDocument(uri);
      if (doc.getText() !== f.current) {
        return undefined;
      }
      if (!doc.isDirty) {
        // The user's unsaved edits are not ours to save: only clean documents are saved after.
        save.push(uri);
      }
      for (const r of textReplacements(f.current, f.result)) {
        edits.push([vscode.TextEdit.replace(new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text), meta]);
      }
      if (eol !== undefined && eol !== doc.eol) {
        edits.push([vscode.TextEdit.setEndOfLine(eol), meta]);
      }
      edit.set(uri, edits);
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new Error(vscode.l10n.t('VS Code could not apply the revert.'));
    }
    for (const uri of save) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (doc?.isDirty === true) {
        await doc.save();
      }
    }
    return changed.map((f) => f.path);
  }

  private syncNote(s: ChatState): void {
    if (s.closed) {
      return;
    }
    const text = formatRevertNote(s.tracker.note, relativePath);
    const sink = this.options.noteSink ?? defaultNoteSink;
    if (text !== '') {
      // Removing the note in the composer forgets it here too.
      sink(s.chat, text, () => this.removeNote(s.chat));
      s.noteSent = true;
    } else if (s.noteSent) {
      sink(s.chat, undefined);
      s.noteSent = false;
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** An absolute, normalised path (symlinked folders resolved, so write records and tool paths agree). */
  private async resolve(p: string): Promise<string | undefined> {
    if (p === '') {
      return undefined;
    }
    const abs = path.isAbsolute(p) ? path.normalize(p) : path.resolve(this.options.manager.workspaceRoot, p);
    try {
      return normalizeDriveLetter(path.join(await fs.promises.realpath(path.dirname(abs)), path.basename(abs)), hostSemantics());
    } catch {
      return normalizeDriveLetter(abs, hostSemantics());
    }
  }

  private async readDisk(p: string): Promise<DiskText> {
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(p);
    } catch {
      return { kind: 'absent' };
    }
    try {
      return this.unreadable(stat) ?? decode(await fs.promises.readFile(p));
    } catch (e) {
      return readFailure(e);
    }
  }

  /** Why a path with this stat is not read as text (not a file, too large), or undefined to read it. */
  private unreadable(stat: fs.Stats): DiskText | undefined {
    if (!stat.isFile()) {
      return { kind: 'notFile' };
    }
    return stat.size > this.maxFileBytes ? { kind: 'untracked', why: 'tooLarge' } : undefined;
  }

  fireChanged(): void {
    if (this.changeTimer !== undefined) {
      return;
    }
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      void vscode.commands.executeCommand('setContext', ChangesContextKey.hasChanges, [...this.states.values()].some((s) => s.tracker.turns().length > 0 || s.tracker.note.length > 0));
      this.onDidChangeEmitter.fire();
    }, 50);
  }
}

/** A file's bytes as text; NUL bytes or invalid UTF-8 mean binary (not tracked). */
function decode(bytes: Uint8Array): DiskText {
  if (bytes.includes(0)) {
    return { kind: 'untracked', why: 'binary' };
  }
  try {
    return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { kind: 'untracked', why: 'binary' };
  }
}

/** A read that failed after its stat: gone meanwhile, or unreadable (treated like binary: not tracked). */
function readFailure(e: unknown): DiskText {
  return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'absent' } : { kind: 'untracked', why: 'binary' };
}

/** The text's line ending when it has exactly one kind (a document cannot hold mixed ones). */
function lineEnding(text: string): vscode.EndOfLine | undefined {
  const lf = (text.match(/\n/g) ?? []).length;
  const crlf = (text.match(/\r\n/g) ?? []).length;
  return lf === 0 ? undefined : crlf === lf ? vscode.EndOfLine.CRLF : crlf === 0 ? vscode.EndOfLine.LF : undefined;
}

function defaultNoteSink(chat: ChatSession, note: string | undefined, onRemove?: () => void): void {
  chat.setContextNote('changes', vscode.l10n.t('Note: what you reverted'), note !== undefined ? [{ type: 'text', text: note }] : undefined, onRemove);
}

function restorePaths(tracker: ChangeTracker, fromTurn: number): string[] {
  return [...new Set(tracker.turns().filter((t) => t.turnId >= fromTurn).flatMap((t) => t.files.map((f) => f.path)))];
}

function countMissing(tracker: ChangeTracker, targets: readonly RevertTarget[]): number {
  let missing = 0;
  for (const t of targets) {
    const keys = new Set(tracker.file(t.turnId, t.path)?.hunks.map((h) => h.key) ?? []);
    missing += (t.keys ?? []).filter((k) => !keys.has(k)).length;
  }
  return missing;
}

async function askAboutConflicts(plan: RevertPlan, kind: 'revert' | 'restore'): Promise<'overwrite' | 'skip' | undefined> {
  const files = plan.files.filter((f) => f.conflicts.length > 0).map((f) => displayLabel(relativePath(f.path), 500));
  const overwrite = kind === 'restore' ? vscode.l10n.t('Restore Anyway') : vscode.l10n.t('Revert Anyway');
  const skip = vscode.l10n.t('Skip Edited Regions');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('{0} of the agent’s changes were edited since (by you or another session).', plan.conflicts),
    {
      modal: true,
      detail: vscode.l10n.t(
        'Edited: {0}.\n\n“{1}” discards those edits and puts back the text from before the turn. “{2}” leaves the edited regions as they are and reverts the rest.',
        files.join(', '),
        overwrite,
        skip,
      ),
    },
    overwrite,
    skip,
  );
  return choice === overwrite ? 'overwrite' : choice === skip ? 'skip' : undefined;
}

export function relativePath(p: string): string {
  return vscode.workspace.asRelativePath(p, false);
}

function promptLabel(blocks: readonly acp.ContentBlock[]): string {
  const text = blocks
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A document's path as the change tracker keys it: VS Code's `fsPath` spells the drive `c:\`,
 * Node's realpath (and so every tracked path) `C:\`.
 */
export function documentPath(uri: vscode.Uri): string {
  return normalizeDriveLetter(uri.fsPath, hostSemantics());
}
