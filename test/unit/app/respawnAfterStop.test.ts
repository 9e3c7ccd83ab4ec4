/**
 * Crash recovery restarts an agent that exited unasked — and only that. The host CI run of
 * 2026-12-02 found a tagged agent alive after every host was stopped: a respawn timer armed by an
 * earlier crash fired after the stop and started the agent again. A stopped host stays stopped.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { AgentDefinition, AgentHost } from '../../../src/host/agentHost';
import type { AgentHosts } from '../../../src/app/agentHosts';
import { ChatRegistry } from '../../../src/app/chatRegistry';
import { ChatSession } from '../../../src/app/chatSession';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { scriptedAgentPath } from '../../support/paths';
import { chatHosts } from '../../support/chatHosts';
import { until } from '../../support/wait';

const initializes = (host: AgentHost): number => host.log.snapshot().filter((e) => e.dir === 'out' && e.method === 'initialize').length;

suite('crash recovery never restarts a host that was stopped after the crash', function () {
  this.timeout(30_000);
  const ws = tempWorkspace('hermes-respawn-stop-');
  let registry: ChatRegistry;
  let hosts: AgentHosts;
  const def: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: {} };

  setup(() => {
    registry = new ChatRegistry();
    hosts = chatHosts(registry, ws);
  });
  teardown(async () => {
    registry.disposeAll();
    await hosts.dispose();
  });
  suiteTeardown(() => fs.rmSync(ws, { recursive: true, force: true }));

  async function crashedChat(): Promise<AgentHost> {
    const host = hosts.hostFor(def);
    const chat = new ChatSession({ host, cwd: ws, consent: { allow: () => Promise.resolve(true) }, t: formatMessage });
    registry.add(chat);
    const r = await chat.submit([{ type: 'text', text: 'hello [plain]' }]);
    assert.equal(r?.kind === 'ended' ? r.stopReason : undefined, 'end_turn');
    const pid = host.pid;
    assert.ok(pid !== undefined);
    process.kill(pid, 'SIGKILL'); // an exit nobody asked for
    await until('the exit is seen', () => host.state.kind === 'exited', 5000);
    return host;
  }

  test('control: left alone, the crashed agent is restarted after the first delay (1 s)', async () => {
    const host = await crashedChat();
    await until('the respawn', () => host.state.kind === 'ready' && initializes(host) === 2, 5000);
  });

  test('stopped before the respawn fires: nothing starts again', async () => {
    const host = await crashedChat();
    await host.stop();
    await new Promise((resolve) => setTimeout(resolve, 1800)); // past the first respawn delay
    assert.equal(host.state.kind, 'notStarted');
    assert.equal(host.pid, undefined);
    assert.equal(initializes(host), 1, 'no second initialize');
  });
});
