import * as assert from 'node:assert/strict';
import { AgentProcess } from '../../../src/wire/agentProcess';
import { AgentExitedError, AgentNotFoundError, AgentTimeoutError } from '../../../src/agentPort/agentErrors';
import { toMarkdown } from '../../../src/session/transcript';
import { scriptedAgentCommand, startStack, tempWorkspace, waitForState, type AgentStack } from '../../support/agentStack';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

suite('ACP client against the scripted agent process', () => {
  let stack: AgentStack | undefined;

  teardown(async () => {
    await stack?.dispose();
    stack = undefined;
  });

  test('runs a full turn: streamed reply, usage, end_turn', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    assert.equal(stack.client.agent?.agentInfo?.name, 'scripted-agent');
    await stack.controller.start();
    const result = await stack.controller.prompt([{ type: 'text', text: 'Hello [plain]' }]);
    assert.equal(result.kind, 'ended');
    assert.equal(result.kind === 'ended' ? result.stopReason : undefined, 'end_turn');
    const md = toMarkdown(stack.controller.state);
    assert.match(md, /## Assistant/);
    assert.equal(stack.controller.state.phase, 'idle');
    assert.ok(stack.controller.state.commands.length > 0, 'available_commands_update after session/new was delivered');
  });

  test('cancels with a permission pending: answered cancelled, stop reason cancelled, no hang', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    await stack.controller.start();
    const asked = new Promise<void>((resolve) => stack?.controller.onPermissionRequested(() => resolve()));
    const turn = stack.controller.prompt([{ type: 'text', text: '[command cmd=rm -r build]' }]);
    await asked;
    assert.equal(stack.controller.pendingPermissions.length, 1);
    const started = Date.now();
    assert.equal(await stack.controller.cancel(), true);
    const result = await turn;
    assert.ok(Date.now() - started < 2000, 'the turn ended promptly');
    assert.equal(result.kind === 'ended' ? result.stopReason : result.kind, 'cancelled');
    assert.equal(stack.controller.pendingPermissions.length, 0);
    const answer = stack.log.snapshot().find((e) => e.dir === 'out' && e.kind === 'response' && e.text.includes('"outcome"'));
    assert.ok(answer !== undefined, 'the permission request was answered');
    assert.match(answer.text, /"outcome":\{"outcome":"cancelled"\}/);
    const footer = stack.controller.state.entries.at(-1);
    assert.equal(footer?.kind === 'turnEnd' ? footer.outcome : undefined, 'cancelled');
  });

  test('never sends session/cancel while idle', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    await stack.controller.start();
    assert.equal(await stack.controller.cancel(), false);
    assert.equal(stack.log.snapshot().some((e) => e.method === 'session/cancel'), false);
  });

  test('rejects the pending prompt within 1 s of a crash, with the stderr tail', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    await stack.controller.start();
    const turn = stack.controller.prompt([{ type: 'text', text: '[crash when=mid mode=exit code=3]' }]);
    const exit = await stack.proc.exited;
    const exitedAt = Date.now();
    const result = await turn;
    assert.ok(Date.now() - exitedAt < 1000, `prompt settled ${Date.now() - exitedAt} ms after the exit`);
    assert.equal(result.kind, 'interrupted');
    assert.ok(AgentExitedError.is(exit));
    assert.equal(exit.exitCode, 3);
    assert.match(exit.stderrTail, /about to crash/);
    assert.equal(stack.controller.state.phase, 'exited');
    const notice = stack.controller.state.entries.find((e) => e.kind === 'notice');
    assert.ok(notice?.kind === 'notice' && notice.log?.includes('about to crash'));
    // Later requests fail at once instead of hanging.
    await assert.rejects(stack.client.listSessions({}), (e: unknown) => AgentExitedError.is(e));
  });

  test('logs garbage on stdout and keeps the session going', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    await stack.controller.start();
    const result = await stack.controller.prompt([{ type: 'text', text: '[garbage] [plain]' }]);
    assert.equal(result.kind === 'ended' ? result.stopReason : result.kind, 'end_turn');
    const bad = stack.log.snapshot().filter((e) => e.kind === 'invalid' || e.kind === 'ignored');
    assert.ok(bad.length >= 3, `bad lines logged: ${bad.length}`);
    assert.ok(bad.some((e) => e.note?.includes('unknown request id')));
    const second = await stack.controller.prompt([{ type: 'text', text: 'still there? [plain]' }]);
    assert.equal(second.kind, 'ended');
  });

  test('logs an unknown session/update kind instead of dropping it silently', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    await stack.controller.start();
    await stack.controller.prompt([{ type: 'text', text: '[unknown-update] [plain]' }]);
    assert.ok(stack.log.snapshot().some((e) => e.kind === 'ignored' && e.method === 'session/update' && e.note?.includes('unknown sessionUpdate kind')));
  });

  test('reports a missing executable as a typed error', async () => {
    await assert.rejects(
      AgentProcess.start({ command: 'hermes-not-installed-anywhere', args: ['acp'], cwd: tempWorkspace() }),
      (e: unknown) => AgentNotFoundError.is(e) && e.message.includes('`hermes-not-installed-anywhere` was not found on PATH'),
    );
  });

  test('times out a request the agent does not answer', async () => {
    const cmd = scriptedAgentCommand(tempWorkspace(), { SCRIPTED_AGENT_INIT_DELAY_MS: '5000' });
    await assert.rejects(startStack(cmd, { timeouts: { initialize: 300 } }), (e: unknown) => AgentTimeoutError.is(e) && e.method === 'initialize');
  });

  test('dispose ends the agent process', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    const pid = stack.proc.pid;
    assert.ok(isAlive(pid));
    await stack.dispose();
    stack = undefined;
    assert.equal(isAlive(pid), false);
  });

  test('delivers the updates an agent sends right after session/new', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    await stack.controller.start();
    await waitForState(stack.controller, () => stack?.controller.state.usage !== undefined);
    assert.ok(stack.controller.state.usage !== undefined);
  });
});
