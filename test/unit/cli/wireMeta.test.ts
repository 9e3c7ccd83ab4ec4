/**
 * The runner reads agents' `_meta` (tool names, per-chunk usage), which arrives through our own
 * `session/update` fast path (src/acp/updateFastPath.ts) or the SDK's schema (src/acp/updateValidation.ts): it must keep
 * `_meta` on message chunks and tool calls, as the agents send it.
 */
import * as assert from 'node:assert/strict';
import { parseSessionNotification } from '../../../src/acp/updateValidation';

function updateOf(raw: unknown): unknown {
  const parsed = parseSessionNotification({ sessionId: 's', update: raw });
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.value.update;
}

suite('session/update fast path keeps the _meta the runner reads', () => {
  test('Qwen Code: _meta.usage on an empty agent_message_chunk', () => {
    const usage = { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 };
    const u = updateOf({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' }, _meta: { usage, durationMs: 5 } });
    assert.deepEqual((u as { _meta?: unknown })._meta, { usage, durationMs: 5 });
  });

  test('Claude and Qwen tool names on tool_call and tool_call_update', () => {
    const call = updateOf({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit', kind: 'edit', rawInput: {}, _meta: { claudeCode: { toolName: 'Edit' } } });
    assert.deepEqual((call as { _meta?: unknown })._meta, { claudeCode: { toolName: 'Edit' } });
    const update = updateOf({ sessionUpdate: 'tool_call_update', toolCallId: 't1', _meta: { toolName: 'write_file', phase: 'preparing' } });
    assert.deepEqual((update as { _meta?: unknown })._meta, { toolName: 'write_file', phase: 'preparing' });
  });
});
