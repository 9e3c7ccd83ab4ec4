import { isObject } from '../util/json';
import type { AgentProfile, ToolNameSource } from './agentProfiles';

/** What is known about one tool call when it is named: the entry's fields plus its `_meta`. */
export interface ToolFacts {
  readonly toolCallId: string;
  readonly title: string;
  /** ACP `kind` (`read`, `edit`, `execute`, …). */
  readonly kind: string;
  /** ACP `name`, when the agent sent one. */
  readonly name?: string;
  readonly rawInput?: unknown;
  /** `_meta` of the updates and permission requests about the call, merged (later wins). */
  readonly meta?: unknown;
  /** The title the call was first announced with (opencode and pi announce a call by its tool's name, then retitle it). */
  readonly firstTitle?: string;
}

const identifier = /^[A-Za-z_][\w.-]*$/;
const leadingWord = /^([A-Za-z_][\w.-]*): /;

/**
 * The tool's own name (`patch`, `Edit`, `run_shell_command`), read where the agent's profile says
 * it lives; the ACP `kind` when nothing names it. Never the title, which is a sentence.
 */
export function toolName(profile: AgentProfile, facts: ToolFacts): string {
  for (const source of profile.toolName) {
    const name = fromSource(source, facts);
    if (name !== undefined && name !== '') {
      return name;
    }
  }
  return facts.kind;
}

function fromSource(source: ToolNameSource, facts: ToolFacts): string | undefined {
  switch (source.from) {
    case 'meta':
      return metaString(facts.meta, source.path);
    case 'acpName':
      return facts.name;
    case 'rawInputField': {
      const v = isObject(facts.rawInput) ? facts.rawInput[source.field] : undefined;
      return typeof v === 'string' && identifier.test(v) ? v : undefined;
    }
    case 'rawInputKey':
      return isObject(facts.rawInput) && source.key in facts.rawInput ? source.name : undefined;
    case 'idPrefix':
      return facts.toolCallId.startsWith(source.prefix) ? source.name : undefined;
    case 'idHead': {
      const at = facts.toolCallId.indexOf(source.separator);
      const head = at > 0 ? facts.toolCallId.slice(0, at) : '';
      return identifier.test(head) ? head : undefined;
    }
    case 'titlePrefix':
      return source.prefixes.find(([prefix]) => facts.title.startsWith(prefix))?.[1];
    case 'firstTitle':
      return facts.firstTitle !== undefined && identifier.test(facts.firstTitle) ? facts.firstTitle : undefined;
    case 'metaKey':
      return isObject(facts.meta) && facts.meta[source.key] !== undefined ? source.name : undefined;
    case 'titleWord': {
      if (identifier.test(facts.title)) {
        return facts.title;
      }
      return leadingWord.exec(facts.title)?.[1];
    }
  }
}

/** A string at `path` inside a `_meta` object. */
export function metaString(meta: unknown, path: readonly string[]): string | undefined {
  let node: unknown = meta;
  for (const key of path) {
    if (!isObject(node)) {
      return undefined;
    }
    node = node[key];
  }
  return typeof node === 'string' ? node : undefined;
}

/**
 * The call's arguments, or undefined while none are known: no `rawInput`, an empty one (Claude's
 * first `tool_call` has `{}`), or one the profile marks as still streaming. Hermes' edit approvals
 * wrap the arguments (`{tool, arguments}`): the arguments are the input. `allMeta`: the `_meta` of
 * every message about the call, merged (`meta` is the latest's, whose streaming phase counts).
 */
export function toolInput(profile: AgentProfile, rawInput: unknown, meta: unknown, title?: string, allMeta: unknown = meta): unknown {
  const fromTitle = profile.commandInTitle;
  if (isEmpty(rawInput) && fromTitle !== undefined && isObject(allMeta) && allMeta[fromTitle.metaKey] !== undefined && title !== undefined && title.trim() !== '') {
    // pi-acp's bash call carries its command only as the title.
    return { command: title };
  }
  if (isEmpty(rawInput) || isPartial(profile, rawInput, meta)) {
    return undefined;
  }
  const wrap = profile.wrappedArguments;
  if (wrap !== undefined && isObject(rawInput) && typeof rawInput[wrap.whenField] === 'string' && wrap.field in rawInput) {
    const inner = rawInput[wrap.field];
    return isEmpty(inner) ? undefined : inner;
  }
  return rawInput;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') {
    return true;
  }
  if (Array.isArray(v)) {
    return v.length === 0;
  }
  return isObject(v) && Object.keys(v).length === 0;
}

/** `rawInput` made only of the profile's streaming keys (pi's `partialArgs`), or a `_meta.phase` that says so (Qwen's `preparing`). */
export function isPartial(profile: AgentProfile, rawInput: unknown, meta: unknown): boolean {
  const partial = profile.partialInput;
  if (partial === undefined) {
    return false;
  }
  if (partial.metaPhase !== undefined && isObject(meta) && meta.phase === partial.metaPhase) {
    return true;
  }
  const keys = partial.rawInputKeys;
  if (keys !== undefined && isObject(rawInput)) {
    const present = Object.keys(rawInput);
    return present.length > 0 && present.every((k) => keys.includes(k));
  }
  return false;
}
