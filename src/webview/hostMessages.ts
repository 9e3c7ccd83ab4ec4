import type {
  BlockView,
  PermissionOptionView,
  PermissionStatusView,
  PhaseView,
  ToolKindView,
  ToolStatusView,
  ConfigOptionView,
  EntryView,
  LocationView,
  NoticeActionView,
  PartView,
  PermissionView,
  PlanItemView,
  SelectView,
  SessionHeaderView,
  ToolContentView,
  ToolProgressView,
  QuestionEntryView,
} from '../protocol/sessionView';
import type { EntriesResult, EntryOp, FindResult, HostMessage } from '../protocol/webviewProtocol';

/**
 * The boundary guard: `message` events carry `unknown` data; this narrows it to a
 * {@link HostMessage} or rejects it. Checked deeply enough that the renderers can trust the
 * types (strings are strings, arrays are arrays); unknown extra fields are ignored.
 */
export function parseHostMessage(raw: unknown): HostMessage | undefined {
  if (!isRec(raw) || typeof raw.type !== 'string') {
    return undefined;
  }
  switch (raw.type) {
    case 'session/snapshot':
      return isNum(raw.seq) && isRec(raw.view) && isHeader(raw.view.header) && isArr(raw.view.entries, isEntry) && optional(raw.view.earlier, isOutlines)
        ? (raw as HostMessage)
        : undefined;
    case 'session/patch':
      return isNum(raw.seq) && isArr(raw.ops, isOp) && (raw.header === undefined || isHeader(raw.header)) ? (raw as HostMessage) : undefined;
    case 'composer/insert':
      return isStr(raw.text) ? (raw as HostMessage) : undefined;
    case 'composer/attach':
      return isRec(raw.attachment) &&
        isStr(raw.attachment.path) &&
        isStr(raw.attachment.label) &&
        optional(raw.attachment.startLine, isNum) &&
        optional(raw.attachment.endLine, isNum)
        ? (raw as HostMessage)
        : undefined;
    case 'composer/focus':
    case 'host/reload':
      return raw as HostMessage;
    case 'request/result':
      return isNum(raw.id) && isBool(raw.ok) && optional(raw.error, isStr) ? (raw as HostMessage) : undefined;
    default:
      return undefined;
  }
}

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function isStr(v: unknown): v is string {
  return typeof v === 'string';
}
function isNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}
function isBool(v: unknown): v is boolean {
  return typeof v === 'boolean';
}
function isIndex(v: unknown): v is number {
  return isNum(v) && Number.isInteger(v) && v >= 0;
}
function isArr<T>(v: unknown, item: (x: unknown) => x is T): v is T[] {
  return Array.isArray(v) && v.every((x) => item(x));
}
function optional<T>(v: unknown, check: (x: unknown) => x is T): boolean {
  return v === undefined || check(v);
}
function isNullableNum(v: unknown): v is number | null {
  return v === null || isNum(v);
}
function isNullableStr(v: unknown): v is string | null {
  return v === null || isStr(v);
}
/** A guard for a string union; the `Record` makes a value added to the protocol a compile error here. */
function oneOf<T extends string>(values: Readonly<Record<T, true>>): (v: unknown) => v is T {
  return (v): v is T => typeof v === 'string' && Object.hasOwn(values, v);
}

const isPhase = oneOf<PhaseView>({ new: true, starting: true, idle: true, running: true, cancelling: true, exited: true });
const isToolKind = oneOf<ToolKindView>({
  read: true, edit: true, delete: true, move: true, search: true, execute: true, think: true, fetch: true, switch_mode: true, other: true,
});
const isToolStatus = oneOf<ToolStatusView>({ pending: true, in_progress: true, completed: true, failed: true, cancelled: true, ended: true, interrupted: true, denied: true });
const isPlanStatus = oneOf<PlanItemView['status']>({ pending: true, in_progress: true, completed: true });
const isPriority = oneOf<PlanItemView['priority']>({ high: true, medium: true, low: true });
const isPermissionStatus = oneOf<PermissionStatusView>({ pending: true, selected: true, cancelled: true, expired: true });
const isOptionKind = oneOf<PermissionOptionView['kind']>({ allow_once: true, allow_always: true, reject_once: true, reject_always: true });
const isLevel = oneOf<NoticeEntry['level']>({ info: true, warning: true, error: true });
const isNoticeAction = oneOf<NoticeActionView>({
  showTraffic: true, restartAgent: true, setupProvider: true, newSession: true, checkInstallation: true, useDemoAgent: true, openSettings: true,
  openRemoteSettings: true, setupAgent: true, reconnectAgent: true, openHandoffSource: true,
});
const isOutcome = oneOf<TurnEndEntry['outcome']>({
  end_turn: true, max_tokens: true, max_turn_requests: true, refusal: true, cancelled: true, error: true, interrupted: true,
});
const isOrigin = oneOf<UserEntry['origin']>({ local: true, replay: true, agent: true });
const isHeldReason = (r: unknown): r is 'cancelled' | 'failed' => r === 'cancelled' || r === 'failed';

type NoticeEntry = Extract<EntryView, { kind: 'notice' }>;
type TurnEndEntry = Extract<EntryView, { kind: 'turnEnd' }>;
type UserEntry = Extract<EntryView, { kind: 'user' }>;

function isBlock(v: unknown): v is BlockView {
  if (!isRec(v)) {
    return false;
  }
  switch (v.type) {
    case 'text':
      return isStr(v.text);
    case 'image':
      return isStr(v.mimeType) && optional(v.data, isStr) && optional(v.uri, isStr);
    case 'audio':
      return isStr(v.mimeType);
    case 'resource_link':
      return isStr(v.uri) && isStr(v.name) && optional(v.title, isStr);
    case 'resource':
      return isStr(v.uri) && optional(v.text, isStr);
    default:
      return false;
  }
}

function isPart(v: unknown): v is PartView {
  if (!isRec(v)) {
    return false;
  }
  switch (v.kind) {
    case 'text':
      return isStr(v.text);
    case 'thought':
      return isStr(v.text) && isNum(v.startedAt) && optional(v.endedAt, isNum);
    case 'block':
      return isBlock(v.block);
    default:
      return false;
  }
}

function isLocation(v: unknown): v is LocationView {
  return isRec(v) && isStr(v.path) && isStr(v.label) && optional(v.line, isNum);
}

function isToolContent(v: unknown): v is ToolContentView {
  if (!isRec(v)) {
    return false;
  }
  switch (v.type) {
    case 'text':
      return isStr(v.text) && isNum(v.fullLength) && isBool(v.markdown);
    case 'block':
      return isBlock(v.block);
    case 'diff':
      return isStr(v.path) && isStr(v.label) && isBool(v.isNew) && isNum(v.added) && isNum(v.removed) && isBool(v.multiFile);
    case 'terminal':
      return (
        isStr(v.terminalId) &&
        isStr(v.output) &&
        isNum(v.fullLength) &&
        isBool(v.running) &&
        optional(v.exitCode, isNullableNum) &&
        optional(v.signal, isNullableStr)
      );
    default:
      return false;
  }
}

function isPermission(v: unknown): v is PermissionView {
  return (
    isRec(v) &&
    isStr(v.requestId) &&
    isPermissionStatus(v.status) &&
    isArr(v.options, (o): o is PermissionOptionView => isRec(o) && isStr(o.optionId) && isStr(o.name) && isOptionKind(o.kind)) &&
    isNum(v.requestedAt) &&
    optional(v.answeredAt, isNum) &&
    optional(v.optionId, isStr) &&
    optional(v.answeredBy, isStr) &&
    optional(v.expiresAt, isNum)
  );
}

function isPlanItem(v: unknown): v is PlanItemView {
  return isRec(v) && isStr(v.content) && isPriority(v.priority) && isPlanStatus(v.status);
}

function isEntry(v: unknown): v is EntryView {
  if (!isRec(v) || !isStr(v.id)) {
    return false;
  }
  switch (v.kind) {
    case 'user':
      return (
        isArr(v.blocks, isBlock) &&
        isOrigin(v.origin) &&
        isBool(v.excluded) &&
        optional(v.mergedWith, (m): m is Rec => isRec(m) && isHeldReason(m.reason) && isStr(m.text))
      );
    case 'assistant':
      return isArr(v.parts, isPart);
    case 'tool':
      return (
        isStr(v.toolCallId) &&
        isStr(v.title) &&
        isToolKind(v.toolKind) &&
        isToolStatus(v.status) &&
        isArr(v.locations, isLocation) &&
        isArr(v.content, isToolContent) &&
        optional(v.rawInput, isStr) &&
        optional(v.rawOutput, isStr) &&
        optional(v.permission, isPermission) &&
        optional(v.progress, isToolProgress) &&
        optional(v.confirmed, (c): c is 'disk' => c === 'disk') &&
        isNum(v.startedAt) &&
        optional(v.endedAt, isNum)
      );
    case 'plan':
      return isArr(v.entries, isPlanItem);
    case 'notice':
      return (
        isLevel(v.level) &&
        isStr(v.title) &&
        optional(v.detail, isStr) &&
        optional(v.log, isStr) &&
        isArr(v.actions, isNoticeAction) &&
        optional(v.forkFrom, isStr) &&
        optional(v.suggestions, (x): x is Rec => isRec(x) && x.kind === 'model' && isStr(x.model) && isStr(x.provider) && isArr(x.values, isStr))
      );
    case 'question':
      return isQuestion(v);
    case 'turnEnd':
      return (
        isNum(v.turnId) &&
        isOutcome(v.outcome) &&
        isNum(v.durationMs) &&
        optional(v.error, isStr) &&
        optional(v.provider, (p): p is Rec => isRec(p) && isStr(p.kind) && isBool(p.transient) && optional(p.httpStatus, isNum)) &&
        optional(v.retry, isBool) &&
        optional(v.retryIn, (r): r is 'session' | 'newSession' => r === 'session' || r === 'newSession') &&
        optional(v.startFresh, isStr) &&
        optional(v.usage, (u): u is Rec => isRec(u) && isNum(u.inputTokens) && isNum(u.outputTokens) && isNum(u.totalTokens))
      );
    default:
      return false;
  }
}

function isSelect(v: unknown): v is SelectView {
  return (
    isRec(v) &&
    isStr(v.current) &&
    isArr(v.options, (o): o is SelectView['options'][number] => isRec(o) && isStr(o.id) && isStr(o.name) && optional(o.description, isStr))
  );
}

function isConfigOption(v: unknown): v is ConfigOptionView {
  if (!isRec(v) || !isStr(v.id) || !isStr(v.name) || !optional(v.category, isStr)) {
    return false;
  }
  return (v.type === 'select' && isSelect(v.select)) || (v.type === 'boolean' && isBool(v.value));
}

function isHeader(v: unknown): v is SessionHeaderView {
  return (
    isRec(v) &&
    isNum(v.hostTime) &&
    optional(v.sessionId, isStr) &&
    isStr(v.agentName) &&
    optional(v.badge, (b): b is Rec => isRec(b) && (b.kind === 'demo' || b.kind === 'worktree') && isStr(b.label) && isStr(b.title)) &&
    optional(v.emptyHint, isStr) &&
    optional(v.title, isStr) &&
    isPhase(v.phase) &&
    optional(v.turnStartedAt, isNum) &&
    optional(
      v.usage,
      (u): u is Rec =>
        isRec(u) && isNum(u.used) && isNum(u.size) && optional(u.cost, (c): c is Rec => isRec(c) && isNum(c.amount) && isStr(c.currency)),
    ) &&
    isArr(v.plan, isPlanItem) &&
    optional(v.modes, isSelect) &&
    optional(v.models, isSelect) &&
    isArr(v.configOptions, isConfigOption) &&
    isArr(v.commands, (c): c is Rec => isRec(c) && isStr(c.name) && isStr(c.description) && optional(c.hint, isStr)) &&
    isNum(v.pendingPermissions) &&
    isBool(v.readOnly) &&
    isBool(v.acceptsImages) &&
    optional(v.status, isStr) &&
    optional(v.restarting, isBool) &&
    optional(v.held, (h): h is Rec => isRec(h) && isHeldReason(h.reason) && isStr(h.preview) && optional(h.startFresh, isStr)) &&
    optional(v.offers, (o): o is Rec => isRec(o) && isBool(o.rewrite) && isBool(o.fork) && isBool(o.modes) && isBool(o.attach))
  );
}

function isToolProgress(v: unknown): v is ToolProgressView {
  return isRec(v) && isStr(v.tool) && isStr(v.emoji) && isStr(v.label) && (v.state === 'running' || v.state === 'completed');
}

const isQuestionStatus = oneOf<QuestionEntryView['status']>({ pending: true, answered: true, cancelled: true, withdrawn: true });
const isSecretKind = oneOf<Extract<QuestionEntryView['question'], { kind: 'secret' }>['secretKind']>({
  sudo: true, secret: true, 'vault.unlock': true, 'vault.code': true, 'vault.saveLogin': true,
});
const isAnswerMap = (m: unknown): m is Rec => isRec(m) && Object.values(m).every((a) => a === null || isStr(a));

function isQuestion(v: Rec): boolean {
  const q = v.question;
  if (!isStr(v.requestId) || !isQuestionStatus(v.status) || !isBool(v.replayed) || !optional(v.reason, isStr) || !isRec(q)) {
    return false;
  }
  if (q.kind === 'clarify') {
    const isClarify = (c: unknown): c is Rec => isRec(c) && isStr(c.id) && isStr(c.text) && isArr(c.choices, isStr) && isBool(c.multiSelect);
    return isArr(q.questions, isClarify) && isAnswerMap(q.locked) && optional(q.answers, isAnswerMap);
  }
  return q.kind === 'secret' && isSecretKind(q.secretKind) && isStr(q.prompt) && optional(q.envVar, isStr) && optional(q.provided, isBool);
}

function isOp(v: unknown): v is EntryOp {
  if (!isRec(v) || !isIndex(v.index)) {
    return false;
  }
  switch (v.op) {
    case 'insert':
    case 'replace':
      return isEntry(v.entry);
    case 'remove':
      return isIndex(v.count);
    case 'appendText':
      return isIndex(v.part) && (v.kind === 'text' || v.kind === 'thought') && isStr(v.text) && optional(v.at, isNum);
    default:
      return false;
  }
}

const isEntryKind = oneOf<EntryView['kind']>({ user: true, assistant: true, tool: true, plan: true, notice: true, turnEnd: true, question: true });

function isOutlines(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.every((o) => isRec(o) && isStr(o.id) && isEntryKind(o.kind) && isIndex(o.lines));
}

/** An `entries/get` answer (`request/result` values are checked by whoever asked). */
export function isEntriesResult(v: unknown): v is EntriesResult {
  return isRec(v) && isIndex(v.seq) && isIndex(v.from) && isArr(v.entries, isEntry);
}

/** A `transcript/find` answer. */
export function isFindResult(v: unknown): v is FindResult {
  return isRec(v) && isIndex(v.seq) && isIndex(v.total) && Array.isArray(v.matches) && v.matches.every((m) => isRec(m) && isIndex(m.index) && isStr(m.id) && isIndex(m.count));
}
