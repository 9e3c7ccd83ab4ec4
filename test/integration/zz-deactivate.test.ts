import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, extension, isAlive, useScriptedAgent, waitFor } from './support';

// Runs last (files run in name order): it deactivates the extension.
suite('deactivate', () => {
  test('kills every agent process it started, leaving no orphan; a write waiting for review ends unwritten', async () => {
    await useScriptedAgent({}, 'deactivate');
    await vscode.workspace.getConfiguration('hermes').update('review.writes', 'review', vscode.ConfigurationTarget.Global);
    const a = await api();
    await vscode.commands.executeCommand('hermes.newSession');
    const chat = a.manager.sidebar;
    await waitFor('session', () => chat.sessionId);
    const file = path.join(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '', 'review-deactivate.txt');
    fs.writeFileSync(file, 'original\n');
    void chat.submit([{ type: 'text', text: `[write path=${file} text=changed]` }]);
    const proposed = await waitFor('the proposal tab', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).flatMap((t) => (t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'hermes-proposal' ? [t.input.modified] : []))[0],
    30_000);
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
    assert.equal(a.manager.reviewer.answer(proposed, true), false, 'a late Allow answers nothing');
    assert.equal(fs.readFileSync(file, 'utf8'), 'original\n');
    await vscode.workspace.getConfiguration('hermes').update('review.writes', undefined, vscode.ConfigurationTarget.Global);
  });
});
