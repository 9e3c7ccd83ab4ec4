import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ClientRequestError } from '../../src/agentPort/agentErrors';
import { api, lastAssistantText, useScriptedAgent, waitFor } from './support';
import { tempDir } from '../support/tempDirs';

function workspace(): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(root !== undefined, 'the test host opens a workspace folder');
  return fs.realpathSync(root);
}

suite('client file system (fs/read_text_file, fs/write_text_file)', () => {
  test('reads the open document with its unsaved edits, honouring line and limit', async () => {
    const file = path.join(workspace(), 'dirty.txt');
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    await editor.edit((b) => b.replace(new vscode.Range(1, 0, 1, 3), 'TWO (unsaved)'));
    assert.ok(editor.document.isDirty);
    const a = await api();
    const whole = await a.manager.fs.readTextFile({ sessionId: 's', path: file });
    assert.equal(whole.content, 'one\nTWO (unsaved)\nthree\n');
    const slice = await a.manager.fs.readTextFile({ sessionId: 's', path: file, line: 2, limit: 1 });
    assert.equal(slice.content, 'TWO (unsaved)');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('writes through a WorkspaceEdit: saved to disk, and undo brings the old text back', async () => {
    const file = path.join(workspace(), 'undo.txt');
    fs.writeFileSync(file, 'before\n');
    const a = await api();
    await a.manager.fs.writeTextFile({ sessionId: 's', path: file, content: 'after\n' });
    assert.equal(fs.readFileSync(file, 'utf8'), 'after\n');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    assert.equal(editor.document.getText(), 'after\n');
    await vscode.commands.executeCommand('undo');
    await waitFor('undo', () => editor.document.getText() === 'before\n');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('creates a new file in new folders', async () => {
    const file = path.join(workspace(), 'made', 'by', 'agent.ts');
    const a = await api();
    await a.manager.fs.writeTextFile({ sessionId: 's', path: file, content: 'export const x = 1;\n' });
    assert.equal(fs.readFileSync(file, 'utf8'), 'export const x = 1;\n');
  });

  test('refuses a path outside the workspace and a symlink escaping it, writing nothing', async () => {
    const outside = tempDir('hermes-outside-');
    const target = path.join(outside, 'victim.txt');
    fs.writeFileSync(target, 'untouched\n');
    const link = path.join(workspace(), 'escape.txt');
    fs.symlinkSync(target, link);
    const a = await api();
    await assert.rejects(a.manager.fs.writeTextFile({ sessionId: 's', path: path.join(outside, 'new.txt'), content: 'x' }), (e: unknown) => ClientRequestError.is(e) && e.message.includes('outside the workspace'));
    await assert.rejects(a.manager.fs.writeTextFile({ sessionId: 's', path: link, content: 'pwned\n' }), (e: unknown) => ClientRequestError.is(e) && e.message.includes('resolves to'));
    await assert.rejects(a.manager.fs.readTextFile({ sessionId: 's', path: link }), (e: unknown) => ClientRequestError.is(e));
    assert.equal(fs.readFileSync(target, 'utf8'), 'untouched\n');
    assert.equal(fs.existsSync(path.join(outside, 'new.txt')), false);
  });

  test('an agent reads and writes through the client (scripted agent over ACP)', async () => {
    await useScriptedAgent({}, 'fs-agent');
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    const file = path.join(workspace(), 'via-agent.txt');
    fs.writeFileSync(file, 'alpha\nbeta\ngamma\n');
    await chat.submit([{ type: 'text', text: `[read path=${file} line=2 limit=1]` }]);
    assert.match(lastAssistantText(chat), /beta/);
    assert.doesNotMatch(lastAssistantText(chat), /gamma/);
    await chat.submit([{ type: 'text', text: `[write path=${path.join(workspace(), 'agent-wrote.txt')} text=written by the agent]` }]);
    assert.equal(fs.readFileSync(path.join(workspace(), 'agent-wrote.txt'), 'utf8'), 'written by the agent');
    await chat.submit([{ type: 'text', text: '[write path=/etc/hermes-should-not-exist.txt text=nope]' }]);
    assert.match(lastAssistantText(chat), /outside the workspace/);
    assert.equal(fs.existsSync('/etc/hermes-should-not-exist.txt'), false);
  });
});
