import * as assert from 'node:assert/strict';
import { parseSessionNotification } from '../../../src/acp/updateValidation';
import type { Entry, ToolEntry, TurnEndEntry } from '../../../src/session/sessionState';
import { scriptedAgentCommand, startStack, tempWorkspace, type AgentStack } from '../../support/agentStack';
import { SessionHarness, toolCall, toolUpdate } from '../../builders/sessionBuilders';

function tools(entries: readonly Entry[]): ToolEntry[] {
  return entries.filter((e): e is ToolEntry => e.kind === 'tool');
}

function footer(entries: readonly Entry[]): TurnEndEntry | undefined {
  return entries.filter((e): e is TurnEndEntry => e.kind === 'turnEnd').at(-1);
}

/** An update as it arrives: through the validation the connection applies. */
function validated(update: Record<string, unknown>): Parameters<SessionHarness['update']>[0] {
  const r = parseSessionNotification({ sessionId: 's', update });
  assert.ok(r.ok, JSON.stringify(r));
  return r.value.update;
}

suite('vendor _meta that reaches the session state', () => {
  test("a tool's own name: ACP `name` first, else Claude's `_meta.claudeCode.toolName`, else Qwen's `_meta.toolName`", () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(validated({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read hello.txt', kind: 'read', _meta: { claudeCode: { toolName: 'Read' } } }));
    h.update(validated({ sessionUpdate: 'tool_call', toolCallId: 'q1', title: 'ReadFile', kind: 'read', _meta: { toolName: 'read_file' } }));
    h.update(validated({ sessionUpdate: 'tool_call', toolCallId: 'n1', title: 'x', name: 'stable_name', _meta: { toolName: 'vendor_name' } }));
    h.update(toolCall('plain', { title: 'no name anywhere' }));
    // An update without _meta keeps the name.
    h.update(toolUpdate('c1', { status: 'completed' }));
    assert.deepEqual(
      tools(h.state.entries).map((t) => [t.toolCallId, t.name]),
      [
        ['c1', 'Read'],
        ['q1', 'read_file'],
        ['n1', 'stable_name'],
        ['plain', undefined],
      ],
    );
  });

  test("Qwen's `_meta.usage` on a chunk is the turn's usage when the prompt response has none; a sub-agent's is not", () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(validated({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'answer' } }));
    h.update(validated({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' }, _meta: { usage: { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 }, durationMs: 900 } }));
    h.update(validated({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' }, _meta: { usage: { inputTokens: 99999 }, parentToolCallId: 'task-1' } }));
    h.end('end_turn');
    assert.deepEqual(footer(h.state.entries)?.usage, { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 });
    assert.equal(h.state.turn, undefined);

    h.prompt('again');
    h.update(validated({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' }, _meta: { usage: { promptTokens: 10, completionTokens: 5 } } }));
    h.end('end_turn', { inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    assert.deepEqual(footer(h.state.entries)?.usage, { inputTokens: 7, outputTokens: 3, totalTokens: 10 }, 'the response usage wins');

    h.prompt('third');
    h.update(validated({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '' }, _meta: { usage: { promptTokens: 10, completionTokens: 5 } } }));
    h.end('end_turn');
    assert.deepEqual(footer(h.state.entries)?.usage, { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, 'other providers\' names');
  });

  suite('through a real agent process', () => {
    let stack: AgentStack | undefined;
    teardown(async () => {
      await stack?.dispose();
      stack = undefined;
    });

    test("Zed's terminal `_meta` (Claude, pi) survives validation and fills the tool card's terminal", async () => {
      stack = await startStack(scriptedAgentCommand(tempWorkspace()));
      await stack.controller.start();
      const r = await stack.controller.prompt([{ type: 'text', text: '[meta-terminal cmd=npm test]' }]);
      assert.equal(r.kind === 'ended' ? r.stopReason : r.kind, 'end_turn');
      const tool = tools(stack.controller.state.entries).find((t) => t.metaTerminals !== undefined);
      assert.ok(tool !== undefined, 'a tool call with a _meta terminal');
      const terminal = tool.metaTerminals?.[0];
      assert.ok(terminal !== undefined && terminal.output.length > 0, 'its output arrived');
      assert.equal(terminal.exitCode, 0);
      assert.equal(stack.log.snapshot().filter((e) => e.kind === 'ignored').length, 0);
    });
  });
});
