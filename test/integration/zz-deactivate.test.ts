import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, extension, isAlive, useScriptedAgent, waitFor } from './support';

// Runs last (files run in name order): it deactivates the extension.
suite('deactivate', () => {
  test('kills every agent process it started, leaving no orphan', async () => {
    await useScriptedAgent({}, 'deactivate');
    const a = await api();
    await vscode.commands.executeCommand('hermes.newSession');
    const chat = a.manager.sidebar;
    await waitFor('session', () => chat.sessionId);
    const pids = a.manager.allHosts.map((h) => h.pid).filter((p): p is number => p !== undefined);
    assert.ok(pids.length >= 1);
    assert.ok(pids.every(isAlive));
    // The same module instance VS Code loaded: calling its deactivate is what VS Code does on shutdown.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the loaded CommonJS bundle itself
    const main = require(path.join(extension().extensionPath, 'dist', 'extension.js')) as { deactivate(): Promise<void> };
    await main.deactivate();
    for (const pid of pids) {
      assert.equal(isAlive(pid), false, `agent ${pid} is gone`);
    }
  });
});
