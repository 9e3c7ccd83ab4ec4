/**
 * The stream-json contract, checked on every event of every runner test: each line against the
 * committed JSON Schema (schemas/stream-json.schema.json, validated with Ajv), and the order rules
 * a schema cannot say — `system` first, `result` last and once, one `tool_result` per `tool_use`
 * after it, a `permission` only about a call already announced.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { repoRoot } from '../../support/paths';

export const schemaPath = path.join(repoRoot, 'schemas', 'stream-json.schema.json');

// strictRequired off: `if/then/else` branches require fields the main schema defines, which strict mode flags.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as object);

/** Throws with Ajv's errors when `event` is not a valid stream-json event. */
export function assertValidEvent(event: unknown, where: string): void {
  if (!validate(event)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('; ');
    throw new Error(`${where} does not match ${path.relative(repoRoot, schemaPath)}: ${errors}\n${JSON.stringify(event).slice(0, 2000)}`);
  }
}

interface Loose {
  readonly type: string;
  readonly tool_call_id?: unknown;
}

/** The order rules of a whole run's events (an empty stream is a usage error's, and passes). */
export function assertStreamOrder(events: readonly Loose[]): void {
  if (events.length === 0) {
    return;
  }
  const fail = (message: string): never => {
    throw new Error(`stream order: ${message}\n${events.map((e) => `${e.type} ${JSON.stringify(e.tool_call_id) ?? ''}`).join('\n')}`);
  };
  if (events[0]?.type !== 'system') {
    fail('the first event is not system');
  }
  if (events[events.length - 1]?.type !== 'result') {
    fail('the last event is not result');
  }
  if (events.filter((e) => e.type === 'system').length !== 1 || events.filter((e) => e.type === 'result').length !== 1) {
    fail('system and result must appear exactly once');
  }
  const used = new Set<unknown>();
  const resulted = new Set<unknown>();
  for (const e of events) {
    if (e.type === 'tool_use') {
      if (used.has(e.tool_call_id)) {
        fail(`a second tool_use for ${String(e.tool_call_id)}`);
      }
      used.add(e.tool_call_id);
    } else if (e.type === 'permission' || e.type === 'tool_result') {
      if (!used.has(e.tool_call_id)) {
        fail(`${e.type} for ${String(e.tool_call_id)} before its tool_use`);
      }
      if (e.type === 'tool_result') {
        if (resulted.has(e.tool_call_id)) {
          fail(`a second tool_result for ${String(e.tool_call_id)}`);
        }
        resulted.add(e.tool_call_id);
      }
    }
  }
  for (const id of used) {
    if (!resulted.has(id)) {
      fail(`no tool_result for ${String(id)}`);
    }
  }
}
