/**
 * The scripted model: which reply each request gets. A request that offers tools and whose last
 * user message carries the run's prompt is the agent's turn ("main"); anything else is a side call
 * (title, next-speaker check, quota probe, Qwen's memory and suggestion subagents, which offer
 * tools too) and always gets a short answer, so errors and tool calls hit the turn itself. The step
 * within a turn is the number of tool results since the user's message, so the script needs no
 * memory.
 */
import { arr, isObject, type JsonObject, type ModelRequest, type Reply } from './modelTypes';
import { buildCall, pickTool, type Action, type BuiltCall, type Target } from './toolCalls';

export const scenarioNames = ['text', 'edit', 'shell', 'plan', 'error429', 'error500', 'error400', 'slow', 'flaky'] as const;
export type ScenarioName = (typeof scenarioNames)[number];

export function isScenarioName(s: string): s is ScenarioName {
  return (scenarioNames as readonly string[]).includes(s);
}

export const replyTexts = {
  text: 'RIG-OK: hello from the scripted model.',
  edit: 'RIG-DONE: rig-target.txt now says Hello ACP.',
  shell: 'RIG-DONE: the shell command ran.',
  plan: 'RIG-DONE: the plan is written.',
  side: 'Rig side reply',
} as const;

export interface Decision {
  readonly role: 'main' | 'side';
  readonly step: number;
  readonly reply: Reply;
  /** Set when the reply is a tool call. */
  readonly built?: BuiltCall;
  readonly note?: string;
}

export interface ScriptState {
  /** Main requests seen so far (for `flaky`). */
  mainRequests: number;
  nextCallId: number;
}

function text(s: string, pieces = 3, chunkDelayMs = 0): Reply {
  const size = Math.ceil(s.length / pieces);
  const chunks: string[] = [];
  for (let i = 0; i < s.length; i += size) {
    chunks.push(s.slice(i, i + size));
  }
  return { kind: 'text', chunks, chunkDelayMs };
}

/** A value matching a (simple) JSON Schema: enums take their first value, objects every property. */
export function sampleFor(schema: JsonObject | undefined): unknown {
  if (schema === undefined) {
    return { answer: replyTexts.side };
  }
  const first = arr(schema.enum)[0];
  if (first !== undefined) {
    return first;
  }
  const type = typeof schema.type === 'string' ? schema.type.toLowerCase() : 'object';
  switch (type) {
    case 'object': {
      const props = isObject(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sampleFor(isObject(v) ? v : {})]));
    }
    case 'array':
      return [];
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    default:
      return 'rig';
  }
}

const plans: Partial<Record<ScenarioName, readonly Action[]>> = {
  edit: ['read', 'edit'],
  shell: ['shell'],
  plan: ['plan'],
};

/** `prompt`: the run's prompt; without it every request offering tools counts as the turn. */
// Error messages carry no status code of their own: a status in what the agent reports is the agent's doing.
export function decide(name: ScenarioName, req: ModelRequest, target: Target, state: ScriptState, prompt?: string): Decision {
  if (req.tools.length === 0 || (prompt !== undefined && !req.lastUserText.includes(prompt))) {
    const reply: Reply = req.json !== undefined ? { kind: 'json', value: sampleFor(req.json.schema) } : text(replyTexts.side, 1);
    return { role: 'side', step: 0, reply };
  }
  state.mainRequests++;
  const step = req.toolResults.length;
  switch (name) {
    case 'error429':
      return { role: 'main', step, reply: { kind: 'error', status: 429, message: 'Rate limit reached for rig-model (scripted).', retryAfterSec: 1 } };
    case 'error500':
      return { role: 'main', step, reply: { kind: 'error', status: 500, message: 'The scripted model server failed (scripted).' } };
    case 'error400':
      return { role: 'main', step, reply: { kind: 'error', status: 400, message: 'Invalid request (scripted).' } };
    case 'flaky':
      return state.mainRequests === 1
        ? { role: 'main', step, reply: { kind: 'error', status: 503, message: 'Overloaded, retry later (scripted).' } }
        : { role: 'main', step, reply: text(replyTexts.text) };
    case 'slow': {
      const ticks = Array.from({ length: 240 }, (_, i) => `tick ${String(i)} `);
      return { role: 'main', step, reply: { kind: 'text', chunks: ticks, chunkDelayMs: 500 } };
    }
    case 'text':
      return { role: 'main', step, reply: text(replyTexts.text) };
    case 'edit':
    case 'shell':
    case 'plan':
      return toolStep(name, req, target, state, step);
  }
}

function toolStep(name: 'edit' | 'shell' | 'plan', req: ModelRequest, target: Target, state: ScriptState, step: number): Decision {
  // Skip actions the agent has no tool for (Codex reads through its shell).
  const plan = (plans[name] ?? []).filter((action) => pickTool(action, req.tools) !== undefined);
  const action = plan[step];
  if (action === undefined) {
    const missing = plan.length === 0 ? `no ${name} tool among the offered ones` : undefined;
    return { role: 'main', step, reply: text(missing !== undefined ? `RIG-NO-TOOL: ${missing}.` : replyTexts[name]), ...(missing !== undefined ? { note: missing } : {}) };
  }
  const tool = pickTool(action, req.tools);
  if (tool === undefined) {
    return { role: 'main', step, reply: text('RIG-NO-TOOL') };
  }
  const built = buildCall(action, tool, target, `rig_call_${String(++state.nextCallId)}`);
  return { role: 'main', step, reply: { kind: 'tool', call: built.call }, built, ...(built.unfilled.length > 0 ? { note: `unfilled: ${built.unfilled.join(', ')}` } : {}) };
}
