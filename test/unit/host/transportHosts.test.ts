/**
 * `hermes.agents[].transport` settings, and an AgentHost that builds the transport they name: a
 * TUI Gateway agent's chat offers rewrite and attach (declared by the transport), routes its
 * questions to the chat of the session, and a closed gateway is reported as the agent's exit.
 */
import * as assert from 'node:assert/strict';
import { AgentHost } from '../../../src/host/agentHost';
import { transportOffers } from '../../../src/app/transportOffers';
import { connectTransport } from '../../../src/host/connectTransport';
import { canAttach } from '../../../src/agentPort/transport';
import { parseTransportSettings, transportSecretKey } from '../../../src/host/transportSettings';
import { until } from '../../support/wait';
import { FakeProcess, fakeTuiGatewayJs, repoRoot } from '../transports/transportRig';

suite('app / transport settings and hosts', () => {
  test('settings: acp by default; gateway by url or hermesRoot; api server by baseUrl and mode; problems in words', () => {
    assert.deepEqual(parseTransportSettings({ id: 'a', command: 'hermes' }), {});
    assert.deepEqual(parseTransportSettings({ id: 'g', transport: 'tui-gateway', gateway: { url: 'ws://127.0.0.1:9119/api/ws' } }).settings, { kind: 'tui-gateway', url: 'ws://127.0.0.1:9119/api/ws' });
    assert.deepEqual(parseTransportSettings({ id: 'g', transport: 'tui-gateway', gateway: { python: '/opt/hermes/venv/bin/python', hermesRoot: '/opt/hermes' } }).settings, {
      kind: 'tui-gateway',
      python: '/opt/hermes/venv/bin/python',
      hermesRoot: '/opt/hermes',
    });
    assert.deepEqual(parseTransportSettings({ id: 's', transport: 'api-server', apiServer: { baseUrl: 'http://10.0.0.2:8642', mode: 'runs' } }).settings, { kind: 'api-server', baseUrl: 'http://10.0.0.2:8642', mode: 'runs' });
    assert.equal(parseTransportSettings({ id: 's', transport: 'api-server', apiServer: { baseUrl: 'http://x' } }).settings?.kind, 'api-server');
    for (const bad of [
      { transport: 'tui-gateway' },
      { transport: 'tui-gateway', gateway: { url: 'http://not-ws' } },
      { transport: 'api-server', apiServer: { baseUrl: 'ftp://x' } },
      { transport: 'api-server', apiServer: { baseUrl: 'http://x', mode: 'batch' } },
      { transport: 'carrier-pigeon' },
    ]) {
      const r = parseTransportSettings({ id: 'x', ...bad });
      assert.equal(r.settings, undefined, JSON.stringify(bad));
      assert.ok((r.problem ?? '').length > 10, JSON.stringify(bad));
    }
    assert.equal(transportSecretKey('g', { kind: 'tui-gateway', hermesRoot: '/opt/hermes' }), undefined, 'a gateway we start needs no token');
    assert.equal(transportSecretKey('g', { kind: 'tui-gateway', url: 'ws://h/api/ws' })?.key, 'hermes.gatewayToken.g');
    assert.equal(transportSecretKey('s', { kind: 'api-server', baseUrl: 'http://h', mode: 'chat' })?.key, 'hermes.apiKey.s');
  });

  test('a tui-gateway agent over WebSocket: the token from the secret source, offers from the transport, exit on close', async () => {
    const fake = new FakeProcess(fakeTuiGatewayJs, ['--ws', '--token', 'tok-123', '--generation', 'next']);
    const { port } = await fake.ready;
    const asked: string[] = [];
    const host = new AgentHost(
      { id: 'gw', name: 'Hermes (gateway)', command: '', args: [], env: {}, transport: { kind: 'tui-gateway', url: `ws://127.0.0.1:${port}/api/ws` } },
      {
        cwd: repoRoot,
        clientInfo: { name: 'test', version: '0' },
        ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
        connectTransport,
        transportSecret: (def) => (asked.push(def.id), Promise.resolve('tok-123')),
      },
    );
    const exits: boolean[] = [];
    host.onDidExit((e) => exits.push(e.expected));
    try {
      const connection = await host.start();
      assert.deepEqual(asked, ['gw']);
      assert.equal(host.state.kind, 'ready');
      assert.ok(canAttach(connection));
      assert.deepEqual(transportOffers(connection).offers, { rewrite: true, fork: true, modes: false, attach: true });
      assert.deepEqual(transportOffers(undefined), {});
      const session = await connection.newSession({ cwd: repoRoot, mcpServers: [] });
      assert.ok(session.sessionId !== '');
      await fake.stop();
      await until('the exit', () => (exits.length > 0 ? true : undefined));
      assert.deepEqual(exits, [false], 'a gateway that went away is an unexpected exit');
      assert.equal(host.state.kind, 'exited');
    } finally {
      await host.dispose();
      await fake.stop();
    }
  });
});
