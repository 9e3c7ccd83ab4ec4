import type { NoticeActionView } from '../protocol/sessionView';
import { PROTOCOL_VERSION, type AttachmentView, type ClientCommandName, type EntriesResult, type FindResult, type MentionView, type WebviewCall, type WebviewMessage } from '../protocol/webviewProtocol';
import type { HostBridge } from './hostBridge';
import { isEntriesResult, isFindResult } from './hostMessages';

/** Everything the UI can ask the host to do. UI code calls these; only this module posts. */
export interface Actions {
  ready(clientId: string): void;
  resync(lastSeq: number): void;
  submitPrompt(text: string, attachments?: readonly AttachmentView[]): void;
  cancelTurn(): void;
  /** `rememberPrefix`: an "always" answer remembers only the first N words of the command. */
  choosePermission(requestId: string, optionId: string, rememberPrefix?: number): void;
  openLocation(path: string, line?: number): void;
  openDiff(entryId: string, contentIndex: number): void;
  openOutput(entryId: string, contentIndex: number): void;
  noticeAction(action: NoticeActionView): void;
  setMode(modeId: string): void;
  setModel(modelId: string): void;
  setConfig(configId: string, value: string | boolean): void;
  forkFromHere(entryId: string): void;
  restoreTurn(turnId: number): void;
  /** Sends a failed turn's prompt again. */
  retryTurn(turnId: number): void;
  rewindTurn(turnId: number): void;
  removeNote(key: string): void;
  /** The "Sign in" card: a method, or "Try again". */
  signIn(methodId: string): void;
  retrySignIn(): void;
  answerQuestion(requestId: string, answers: Readonly<Record<string, string | null>>): void;
  lockAnswer(requestId: string, questionId: string, answer: string | null): void;
  answerSecret(requestId: string, value: string): void;
  cancelQuestion(requestId: string): void;
  rewriteMessage(entryId: string, text: string, confirmedTurns: number): void;
  chooseSuggestion(entryId: string, value: string): void;
  /** One of the chat's own slash commands (`/new`, `/restart`, …): run by the host, not sent to the agent. */
  runClientCommand(name: ClientCommandName): void;
  /** `@` mentions: workspace files matching the query (a request the host answers). */
  searchMentions(query: string): Promise<readonly MentionView[]>;
  /** Entries of a long session the snapshot only outlined. */
  getEntries(from: number, to: number): Promise<EntriesResult>;
  /** Find in the chat: the entries whose shown text holds `query`. */
  findInTranscript(query: string): Promise<FindResult>;
  /** Copies the whole transcript (the host writes it to the clipboard as Markdown). */
  copyTranscript(): void;
  /** Routes a `request/result` from the host to the request waiting for it. */
  settleRequest(id: number, ok: boolean, value: unknown, error: string | undefined): void;
}

export function createActions(bridge: Pick<HostBridge, 'post'>): Actions {
  const post = (message: WebviewMessage): void => bridge.post(message);
  let nextRequest = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** A request the host answers with `request/result`; a reload or a dropped message must not keep anyone waiting. */
  const call = (request: WebviewCall, timeoutMs: number): Promise<unknown> => {
    const id = ++nextRequest;
    const result = new Promise<unknown>((resolve, reject) => waiting.set(id, { resolve, reject }));
    post({ type: 'request/call', id, call: request });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), timeoutMs);
    });
    return Promise.race([result, timeout]).finally(() => {
      clearTimeout(timer);
      waiting.delete(id);
    });
  };
  return {
    ready: (clientId) => post({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION, clientId }),
    resync: (lastSeq) => post({ type: 'session/resync', lastSeq }),
    // Slash commands are sent as plain prompt text; attachments are the composer's context chips.
    submitPrompt: (text, attachments = []) => post({ type: 'prompt/submit', text, attachments }),
    cancelTurn: () => post({ type: 'turn/cancel' }),
    choosePermission: (requestId, optionId, rememberPrefix) =>
      post({ type: 'permission/choose', requestId, optionId, ...(rememberPrefix !== undefined ? { rememberPrefix } : {}) }),
    openLocation: (path, line) => post({ type: 'location/open', path, ...(line !== undefined ? { line } : {}) }),
    openDiff: (entryId, contentIndex) => post({ type: 'diff/open', entryId, contentIndex }),
    openOutput: (entryId, contentIndex) => post({ type: 'output/open', entryId, contentIndex }),
    noticeAction: (action) => post({ type: 'notice/action', action }),
    setMode: (modeId) => post({ type: 'mode/set', modeId }),
    setModel: (modelId) => post({ type: 'model/set', modelId }),
    setConfig: (configId, value) => post({ type: 'config/set', configId, value }),
    forkFromHere: (entryId) => post({ type: 'fork/fromHere', entryId }),
    runClientCommand: (name) => post({ type: 'clientCommand/run', name }),
    restoreTurn: (turnId) => post({ type: 'turn/restore', turnId }),
    rewindTurn: (turnId) => post({ type: 'turn/rewind', turnId }),
    retryTurn: (turnId) => post({ type: 'turn/retry', turnId }),
    removeNote: (key) => post({ type: 'composer/removeNote', key }),
    signIn: (methodId) => post({ type: 'signIn/choose', methodId }),
    retrySignIn: () => post({ type: 'signIn/retry' }),
    answerQuestion: (requestId, answers) => post({ type: 'question/answer', requestId, answers }),
    lockAnswer: (requestId, questionId, answer) => post({ type: 'question/lock', requestId, questionId, answer }),
    answerSecret: (requestId, value) => post({ type: 'question/secret', requestId, value }),
    cancelQuestion: (requestId) => post({ type: 'question/cancel', requestId }),
    rewriteMessage: (entryId, text, confirmedTurns) => post({ type: 'message/rewrite', entryId, text, confirmedTurns }),
    chooseSuggestion: (entryId, value) => post({ type: 'suggestion/choose', entryId, value }),
    searchMentions: (query) =>
      call({ method: 'mentions/search', params: { query } }, 5000).then((value) => (Array.isArray(value) ? value.filter(isMention) : [])),
    getEntries: (from, to) =>
      call({ method: 'entries/get', params: { from, to } }, 30_000).then((value) => {
        if (!isEntriesResult(value)) {
          throw new Error('the host sent no entries');
        }
        return value;
      }),
    findInTranscript: (query) =>
      call({ method: 'transcript/find', params: { query } }, 30_000).then((value) => {
        if (!isFindResult(value)) {
          throw new Error('the host sent no matches');
        }
        return value;
      }),
    copyTranscript: () => post({ type: 'transcript/copy' }),
    settleRequest: (id, ok, value, error) => {
      const w = waiting.get(id);
      if (w === undefined) {
        return;
      }
      waiting.delete(id);
      if (ok) {
        w.resolve(value);
      } else {
        w.reject(new Error(error ?? 'request failed'));
      }
    },
  };
}

function isMention(v: unknown): v is MentionView {
  return typeof v === 'object' && v !== null && typeof (v as { path?: unknown }).path === 'string' && typeof (v as { label?: unknown }).label === 'string';
}
