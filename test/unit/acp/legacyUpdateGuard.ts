import type * as acp from '@agentclientprotocol/sdk';
import { isObject, type JsonObject } from '../../../src/util/json';

/**
 * The hand-written `session/update` guard the client used before it validated with the SDK's own
 * schema (src/acp/sessionUpdateGuard.ts until issue 17), kept unchanged as the reference of the
 * differential test: the new validation must accept every recorded update this one accepted.
 *
 * Structural validation of incoming `session/update` notifications.
 *
 * We read `session/update` off the wire ourselves instead of letting the SDK dispatch it: the SDK's
 * per-notification path costs ~30 µs (measured: 50,000 updates in 1.5–1.8 s against 62 ms for
 * JSON.parse alone), which would make the streaming path 30× slower than the wire. The rules
 * mirror the SDK's zod schemas (`@agentclientprotocol/sdk` 2.4, v1 `schema/zod.gen`): lenient fields that are
 * invalid are dropped, invalid items of skip-on-error arrays are dropped, and an unknown variant or
 * a missing required field rejects the update — which we log instead of dropping silently.
 */
export type ParsedNotification =
  | { readonly ok: true; readonly value: acp.SessionNotification }
  | { readonly ok: false; readonly sessionId: string | undefined; readonly reason: string };

const toolKinds = new Set<string>(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
const toolStatuses = new Set<string>(['pending', 'in_progress', 'completed', 'failed']);
const planPriorities = new Set<string>(['high', 'medium', 'low']);
const planStatuses = new Set<string>(['pending', 'in_progress', 'completed']);

export function parseSessionNotification(params: unknown): ParsedNotification {
  if (!isObject(params)) {
    return { ok: false, sessionId: undefined, reason: 'params is not an object' };
  }
  const sessionId = params.sessionId;
  if (typeof sessionId !== 'string') {
    return { ok: false, sessionId: undefined, reason: 'missing sessionId' };
  }
  const raw = params.update;
  if (!isObject(raw)) {
    return { ok: false, sessionId, reason: 'missing update' };
  }
  const update = parseUpdate(raw);
  if (typeof update === 'string') {
    return { ok: false, sessionId, reason: update };
  }
  const meta = params._meta;
  return {
    ok: true,
    value: isObject(meta) ? { sessionId, update, _meta: meta } : { sessionId, update },
  };
}

/** Returns the normalized update, or a reason string when it must be ignored. */
function parseUpdate(raw: JsonObject): acp.SessionUpdate | string {
  const kind = raw.sessionUpdate;
  switch (kind) {
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const content = parseContentBlock(raw.content);
      if (content === undefined) {
        return `${kind} without a valid content block`;
      }
      const out: acp.ContentChunk & { sessionUpdate: typeof kind } = { sessionUpdate: kind, content };
      if (typeof raw.messageId === 'string') {
        out.messageId = raw.messageId;
      }
      copyMeta(raw, out);
      return out;
    }
    case 'tool_call': {
      if (typeof raw.toolCallId !== 'string') {
        return 'tool_call without toolCallId';
      }
      const out: acp.ToolCall & { sessionUpdate: 'tool_call' } = {
        sessionUpdate: 'tool_call',
        toolCallId: raw.toolCallId,
        title: typeof raw.title === 'string' ? raw.title : '',
      };
      copyToolFields(raw, out);
      return out;
    }
    case 'tool_call_update': {
      if (typeof raw.toolCallId !== 'string') {
        return 'tool_call_update without toolCallId';
      }
      const out: acp.ToolCallUpdate & { sessionUpdate: 'tool_call_update' } = {
        sessionUpdate: 'tool_call_update',
        toolCallId: raw.toolCallId,
      };
      if (typeof raw.title === 'string') {
        out.title = raw.title;
      }
      copyToolFields(raw, out);
      return out;
    }
    case 'plan': {
      if (!Array.isArray(raw.entries)) {
        return 'plan without entries';
      }
      const entries: acp.PlanEntry[] = [];
      for (const e of raw.entries as unknown[]) {
        if (isObject(e) && typeof e.content === 'string') {
          entries.push({
            content: e.content,
            priority: typeof e.priority === 'string' && planPriorities.has(e.priority) ? (e.priority as acp.PlanEntryPriority) : 'medium',
            status: typeof e.status === 'string' && planStatuses.has(e.status) ? (e.status as acp.PlanEntryStatus) : 'pending',
          });
        }
      }
      return { sessionUpdate: 'plan', entries };
    }
    case 'available_commands_update': {
      if (!Array.isArray(raw.availableCommands)) {
        return 'available_commands_update without availableCommands';
      }
      const availableCommands: acp.AvailableCommand[] = [];
      for (const c of raw.availableCommands as unknown[]) {
        if (isObject(c) && typeof c.name === 'string') {
          const cmd: acp.AvailableCommand = { name: c.name, description: typeof c.description === 'string' ? c.description : '' };
          if (isObject(c.input) && typeof c.input.hint === 'string') {
            cmd.input = { hint: c.input.hint };
          }
          availableCommands.push(cmd);
        }
      }
      return { sessionUpdate: 'available_commands_update', availableCommands };
    }
    case 'current_mode_update':
      return typeof raw.currentModeId === 'string'
        ? { sessionUpdate: 'current_mode_update', currentModeId: raw.currentModeId }
        : 'current_mode_update without currentModeId';
    case 'config_option_update': {
      if (!Array.isArray(raw.configOptions)) {
        return 'config_option_update without configOptions';
      }
      const configOptions = (raw.configOptions as unknown[]).filter(isConfigOption);
      return { sessionUpdate: 'config_option_update', configOptions };
    }
    case 'session_info_update': {
      const out: acp.SessionInfoUpdate & { sessionUpdate: 'session_info_update' } = { sessionUpdate: 'session_info_update' };
      if (typeof raw.title === 'string' || raw.title === null) {
        out.title = raw.title;
      }
      if (typeof raw.updatedAt === 'string' || raw.updatedAt === null) {
        out.updatedAt = raw.updatedAt;
      }
      copyMeta(raw, out);
      return out;
    }
    case 'usage_update': {
      if (typeof raw.used !== 'number' || typeof raw.size !== 'number') {
        return 'usage_update without used/size';
      }
      const out: acp.UsageUpdate & { sessionUpdate: 'usage_update' } = { sessionUpdate: 'usage_update', used: raw.used, size: raw.size };
      if (isObject(raw.cost) && typeof raw.cost.amount === 'number' && typeof raw.cost.currency === 'string') {
        out.cost = { amount: raw.cost.amount, currency: raw.cost.currency };
      }
      return out;
    }
    case 'notice': {
      if (typeof raw.title !== 'string' || raw.title === '') {
        return 'notice without title';
      }
      const out: acp.Notice & { sessionUpdate: 'notice' } = {
        sessionUpdate: 'notice',
        severity: typeof raw.severity === 'string' ? raw.severity : 'info',
        title: raw.title,
      };
      if (typeof raw.description === 'string') {
        out.description = raw.description;
      }
      return out;
    }
    case 'compaction_update':
    case 'compaction_summary_chunk':
      // Only sent when the client advertises session.compaction, which we do not.
      return `${kind} is not supported by this client`;
    default:
      return `unknown sessionUpdate kind ${JSON.stringify(kind)}`;
  }
}

function copyMeta(raw: JsonObject, out: { _meta?: Record<string, unknown> | null }): void {
  if (isObject(raw._meta)) {
    out._meta = raw._meta;
  }
}

function copyToolFields(raw: JsonObject, out: acp.ToolCallUpdate): void {
  if (typeof raw.kind === 'string' && toolKinds.has(raw.kind)) {
    out.kind = raw.kind as acp.ToolKind;
  }
  if (typeof raw.status === 'string' && toolStatuses.has(raw.status)) {
    out.status = raw.status as acp.ToolCallStatus;
  }
  if (typeof raw.name === 'string') {
    out.name = raw.name;
  }
  if (Array.isArray(raw.content)) {
    const content: acp.ToolCallContent[] = [];
    for (const item of raw.content as unknown[]) {
      const c = parseToolContent(item);
      if (c !== undefined) {
        content.push(c);
      }
    }
    out.content = content;
  }
  if (Array.isArray(raw.locations)) {
    const locations: acp.ToolCallLocation[] = [];
    for (const l of raw.locations as unknown[]) {
      if (isObject(l) && typeof l.path === 'string') {
        locations.push(typeof l.line === 'number' && Number.isInteger(l.line) && l.line >= 0 ? { path: l.path, line: l.line } : { path: l.path });
      }
    }
    out.locations = locations;
  }
  if ('rawInput' in raw) {
    out.rawInput = raw.rawInput;
  }
  if ('rawOutput' in raw) {
    out.rawOutput = raw.rawOutput;
  }
  copyMeta(raw, out);
}

function parseToolContent(item: unknown): acp.ToolCallContent | undefined {
  if (!isObject(item)) {
    return undefined;
  }
  switch (item.type) {
    case 'content': {
      const content = parseContentBlock(item.content);
      return content === undefined ? undefined : { type: 'content', content };
    }
    case 'diff': {
      if (typeof item.path !== 'string' || typeof item.newText !== 'string') {
        return undefined;
      }
      const diff: acp.Diff & { type: 'diff' } = { type: 'diff', path: item.path, newText: item.newText };
      if (typeof item.oldText === 'string' || item.oldText === null) {
        diff.oldText = item.oldText;
      }
      copyMeta(item, diff);
      return diff;
    }
    case 'terminal': {
      if (typeof item.terminalId !== 'string') {
        return undefined;
      }
      const t: acp.Terminal & { type: 'terminal' } = { type: 'terminal', terminalId: item.terminalId };
      copyMeta(item, t);
      return t;
    }
    default:
      return undefined;
  }
}

/** Exported for prompt-side reuse (e.g. permission `toolCall` content). */
export function parseContentBlock(raw: unknown): acp.ContentBlock | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  switch (raw.type) {
    case 'text':
      return typeof raw.text === 'string' ? { type: 'text', text: raw.text } : undefined;
    case 'image':
      if (typeof raw.data === 'string' && typeof raw.mimeType === 'string') {
        const img: acp.ImageContent & { type: 'image' } = { type: 'image', data: raw.data, mimeType: raw.mimeType };
        if (typeof raw.uri === 'string') {
          img.uri = raw.uri;
        }
        return img;
      }
      return undefined;
    case 'audio':
      return typeof raw.data === 'string' && typeof raw.mimeType === 'string'
        ? { type: 'audio', data: raw.data, mimeType: raw.mimeType }
        : undefined;
    case 'resource_link': {
      if (typeof raw.uri !== 'string') {
        return undefined;
      }
      const link: acp.ResourceLink & { type: 'resource_link' } = {
        type: 'resource_link',
        uri: raw.uri,
        name: typeof raw.name === 'string' ? raw.name : raw.uri,
      };
      if (typeof raw.title === 'string') {
        link.title = raw.title;
      }
      if (typeof raw.mimeType === 'string') {
        link.mimeType = raw.mimeType;
      }
      return link;
    }
    case 'resource': {
      const r = raw.resource;
      if (!isObject(r) || typeof r.uri !== 'string') {
        return undefined;
      }
      if (typeof r.text === 'string') {
        return { type: 'resource', resource: { uri: r.uri, text: r.text, ...(typeof r.mimeType === 'string' ? { mimeType: r.mimeType } : {}) } };
      }
      if (typeof r.blob === 'string') {
        return { type: 'resource', resource: { uri: r.uri, blob: r.blob, ...(typeof r.mimeType === 'string' ? { mimeType: r.mimeType } : {}) } };
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function isConfigOption(o: unknown): o is acp.SessionConfigOption {
  return isObject(o) && typeof o.id === 'string' && typeof o.name === 'string' && typeof o.type === 'string';
}
