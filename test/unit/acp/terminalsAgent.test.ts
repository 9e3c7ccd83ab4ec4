import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { TerminalManager } from '../../../src/acp/terminals';
import type { Entry, ToolEntry } from '../../../src/session/sessionState';
import { scriptedAgentCommand, startStack, tempWorkspace, type AgentStack } from '../../support/agentStack';

function terminalIdOf(tool: ToolEntry): string | undefined {
  for (const c of tool.content) {
    if (c.type === 'terminal') {
      return c.terminalId;
    }
  }
  return undefined;
}

function replyText(entries: readonly Entry[]): string {
  return entries
    .flatMap((e) => (e.kind === 'assistant' ? e.parts : []))
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');
}

suite('ACP terminals end to end (scripted agent process, [terminal] marker)', function () {
  if (process.platform === 'win32') {
    return; // the marker runs `sh -c`
  }
  let stack: AgentStack | undefined;
  let manager: TerminalManager | undefined;

  teardown(async () => {
    await stack?.dispose();
    stack = undefined;
    await manager?.dispose();
    manager = undefined;
  });

  async function run(cmd: string): Promise<{ tool: ToolEntry; terminalId: string; reply: string; stack: AgentStack; manager: TerminalManager }> {
    const cwd = tempWorkspace('hermes-term-e2e-');
    const m = new TerminalManager({ roots: () => [cwd] });
    manager = m;
    const s = await startStack(scriptedAgentCommand(cwd), { terminal: m });
    stack = s;
    await s.controller.start();
    const result = await s.controller.prompt([{ type: 'text', text: `[terminal cmd=${cmd}]` }]);
    assert.equal(result.kind === 'ended' ? result.stopReason : result.kind, 'end_turn');
    const tool = s.controller.state.entries.find((e): e is ToolEntry => e.kind === 'tool');
    assert.ok(tool !== undefined, 'a tool card');
    const terminalId = terminalIdOf(tool);
    assert.ok(terminalId !== undefined, `the tool card embeds a terminal: ${JSON.stringify(tool.content)}`);
    return { tool, terminalId, reply: replyText(s.controller.state.entries), stack: s, manager: m };
  }

  test('create → output → wait_for_exit → release; the card keeps the output', async () => {
    const { tool, terminalId, reply, stack: s, manager: m } = await run('echo hello from the terminal; pwd');
    assert.deepEqual(tool.content, [{ type: 'terminal', terminalId }]);
    assert.equal(tool.status, 'completed');
    assert.match(reply, /The command exited with code 0\./);
    // The agent released it; the UI still has the output.
    const snap = m.snapshot(terminalId);
    assert.ok(snap !== undefined);
    assert.equal(snap.released, true);
    assert.equal(snap.exitCode, 0);
    assert.equal(snap.output, `hello from the terminal\n${s.cwd}\n`);
    // rawOutput carries what terminal/output answered.
    assert.deepEqual(tool.rawOutput, { exitCode: 0, signal: null, output: snap.output, truncated: false });
    // Every terminal method went over the wire, in order.
    const methods = s.log
      .snapshot()
      .filter((e) => e.dir === 'in' && e.kind === 'request' && e.method?.startsWith('terminal/') === true)
      .map((e) => e.method);
    assert.equal(methods[0], 'terminal/create');
    assert.ok(methods.includes('terminal/output'));
    assert.ok(methods.includes('terminal/wait_for_exit'));
    assert.equal(methods.at(-1), 'terminal/release');
    assert.equal(path.isAbsolute(snap.cwd), true);
  });

  test('a failing command: the reply says the exit code', async () => {
    const { tool, terminalId, reply, manager: m } = await run('echo oops >&2; exit 3');
    assert.equal(tool.status, 'failed');
    assert.match(reply, /The command exited with code 3\./);
    assert.equal(m.snapshot(terminalId)?.output, 'oops\n');
    assert.equal(m.snapshot(terminalId)?.exitCode, 3);
  });
});
