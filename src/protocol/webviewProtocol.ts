import type { EntryView, NoticeActionView, SessionHeaderView, SessionView } from './sessionView';

/** Bump when a message shape changes incompatibly; a webview on another version is reloaded. */
export const PROTOCOL_VERSION = 3;

/**
 * Index-addressed changes to the transcript. `appendText` is the streaming case: it carries only the
 * new characters, so a growing message costs its growth, not its length, per frame.
 */
export type EntryOp =
  | { readonly op: 'insert'; readonly index: number; readonly entry: EntryView }
  | { readonly op: 'replace'; readonly index: number; readonly entry: EntryView }
  | { readonly op: 'remove'; readonly index: number; readonly count: number }
  | {
      readonly op: 'appendText';
      readonly index: number;
      /** Index of the part in the assistant entry; equal to the part count to start a new part. */
      readonly part: number;
      readonly kind: 'text' | 'thought';
      readonly text: string;
      /** For a new thought part: when it started (host time). */
      readonly at?: number;
    };

/** Host → webview. */
export type HostMessage =
  | { readonly type: 'session/snapshot'; readonly seq: number; readonly view: SessionView }
  | { readonly type: 'session/patch'; readonly seq: number; readonly ops: readonly EntryOp[]; readonly header?: SessionHeaderView }
  | { readonly type: 'composer/insert'; readonly text: string }
  /** Adds a file or selection chip to the composer (sent as context with the next prompt). */
  | { readonly type: 'composer/attach'; readonly attachment: AttachmentView }
  | { readonly type: 'composer/focus' }
  | { readonly type: 'request/result'; readonly id: number; readonly ok: boolean; readonly value?: unknown; readonly error?: string }
  | { readonly type: 'host/reload' };

/** A file offered by the `@` mention picker. */
export interface MentionView {
  readonly path: string;
  readonly label: string;
  readonly detail?: string;
}

/** A file, a selection or a pasted image attached to the next prompt. */
export interface AttachmentView {
  /** The file (absolute); empty for a pasted image. */
  readonly path: string;
  readonly label: string;
  readonly startLine?: number;
  readonly endLine?: number;
  /** A pasted image, base64; sent only to agents that advertise `promptCapabilities.image`. */
  readonly image?: { readonly mimeType: string; readonly data: string };
}

/** Webview → host. */
export type WebviewMessage =
  | { readonly type: 'webview/ready'; readonly protocolVersion: number; readonly clientId: string }
  | { readonly type: 'session/resync'; readonly lastSeq: number }
  | { readonly type: 'prompt/submit'; readonly text: string; readonly attachments: readonly AttachmentView[] }
  | { readonly type: 'turn/cancel' }
  /** `rememberPrefix`: for an "always" option, remember only the first N words of the command (exact when absent). */
  | { readonly type: 'permission/choose'; readonly requestId: string; readonly optionId: string; readonly rememberPrefix?: number }
  | { readonly type: 'location/open'; readonly path: string; readonly line?: number }
  | { readonly type: 'diff/open'; readonly entryId: string; readonly contentIndex: number }
  | { readonly type: 'output/open'; readonly entryId: string; readonly contentIndex: number }
  | { readonly type: 'notice/action'; readonly action: NoticeActionView }
  | { readonly type: 'mode/set'; readonly modeId: string }
  | { readonly type: 'model/set'; readonly modelId: string }
  | { readonly type: 'config/set'; readonly configId: string; readonly value: string | boolean }
  | { readonly type: 'fork/fromHere'; readonly entryId: string }
  | { readonly type: 'composer/removeNote'; readonly key: string }
  | { readonly type: 'turn/restore'; readonly turnId: number }
  | { readonly type: 'turn/rewind'; readonly turnId: number }
  /** Sends the failed turn's prompt again (the footer's Retry). */
  | { readonly type: 'turn/retry'; readonly turnId: number }
  | { readonly type: 'transcript/copy' }
  /** The "Sign in" card: a method chosen, or "Try again". */
  | { readonly type: 'signIn/choose'; readonly methodId: string }
  | { readonly type: 'signIn/retry' }
  | { readonly type: 'request/call'; readonly id: number; readonly call: WebviewCall }
  /** Clarify answers keyed by question id (`null` skips one). */
  | { readonly type: 'question/answer'; readonly requestId: string; readonly answers: Readonly<Record<string, string | null>> }
  /** Locks one clarify answer early (`clarify.lock`). */
  | { readonly type: 'question/lock'; readonly requestId: string; readonly questionId: string; readonly answer: string | null }
  /** A masked value: handed to the agent only — never logged, never in the state or the view. */
  | { readonly type: 'question/secret'; readonly requestId: string; readonly value: string }
  /** Cancels a clarify question (`{}`) or declines a secret. */
  | { readonly type: 'question/cancel'; readonly requestId: string }
  /** Edit and resend from a user message; `confirmedTurns`: how many user turns the user agreed to cut. */
  | { readonly type: 'message/rewrite'; readonly entryId: string; readonly text: string; readonly confirmedTurns: number }
  /** A notice's suggestion picked (a model the provider can serve). */
  | { readonly type: 'suggestion/choose'; readonly entryId: string; readonly value: string }
  /** One of the chat's own slash commands (run by the client, never sent to the agent). */
  | { readonly type: 'clientCommand/run'; readonly name: ClientCommandName };

/**
 * The chat's own slash commands, offered in the `/` menu beside the agent's (an agent command of the
 * same name wins) and while the agent is still starting, when it has sent none yet.
 */
export const clientCommandNames = ['new', 'sessions', 'restart', 'traffic', 'copy'] as const;
export type ClientCommandName = (typeof clientCommandNames)[number];

/** Webview → host requests that need an answer (`request/result`). One line per method. */
export interface WebviewRequests {
  'mentions/search': { params: { readonly query: string }; result: readonly MentionView[] };
  /** Entries `from`…`to - 1` as of the last message posted (seq); fewer when they are large. */
  'entries/get': { params: { readonly from: number; readonly to: number }; result: EntriesResult };
  /** Where the transcript's shown text holds `query` (case-insensitive), as of the last message posted. */
  'transcript/find': { params: { readonly query: string }; result: FindResult };
}

/** `entries/get`: the entries from `from` on, valid at `seq` (the webview drops an answer for another seq). */
export interface EntriesResult {
  readonly seq: number;
  readonly from: number;
  readonly entries: readonly EntryView[];
}

/** `transcript/find`: each entry with matches, in transcript order (at most `maxFindEntries`). */
export interface FindResult {
  readonly seq: number;
  readonly matches: readonly { readonly index: number; readonly id: string; readonly count: number }[];
  /** Matches in all; more than the listed entries hold when the list was cut. */
  readonly total: number;
}

/** Entries a find answer lists at most. */
export const maxFindEntries = 2_000;

export type WebviewCall = {
  [M in keyof WebviewRequests]: { readonly method: M; readonly params: WebviewRequests[M]['params'] };
}[keyof WebviewRequests];

export const webviewMessageTypes: readonly WebviewMessage['type'][] = [
  'webview/ready',
  'session/resync',
  'prompt/submit',
  'turn/cancel',
  'permission/choose',
  'location/open',
  'diff/open',
  'output/open',
  'notice/action',
  'mode/set',
  'model/set',
  'config/set',
  'fork/fromHere',
  'composer/removeNote',
  'turn/restore',
  'turn/rewind',
  'turn/retry',
  'transcript/copy',
  'signIn/choose',
  'signIn/retry',
  'request/call',
  'question/answer',
  'question/lock',
  'question/secret',
  'question/cancel',
  'message/rewrite',
  'suggestion/choose',
  'clientCommand/run',
];
