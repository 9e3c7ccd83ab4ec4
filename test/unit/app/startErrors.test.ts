import * as assert from 'node:assert/strict';
import { AgentNotFoundError, AgentSpawnError } from '../../../src/agentPort/agentErrors';
import { scopeFor, scopeName } from '../../../src/app/settingsScope';
import { describeStartError } from '../../../src/app/startErrors';

const hermes = { id: 'hermes', name: 'Hermes', command: 'hermes', args: ['acp'], env: {} };

suite('start errors name the settings scope this window reads (issue 22)', () => {
  test('every kind of remote window reads the Remote settings; a local window the User settings', () => {
    assert.deepEqual(scopeFor(undefined), { kind: 'user' });
    assert.deepEqual(scopeFor(''), { kind: 'user' });
    assert.deepEqual(
      ['ssh-remote', 'wsl', 'dev-container', 'attached-container', 'codespaces', 'tunnel', 'k8s-container'].map((r) => scopeName(scopeFor(r))),
      [
        'the Remote settings (SSH)',
        'the Remote settings (WSL)',
        'the Remote settings (Dev Container)',
        'the Remote settings (Container)',
        'the Remote settings (Codespaces)',
        'the Remote settings (Tunnel)',
        'the Remote settings (Kubernetes)',
      ],
    );
    // code-server: the workbench's remote authority is the server's host:port.
    assert.deepEqual(scopeFor('127.0.0.1:8080'), { kind: 'remote', remoteName: '127.0.0.1:8080', label: '127.0.0.1:8080' });
  });

  test('a missing agent in a local window: User settings, Set Up Agent and Open User Settings', () => {
    const n = describeStartError(new AgentNotFoundError('hermes', '/usr/bin'), hermes, scopeFor(undefined));
    assert.equal(n.title, '`hermes` was not found on PATH.');
    assert.match(n.detail ?? '', /^Agent commands \("hermes\.agents"\) are read from your User settings\. Use "Set Up Agent…" to choose its executable, or install Hermes Agent/);
    assert.doesNotMatch(n.detail ?? '', /Remote/);
    assert.deepEqual(n.actions, ['setupAgent', 'openSettings', 'checkInstallation', 'useDemoAgent']);
  });

  test('a missing agent in a remote window never sends the user to the User settings it ignores', () => {
    const n = describeStartError(new AgentNotFoundError('hermes', '/usr/bin'), hermes, scopeFor('wsl'));
    assert.equal(n.title, '`hermes` was not found on PATH of the remote machine (WSL).');
    assert.match(n.detail ?? '', /^This remote window reads agent commands \("hermes\.agents"\) from the Remote settings \(WSL\), not from your local User settings\./);
    assert.match(n.detail ?? '', /install Hermes Agent \(https:\/\/github\.com\/NousResearch\/hermes-agent\) on that machine\.$/);
    assert.deepEqual(n.actions, ['setupAgent', 'openRemoteSettings', 'checkInstallation', 'useDemoAgent']);
    const spawn = describeStartError(new AgentSpawnError('/opt/hermes', 'EACCES', new Error('permission denied')), { ...hermes, command: '/opt/hermes' }, scopeFor('ssh-remote'));
    assert.deepEqual(spawn.actions, ['setupAgent', 'openRemoteSettings', 'showTraffic']);
    assert.match(spawn.detail ?? '', /Remote settings \(SSH\)/);
  });
});
