/**
 * Issue 17 — `session/close` when the agent advertises `sessionCapabilities.close`: on closing a chat
 * (a tab, or the sidebar chat a new session replaces — ChatRegistry.close, what ChatManager.closeChat
 * runs) and by the runner before it stops the agent; nothing when it is not advertised. Real scripted
 * agent, checked in the traffic log and in what the agent logged.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import { ChatRegistry } from '../../../src/app/chatRegistry';
import { ChatSession } from '../../../src/app/chatSession';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { scriptedAgentPath } from '../../support/paths';
import { until } from '../../support/wait';
import { killLeftovers, runCli, scriptedAgent } from '../cli/cliHarness';

const methodsSent = (host: AgentHost): string[] => host.log.snapshot().flatMap((e) => (e.dir === 'out' && e.method !== undefined ? [e.method] : []));
const stderr = (host: AgentHost): string[] => host.log.snapshot().flatMap((e) => (e.dir === 'stderr' && e.text !== undefined ? [e.text] : []));

suite('issue 17: session/close on closing a chat and before the runner stops the agent', function () {
  this.timeout(60_000);
  const ws = tempWorkspace('hermes-close-');
  const hosts: AgentHost[] = [];

  function hostWith(env: Record<string, string>): AgentHost {
    const def: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env };
    const host = new AgentHost(def, {
      cwd: ws,
      clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' },
      ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
    });
    hosts.push(host);
    return host;
  }

  teardown(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.dispose()));
    killLeftovers();
  });
  suiteTeardown(() => fs.rmSync(ws, { recursive: true, force: true }));

  async function openAndClose(host: AgentHost): Promise<string> {
    const registry = new ChatRegistry();
    const chat = new ChatSession({ host, cwd: ws, consent: { allow: () => Promise.resolve(true) }, t: formatMessage });
    registry.add(chat);
    assert.equal(await chat.ensureStarted(), true);
    const id = chat.sessionId ?? '';
    const released: string[] = [];
    await registry.close(chat, (sessionId) => {
      released.push(sessionId);
      return Promise.resolve();
    });
    assert.deepEqual(released, [id]);
    assert.equal(registry.all.length, 0);
    return id;
  }

  test('closing a chat sends session/close for its session; the agent frees it', async () => {
    const host = hostWith({});
    const id = await openAndClose(host);
    const close = host.log.snapshot().find((e) => e.dir === 'out' && e.method === 'session/close');
    assert.match(close?.text ?? '', new RegExp(`"sessionId":"${id}"`));
    await until('the agent logged the close', () => stderr(host).some((l) => l.includes(`session/close ${id}`)), 10_000);
  });

  test('an agent that does not advertise close is not sent one', async () => {
    const host = hostWith({ SCRIPTED_AGENT_NO_CLOSE: '1' });
    await openAndClose(host);
    assert.ok(!methodsSent(host).includes('session/close'), methodsSent(host).join(', '));
  });

  test('hermes-acp-run sends session/close after the turn, before it stops the agent', async () => {
    const traffic = path.join(ws, `run-${Date.now()}.jsonl`);
    const r = await runCli(['-q', '[plain]', '--format', 'stream-json', '--traffic-log', traffic, '--', ...scriptedAgent], { cwd: ws });
    assert.equal(r.code, 0, r.stderr);
    const sent = fs
      .readFileSync(traffic, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .flatMap((l) => {
        const rec = JSON.parse(l) as { dir: string; msg: { method?: string } | string };
        return rec.dir === '->' && typeof rec.msg === 'object' && rec.msg.method !== undefined ? [rec.msg.method] : [];
      });
    assert.deepEqual(sent.slice(-2), ['session/prompt', 'session/close']);
  });
});
