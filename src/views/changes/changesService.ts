import * as vscode from 'vscode';
import { ChangeTracker } from '../../changes/changeTracker';
import { defaultMaxFileBytes } from '../../changes/diskText';
import { formatRevertNote } from '../../changes/revertNote';
import { createSnapshotStore, type SnapshotStore, type SnapshotUsage } from '../../changes/snapshotStore';
import { Emitter } from '../../util/emitter';
import type { ChatManager } from '../chat/chatManager';
import type { ChatSession } from '../../app/chatSession';
import { ChangesContextKey } from './changesIds';
import { EditedSinceCache } from './changesEdited';
import { ChangesRecorder, type ChatState } from './changesRecorder';
import { ChangesReverter, type ChangeOpResult, type ConflictPolicy } from './changesRevert';
import type { WriteRecord } from '../workspaceFileSystem';
import { documentPath, readCurrentText, relativePath } from './workspaceText';

export type { ChangeOpResult, ConflictPolicy } from './changesRevert';
export { documentPath, relativePath } from './workspaceText';

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

/**
 * The Changes feature's host side: one {@link ChangeTracker} per chat, recorded by the
 * {@link ChangesRecorder} from the session's events, writes and file watchers; reverts applied by
 * the {@link ChangesReverter} as undoable WorkspaceEdits, never while the chat's turn runs; keeps,
 * clears and the "user reverted …" note for the next prompt.
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
  private readonly edited: EditedSinceCache;
  private readonly recorder: ChangesRecorder;
  private readonly reverter: ChangesReverter;

  constructor(private readonly options: ChangesServiceOptions) {
    this.maxFileBytes = options.maxFileBytes ?? defaultMaxFileBytes;
    this.store = createSnapshotStore(options);
    this.edited = new EditedSinceCache(this.store, (p) => this.readCurrent(p));
    this.recorder = new ChangesRecorder({ store: this.store, maxFileBytes: this.maxFileBytes });
    this.reverter = new ChangesReverter({
      store: this.store,
      stateOf: (chat) => this.states.get(chat),
      readCurrent: (p) => this.readCurrent(p),
      syncNote: (s) => this.syncNote(s),
      fireChanged: () => this.fireChanged(),
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
    return this.reverter.execute(chat, [{ turnId, path: filePath, keys }], policy, 'revert');
  }

  /** Reverts a file's pending hunks in one turn, or (turnId undefined) in every turn, latest first. */
  revertFile(chat: ChatSession, turnId: number | undefined, filePath: string, policy: ConflictPolicy = 'ask'): Promise<ChangeOpResult> {
    const tracker = this.trackerFor(chat);
    const turns = tracker?.turns().filter((t) => (turnId === undefined || t.turnId === turnId) && t.files.some((f) => f.path === filePath)) ?? [];
    return this.reverter.execute(chat, turns.map((t) => ({ turnId: t.turnId, path: filePath })), policy, 'revert');
  }

  /** Reverts every pending hunk of a turn (kept hunks stay). */
  revertTurn(chat: ChatSession, turnId: number, policy: ConflictPolicy = 'ask'): Promise<ChangeOpResult> {
    const turn = this.trackerFor(chat)?.turns().find((t) => t.turnId === turnId);
    return this.reverter.execute(chat, (turn?.files ?? []).map((f) => ({ turnId, path: f.path })), policy, 'revert');
  }

  /**
   * "Restore to before this turn": every file the turn or a later one touched goes back to how it
   * was before the turn — kept hunks included, created files deleted, deleted files recreated.
   * Edits made since in other regions survive; conflicting ones are asked about (`ask`).
   */
  restoreTurn(chat: ChatSession, turnId: number, policy: ConflictPolicy = 'ask'): Promise<ChangeOpResult> {
    return this.reverter.execute(chat, { restoreFrom: turnId }, policy, 'restore');
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

  /** Whether a pending hunk of the file's change in a turn was edited since (the view's "edited since"). */
  async editedSince(chat: ChatSession, turnId: number, filePath: string): Promise<boolean> {
    const tracker = this.trackerFor(chat);
    return tracker !== undefined ? this.edited.editedSince(chat, tracker, turnId, filePath) : false;
  }

  /** What a file holds now: the open document (unsaved edits included), else the disk. */
  readCurrent(filePath: string): Promise<string | undefined> {
    return readCurrentText(filePath, this.maxFileBytes);
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
    this.edited.clear();
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
        this.recorder.endAll(s);
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
    const sessionSub = chat.controller.onDidChange((change) => this.recorder.onSessionChange(s, change));
    const trackerSub = tracker.onDidChange(() => this.fireChanged());
    s.subscriptions.push({ dispose: () => sessionSub.dispose() }, { dispose: () => trackerSub.dispose() });
    this.states.set(chat, s);
  }

  private forgetChat(s: ChatState): void {
    this.recorder.stopAll(s);
    for (const d of s.subscriptions) {
      d.dispose();
    }
    s.tracker.dispose();
    this.states.delete(s.chat);
    this.edited.forgetChat(s.chat);
  }

  private onWrite(record: WriteRecord): void {
    const chat = this.options.manager.allChats.find((c) => c.sessionId === record.sessionId);
    const s = chat !== undefined ? this.states.get(chat) : undefined;
    if (s !== undefined) {
      this.recorder.recordWrite(s, record);
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

function defaultNoteSink(chat: ChatSession, note: string | undefined, onRemove?: () => void): void {
  chat.setContextNote('changes', vscode.l10n.t('Note: what you reverted'), note !== undefined ? [{ type: 'text', text: note }] : undefined, onRemove);
}
