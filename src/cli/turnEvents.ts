import type * as acp from '@agentclientprotocol/sdk';
import type { AgentProfile } from '../session/agentProfiles';
import { sessionUpdatesOf, type SessionAction } from '../session/sessionActions';
import type { SessionChange } from '../session/sessionController';
import { findPermissionTool, lastIndexOfTool } from '../session/slices/toolSlice';
import type { SessionState, ToolEntry } from '../session/sessionState';
import { toolInput, toolName, type ToolFacts } from '../session/toolIdentity';
import { isObject } from '../util/json';
import { boundJson, capText } from './bounded';
import { maxToolOutputChars, type EventBody } from './events';
import { outcomeOf, type Denial } from './toolOutput';

/** Kinds that change something: running one without being asked is what `permissions_enforced` is about. */
const guardedKinds: ReadonlySet<string> = new Set(['edit', 'delete', 'move', 'execute']);
const maxTitleChars = 1000;

/** What the wire said about one tool call id (the reducer keeps neither `_meta` nor who finished it). */
interface WireFacts {
  readonly firstSeen: number;
  /** `_meta` of every update and permission request about the call, merged (later keys win). */
  meta: Record<string, unknown>;
  /** The `_meta` of the latest of them (a streaming phase is only true until the next one). */
  lastMeta: unknown;
  /** The agent itself reported `completed` or `failed`. */
  agentFinished: boolean;
  /** The title of the first update that carried one (opencode, pi: the tool's name). */
  firstTitle?: string;
}

/**
 * One real call: one tool entry of the reducer, whatever ids the agent used for it (a permission
 * request under its own id joins the call it guards, slices/guardedCall.ts), keyed by the entry.
 */
interface TrackedTool {
  readonly firstSeen: number;
  /** Set once `tool_use` is written; `tool_result` and `permission` use the same name and id. */
  name?: string;
  callId?: string;
  /** Why the runner did not let the call run (the permission answer). */
  denial?: Denial;
  /** Of a kind that changes something (edit, delete, move, execute). */
  guarded: boolean;
  /** The agent says the call never ran (`_meta.hermes.notRun`: the API Server parked it for an approval). */
  notRun: boolean;
  done: boolean;
}

/** What the turn produced, for the verdict (empty turn) and `permissions_enforced`. */
export interface TurnFacts {
  readonly text: boolean;
  readonly tools: number;
  readonly plan: boolean;
  readonly permissionsAsked: number;
  /** A call of kind edit/delete/move/execute appeared. */
  readonly guardedCalls: number;
}

export interface TurnEventsDeps {
  readonly emit: (event: EventBody) => void;
  readonly now: () => number;
  /** The rule that decided a permission request about this call (read once). */
  readonly ruleFor: (toolCallId: string) => string | undefined;
  readonly profile: AgentProfile;
}

/**
 * Turns the session controller's changes during one turn into runner events: `text` for every
 * streamed fragment; `tool_use` once a call's arguments are known (at the latest when it leaves
 * `pending`, is asked about, or ends — never an empty input whose value comes later); `permission`
 * for every answered request; `tool_result` when the agent reports the call completed or failed.
 * {@link finish} closes what the agent never finished.
 */
export class TurnEvents {
  private readonly wire = new Map<string, WireFacts>();
  private readonly tools = new Map<string, TrackedTool>();
  /** Tool entries that were there before the turn (history a load or resume replayed). */
  private readonly history = new Set<string>();
  private turnId: number | undefined;
  private finished = false;
  private lastPlan: string | undefined;
  private facts: { text: boolean; plan: boolean; permissionsAsked: number } = { text: false, plan: false, permissionsAsked: 0 };

  constructor(private readonly deps: TurnEventsDeps) {}

  /**
   * Starts translating changes: call right after the prompt was submitted. `before`: the session
   * as it was then — its tool calls (a resumed session's history) are never this turn's.
   */
  begin(turnId: number | undefined, before?: SessionState): void {
    this.turnId = turnId;
    for (const e of before?.entries ?? []) {
      if (e.kind === 'tool') {
        this.history.add(e.id);
      }
    }
  }

  get turnFacts(): TurnFacts {
    let guardedCalls = 0;
    for (const t of this.tools.values()) {
      guardedCalls += t.guarded && !t.notRun ? 1 : 0;
    }
    return { ...this.facts, tools: this.tools.size, guardedCalls };
  }

  /**
   * Every `session/update` of the session as it arrives, before the reducer sees it: what the
   * reducer does not keep (`_meta`, the agent's own completion) and updates that change no state
   * (Qwen's usage rides on empty message chunks) would otherwise be lost.
   */
  onWireUpdate(u: acp.SessionUpdate): void {
    if (this.turnId === undefined || this.finished) {
      return;
    }
    switch (u.sessionUpdate) {
      case 'tool_call':
      case 'tool_call_update':
        this.noteMeta(u.toolCallId, u._meta);
        if (typeof u.title === 'string' && u.title !== '') {
          this.wireFacts(u.toolCallId).firstTitle ??= u.title;
        }
        if (u.status === 'completed' || u.status === 'failed') {
          this.wireFacts(u.toolCallId).agentFinished = true;
        }
        break;
      case 'plan':
        this.facts.plan ||= u.entries.length > 0;
        this.onPlan(u.entries);
        break;
      default:
        break;
    }
  }

  onChange(change: SessionChange): void {
    if (this.turnId === undefined || this.finished) {
      return;
    }
    const { prev, next, action } = change;
    if (action.type === 'permissionRequested') {
      this.facts.permissionsAsked++;
      this.noteMeta(action.toolCall.toolCallId, action.toolCall._meta);
    }
    if (action.type === 'updateReceived' || action.type === 'updatesReceived') {
      this.followUpdates(sessionUpdatesOf(action), next);
    } else if (prev.entries !== next.entries) {
      // Entries are only replaced or appended, and untouched ones keep their identity.
      for (let i = 0; i < next.entries.length; i++) {
        const e = next.entries[i];
        if (e?.kind === 'tool' && e !== prev.entries[i]) {
          this.onTool(e);
        }
      }
    }
    if (action.type === 'permissionResolved') {
      this.onPermissionResolved(next, action);
    }
  }

  /**
   * The turn is over: every call gets its `tool_use` (if not yet written) and a `tool_result`, in
   * order of appearance. Hermes leaves some calls open for good (`ended`, not an error).
   */
  finish(state: SessionState): void {
    if (this.finished) {
      return;
    }
    for (const e of state.entries) {
      if (e.kind === 'tool' && this.inTurn(e)) {
        this.writeToolUse(e);
        this.writeResult(e);
      }
    }
    this.finished = true;
  }

  /**
   * A batch of updates (one read from the pipe) in wire order: text fragments as they come, and a
   * tool call's events when it is first mentioned, from its entry after the batch.
   */
  private followUpdates(updates: readonly acp.SessionUpdate[], state: SessionState): void {
    for (const u of updates) {
      if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text !== '') {
        this.facts.text ||= u.content.text.trim() !== '';
        this.deps.emit({ type: 'text', text: u.content.text });
      } else if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') {
        const e = state.entries[lastIndexOfTool(state.entries, u.toolCallId)];
        if (e?.kind === 'tool') {
          this.onTool(e);
        }
      }
    }
  }

  /** A `plan` event each time the plan changes (ACP: every update is the whole plan). */
  private onPlan(entries: readonly acp.PlanEntry[]): void {
    const plan = entries.map((e) => ({ content: capText(e.content, maxTitleChars).value, status: e.status, priority: e.priority }));
    const key = JSON.stringify(plan);
    if (key !== this.lastPlan) {
      this.lastPlan = key;
      this.deps.emit({ type: 'plan', entries: plan });
    }
  }

  private noteMeta(toolCallId: string, meta: unknown): void {
    const w = this.wireFacts(toolCallId);
    w.lastMeta = meta;
    if (isObject(meta)) {
      w.meta = { ...w.meta, ...meta };
    }
  }

  private wireFacts(toolCallId: string): WireFacts {
    let w = this.wire.get(toolCallId);
    if (w === undefined) {
      w = { firstSeen: this.deps.now(), meta: {}, lastMeta: undefined, agentFinished: false };
      this.wire.set(toolCallId, w);
    }
    return w;
  }

  /** The wire facts of every id of the call, the call's own id last (its `_meta` wins). */
  private factsOf(e: ToolEntry): {
    readonly meta: Record<string, unknown>;
    readonly lastMeta: unknown;
    readonly agentFinished: boolean;
    readonly firstSeen: number | undefined;
    readonly firstTitle: string | undefined;
  } {
    let meta: Record<string, unknown> = {};
    let lastMeta: unknown;
    let agentFinished = false;
    let firstSeen: number | undefined;
    let firstTitle: string | undefined;
    for (const id of [...(e.aliasIds ?? []), e.toolCallId]) {
      const w = this.wire.get(id);
      if (w !== undefined) {
        meta = { ...meta, ...w.meta };
        lastMeta = w.lastMeta ?? lastMeta;
        agentFinished ||= w.agentFinished;
        firstSeen = Math.min(firstSeen ?? w.firstSeen, w.firstSeen);
        firstTitle = id === e.toolCallId ? (w.firstTitle ?? firstTitle) : (firstTitle ?? w.firstTitle);
      }
    }
    return { meta, lastMeta, agentFinished, firstSeen, firstTitle };
  }

  private track(e: ToolEntry): TrackedTool {
    let t = this.tools.get(e.id);
    if (t === undefined) {
      t = { firstSeen: this.factsOf(e).firstSeen ?? this.deps.now(), guarded: false, notRun: false, done: false };
      this.tools.set(e.id, t);
    }
    return t;
  }

  private inTurn(e: ToolEntry): boolean {
    if (this.history.has(e.id)) {
      return false;
    }
    return this.turnId === undefined || e.turnId === undefined || e.turnId === this.turnId;
  }

  private onTool(e: ToolEntry): void {
    if (!this.inTurn(e)) {
      return;
    }
    const t = this.track(e);
    const facts = this.factsOf(e);
    t.guarded ||= guardedKinds.has(e.toolKind);
    t.notRun ||= isObject(facts.meta.hermes) && typeof facts.meta.hermes.notRun === 'string';
    const inputKnown = toolInput(this.deps.profile, e.rawInput, facts.lastMeta, e.title, facts.meta) !== undefined;
    // A call whose arguments come with its result waits for them (or for the turn's end: finish()).
    const started = e.status !== 'pending' && this.deps.profile.inputWithResult !== true;
    if (inputKnown || started || e.permission !== undefined) {
      this.writeToolUse(e);
    }
    if (facts.agentFinished && (e.status === 'completed' || e.status === 'failed')) {
      this.writeToolUse(e);
      this.writeResult(e);
    }
  }

  private writeToolUse(e: ToolEntry): void {
    const t = this.track(e);
    if (t.name !== undefined) {
      return;
    }
    const wire = this.factsOf(e);
    t.name = capText(toolName(this.deps.profile, nameFacts(e, wire.meta, wire.firstTitle)), 200).value;
    t.callId = e.toolCallId;
    const input = toolInput(this.deps.profile, e.rawInput, wire.lastMeta, e.title, wire.meta);
    const bounded = input === undefined ? undefined : boundJson(input);
    this.deps.emit({
      type: 'tool_use',
      tool_call_id: e.toolCallId,
      name: t.name,
      title: capText(e.title, maxTitleChars).value,
      kind: e.toolKind,
      ...(bounded !== undefined ? { input: bounded.value } : {}),
      ...(bounded?.truncated === true ? { input_truncated: true as const } : {}),
    });
  }

  private onPermissionResolved(state: SessionState, action: Extract<SessionAction, { type: 'permissionResolved' }>): void {
    const tool = findPermissionTool(state, action.requestId);
    if (tool === undefined || !this.inTurn(tool)) {
      return;
    }
    this.writeToolUse(tool);
    const t = this.track(tool);
    const outcome = action.outcome;
    const option = outcome.kind === 'selected' ? tool.permission?.options.find((o) => o.optionId === outcome.optionId) : undefined;
    const rule = this.deps.ruleFor(tool.permission?.toolCallId ?? tool.toolCallId) ?? action.answeredBy.replace(/^rule: /, '');
    if (outcome.kind === 'cancelled') {
      t.denial = { text: `permission not granted (answered cancelled): ${rule}`, rejected: false };
    } else if (outcome.kind === 'expired') {
      t.denial = { text: `permission request expired: ${rule}`, rejected: false };
    } else if (option?.kind === 'reject_once' || option?.kind === 'reject_always') {
      t.denial = { text: `permission denied: ${rule}`, rejected: true };
    }
    const check = tool.permission?.check;
    this.deps.emit({
      type: 'permission',
      tool_call_id: t.callId ?? tool.toolCallId,
      name: t.name ?? tool.toolKind,
      title: capText(tool.title, maxTitleChars).value,
      outcome: outcome.kind,
      ...(outcome.kind === 'selected' ? { optionId: outcome.optionId } : {}),
      ...(option !== undefined ? { option_kind: option.kind } : {}),
      rule,
      ...(check?.targets !== undefined ? { targets: check.targets } : {}),
    });
  }

  private writeResult(e: ToolEntry): void {
    const t = this.track(e);
    if (t.done) {
      return;
    }
    t.done = true;
    const { status, output } = outcomeOf(e, this.factsOf(e).agentFinished, t.denial);
    const capped = capText(output, maxToolOutputChars);
    this.deps.emit({
      type: 'tool_result',
      tool_call_id: t.callId ?? e.toolCallId,
      name: t.name ?? e.toolKind,
      status,
      output: capped.value,
      ...(capped.truncated ? { output_truncated: true as const } : {}),
      duration_ms: Math.max(0, this.deps.now() - t.firstSeen),
      is_error: status === 'failed' || status === 'cancelled' || status === 'interrupted',
    });
  }
}

/** What names the call: its entry (which holds a joined permission request's `rawInput`) and its `_meta`. */
function nameFacts(e: ToolEntry, meta: Record<string, unknown>, firstTitle: string | undefined): ToolFacts {
  return {
    toolCallId: e.toolCallId,
    title: e.title,
    kind: e.toolKind,
    rawInput: e.rawInput,
    meta,
    ...(e.name !== undefined ? { name: e.name } : {}),
    ...(firstTitle !== undefined ? { firstTitle } : {}),
  };
}
