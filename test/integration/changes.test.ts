import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HermesApi } from '../../src/extension';
import { ChangesCommandId } from '../../src/views/changes/changesIds';
import type { ChangesNode } from '../../src/views/changes/changesTree';
import type { ChangesFeature } from '../../src/views/changes/changesView';
import type { ChatSession } from '../../src/app/chatSession';
import { api, extension, lastAssistantText, useScriptedAgent, waitFor } from './support';

/**
 * The Changes view end to end: the scripted agent edits files through `fs/write_text_file`, by
 * writing them itself after a permission diff (Hermes 0.19), and creates new ones; the view lists
 * them per turn with counts; hunks, files and turns are reverted against the current text.
 */

function workspace(): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(root !== undefined, 'the test host opens a workspace folder');
  return fs.realpathSync(root);
}

/** Until the lead wires `changes` into `activate()`'s result, this says so instead of failing obscurely. */
function changesOf(a: HermesApi): ChangesFeature {
  const c = (a as HermesApi & { readonly changes?: ChangesFeature }).changes;
  assert.ok(c !== undefined, 'HermesApi.changes is missing: apply the Changes wiring to src/extension.ts');
  return c;
}

const lines = (prefix: string, n: number): string => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}\n`).join('');

function setLine(text: string, n: number, value: string): string {
  const ls = text.split(/(?<=\n)/);
  ls[n - 1] = value;
  return ls.join('');
}

/** A marker value: newlines escaped, quoted so `]` and key names cannot end it. */
function arg(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`;
}

const write = (file: string, text: string): string => `[write path=${file} text=${arg(text)}]`;
const edit = (file: string, text: string): string => `[edit path=${file} text=${arg(text)}]`;

/** A fresh chat on the scripted agent whose edit permissions are allowed (as a user clicking Allow). */
async function newChat(a: HermesApi): Promise<ChatSession> {
  const chat = await a.manager.newSidebarSession();
  await waitFor('session', () => chat.sessionId);
  chat.controller.onPermissionRequested((p) => {
    chat.choosePermission(p.requestId, 'allow_once');
  });
  return chat;
}

/** Runs a turn and waits until the Changes tracker has confirmed it (what the agent left on disk is read after the prompt ends). */
async function turn(chat: ChatSession, text: string): Promise<void> {
  const r = await chat.submit([{ type: 'text', text }]);
  assert.equal(r?.kind, 'ended', `turn "${text.slice(0, 60)}" ended`);
  await changesOf(await api()).service.trackerFor(chat)?.whenIdle(() => Promise.resolve());
}

/** The view's rows below a node, with the labels and descriptions VS Code shows. */
async function rows(feature: ChangesFeature, node?: ChangesNode): Promise<{ node: ChangesNode; label: string; description: string }[]> {
  const out: { node: ChangesNode; label: string; description: string }[] = [];
  for (const child of feature.tree.getChildren(node)) {
    const item = await feature.tree.getTreeItem(child);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    out.push({ node: child, label, description: typeof item.description === 'string' ? item.description : '' });
  }
  return out;
}

/** Waits until the service's debounced change has reached the tree. */
async function settled(): Promise<void> {
  await new Promise((r) => setTimeout(r, 100));
}

async function userEdit(file: string, line: number, text: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(file);
  const e = new vscode.WorkspaceEdit();
  e.replace(doc.uri, doc.lineAt(line - 1).range, text);
  assert.ok(await vscode.workspace.applyEdit(e));
  await doc.save();
}

suite('Changes view: agent changes per turn, keep / revert / restore (scripted agent)', () => {
  let dir: string;
  let counter = 0;

  suiteSetup(async () => {
    await useScriptedAgent({}, 'changes-agent');
    // Permission diffs would open diff editors; keep the editor area for the Changes diffs.
    await vscode.workspace.getConfiguration('hermes').update('review.openDiffs', 'onClick', vscode.ConfigurationTarget.Global);
  });

  setup(async () => {
    dir = path.join(workspace(), `changes-${++counter}`);
    fs.mkdirSync(dir, { recursive: true });
    // Each test reads the view from a clean slate (earlier chats' changes forgotten).
    changesOf(await api()).service.clear();
  });

  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('hermes').update('review.openDiffs', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('the commands are contributed', () => {
    const contributed = new Set(
      (JSON.parse(fs.readFileSync(path.join(extension().extensionPath, 'package.json'), 'utf8')) as { contributes: { commands: { command: string }[] } }).contributes.commands.map(
        (c) => c.command,
      ),
    );
    for (const id of Object.values(ChangesCommandId)) {
      assert.ok(contributed.has(id), `${id} is in package.json`);
    }
  });

  test('two turns, three files: listed with counts; one hunk, then a turn reverted; a user edit between turns survives; the agent hears of it', async () => {
    const a = await api();
    const feature = changesOf(a);
    const chat = await newChat(a);
    const fileA = path.join(dir, 'a.txt');
    const fileB = path.join(dir, 'b.txt');
    const fileC = path.join(dir, 'new', 'c.txt');
    const a0 = lines('a', 20);
    const b0 = lines('b', 5);
    fs.writeFileSync(fileA, a0);
    fs.writeFileSync(fileB, b0);

    // Turn 1: a.txt through fs/write_text_file (two hunks); b.txt written by the agent itself after a permission diff.
    const a1 = setLine(setLine(a0, 3, 'A THREE\n'), 15, 'A FIFTEEN\nA FIFTEEN-B\n');
    const b1 = setLine(b0, 2, 'B TWO\n');
    await turn(chat, `${write(fileA, a1)} ${edit(fileB, b1)}`);
    assert.equal(fs.readFileSync(fileB, 'utf8'), b1, 'the agent wrote b.txt itself');

    // The user edits a.txt between the turns, in another region.
    await userEdit(fileA, 10, 'user ten');

    // Turn 2: a new file, and b.txt again (another region) after a permission diff.
    const b2 = setLine(b1, 4, 'B FOUR\n');
    await turn(chat, `${write(fileC, 'c1\nc2\n')} ${edit(fileB, b2)}`);
    await settled();

    const tracker = feature.service.trackerFor(chat);
    assert.ok(tracker !== undefined);
    const top = await rows(feature);
    assert.deepEqual(
      top.filter((r) => r.node.kind === 'session').map((r) => [r.label, r.description]),
      [['This session (all turns)', '+7 \u22124 · 3 files']],
    );
    assert.deepEqual(
      (await rows(feature, top[0]?.node)).map((r) => [r.label, r.description.replace(/ · changes-.*/, '')]),
      [
        ['a.txt', '+3 \u22122'],
        ['b.txt', '+2 \u22122'],
        ['c.txt', '+2 \u22120 · new file'],
      ],
    );
    const turns = top.filter((r) => r.node.kind === 'turn');
    const recorded = JSON.stringify(tracker.turns().map((t) => [t.turnId, t.files.map((f) => [path.basename(f.path), f.sources, f.hunks.map((h) => [h.baseText, h.agentText])])]));
    assert.deepEqual(
      turns.map((r) => [r.label.replace(/:.*/, ''), r.description]),
      [
        ['Turn 2', '+3 \u22121 · 2 files'],
        ['Turn 1', '+4 \u22123 · 2 files'],
      ],
      recorded,
    );
    const turn2 = await rows(feature, turns[0]?.node);
    const turn1 = await rows(feature, turns[1]?.node);
    assert.deepEqual(
      turn2.map((r) => [r.label, r.description]),
      [
        ['c.txt', `+2 \u22120 · new file · changes-${counter}/new`],
        ['b.txt', `+1 \u22121 · changes-${counter}`],
      ],
    );
    assert.deepEqual(
      turn1.map((r) => [r.label, r.description]),
      [
        ['a.txt', `+3 \u22122 · changes-${counter}`],
        ['b.txt', `+1 \u22121 · changes-${counter}`],
      ],
    );
    assert.deepEqual(tracker.file(1, fileB)?.sources.includes('permission'), true);
    assert.deepEqual(tracker.file(1, fileA)?.sources.includes('write'), true);

    // Revert exactly one hunk of the multi-hunk change (the CodeLens / diff title command).
    const second = tracker.file(1, fileA)?.hunks.find((h) => h.agentText.includes('A FIFTEEN'));
    assert.ok(second !== undefined);
    await vscode.commands.executeCommand(ChangesCommandId.revertHunk, chat.id, 1, fileA, second.key);
    assert.equal(fs.readFileSync(fileA, 'utf8'), setLine(setLine(a0, 3, 'A THREE\n'), 10, 'user ten\n'), 'only that hunk went back');
    await settled();
    assert.equal((await rows(feature, (await rows(feature)).find((r) => r.label.startsWith('Turn 1'))?.node))[0]?.description, `+1 \u22121 · changes-${counter}`);

    // Revert turn 1: its remaining hunks go; the user's line 10 and turn 2's change to b.txt stay.
    const r = await feature.service.revertTurn(chat, 1, 'fail');
    assert.equal(r.conflicts, 0);
    assert.equal(fs.readFileSync(fileA, 'utf8'), setLine(a0, 10, 'user ten\n'));
    assert.equal(fs.readFileSync(fileB, 'utf8'), setLine(b0, 4, 'B FOUR\n'));
    assert.equal(fs.readFileSync(fileC, 'utf8'), 'c1\nc2\n');

    // The next prompt carries a note of what the user reverted; the view shows it until then.
    await settled();
    assert.equal((await rows(feature))[0]?.label, 'Note for the next prompt');
    const note = feature.service.noteText(chat);
    assert.match(note, /the user reverted some of your changes/);
    assert.match(note, new RegExp(`changes-${counter}/a\\.txt line 15 \\(turn 1\\): your 2 lines starting "A FIFTEEN" were replaced`));
    assert.match(note, /b\.txt line 2 \(turn 1\)/);
    await turn(chat, 'What did I undo?');
    assert.match(lastAssistantText(chat), /the user reverted some of your changes/);
    assert.match(lastAssistantText(chat), /What did I undo\?/);
    assert.equal(feature.service.noteText(chat), '', 'sent once');
  });

  test('an overlapping user edit is detected and not overwritten silently', async () => {
    const a = await api();
    const feature = changesOf(a);
    const chat = await newChat(a);
    const file = path.join(dir, 'overlap.txt');
    const v0 = lines('o', 10);
    fs.writeFileSync(file, v0);
    const v1 = setLine(setLine(v0, 2, 'AGENT TWO\n'), 8, 'AGENT EIGHT\n');
    await turn(chat, write(file, v1));
    // The user rewrites the agent's line 8 (unsaved, in the editor).
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file));
    await editor.edit((e) => e.replace(editor.document.lineAt(7).range, 'AGENT EIGHT, fixed by the user'));
    const failed = await feature.service.revertFile(chat, 1, file, 'fail');
    assert.equal(failed.cancelled, true);
    assert.equal(failed.conflicts, 1);
    assert.equal(editor.document.getText(), setLine(v1, 8, 'AGENT EIGHT, fixed by the user\n'), 'nothing changed');
    await settled();
    const [turnRow] = await rows(feature);
    assert.match((await rows(feature, turnRow?.node))[0]?.description ?? '', /edited since/);
    // "Skip edited regions": the clean hunk is reverted, the user's line stays, unsaved edits are not saved for the user.
    const skipped = await feature.service.revertFile(chat, 1, file, 'skip');
    assert.deepEqual([skipped.cancelled, skipped.conflicts], [false, 1]);
    assert.equal(editor.document.getText(), setLine(v0, 8, 'AGENT EIGHT, fixed by the user\n'));
    assert.equal(editor.document.isDirty, true, 'the user’s unsaved edit is not saved for them');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  test('restore to before turn 1 gives the original bytes of every touched file and deletes the new file', async () => {
    const a = await api();
    const feature = changesOf(a);
    const chat = await newChat(a);
    const x = path.join(dir, 'x.txt');
    const y = path.join(dir, 'y.txt');
    const z = path.join(dir, 'deep', 'er', 'z.txt');
    const x0 = Buffer.from('x one\r\nx two\r\nx three\r\nno newline at the end');
    const y0 = Buffer.from('y1\ny2\ny3\n');
    fs.writeFileSync(x, x0);
    fs.writeFileSync(y, y0);
    // Turn 1 rewrites x with LF line endings (through the client) and y (by the agent itself).
    await turn(chat, `${write(x, 'x one\nX TWO\nx three\n')} ${edit(y, 'y1\nY2\ny3\n')}`);
    // Turn 2: a new file in new folders, and x again.
    await turn(chat, `${write(z, 'zzz\n')} ${write(x, 'x one\nX TWO\nx three\nx four\n')}`);
    assert.ok(fs.existsSync(z));
    await vscode.commands.executeCommand(ChangesCommandId.restoreTurn, chat.id, 1);
    assert.deepEqual(fs.readFileSync(x), x0, 'x: original bytes (CRLF, no final newline)');
    assert.deepEqual(fs.readFileSync(y), y0, 'y: original bytes');
    assert.equal(fs.existsSync(z), false, 'the new file is deleted');
    await settled();
    assert.deepEqual(
      (await rows(feature)).map((r) => [r.label.replace(/:.*/, ''), r.description]),
      [
        ['Note for the next prompt', '3 reverted — sent with your next message'],
        ['This session (all turns)', 'all kept or reverted'],
        ['Turn 2', 'all kept or reverted'],
        ['Turn 1', 'all kept or reverted'],
      ],
      'nothing pending',
    );
    assert.match(feature.service.noteText(chat), /x\.txt: restored to how it was before turn 1/);
    assert.match(feature.service.noteText(chat), /z\.txt \(turn 2\): the file you created was deleted/);
  });

  test('a revert requested while a turn runs happens after the turn', async () => {
    const a = await api();
    const feature = changesOf(a);
    const chat = await newChat(a);
    const file = path.join(dir, 'queued.txt');
    fs.writeFileSync(file, 'q1\nq2\nq3\n');
    await turn(chat, write(file, 'q1\nQ TWO\nq3\n'));
    const running = chat.submit([{ type: 'text', text: '[slow n=12 ms=100]' }]);
    await waitFor('turn running', () => chat.controller.state.phase === 'running');
    let settledAt: number | undefined;
    const revert = feature.service.revertFile(chat, 1, file, 'fail').then((r) => {
      settledAt = Date.now();
      return r;
    });
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(settledAt, undefined, 'still waiting');
    assert.equal(fs.readFileSync(file, 'utf8'), 'q1\nQ TWO\nq3\n', 'not changed under the running agent');
    assert.equal(feature.service.trackerFor(chat)?.queued, 1);
    await running;
    const r = await revert;
    const turnEnd = chat.controller.state.entries.at(-1);
    assert.equal(turnEnd?.kind, 'turnEnd');
    assert.equal(r.queued, true);
    assert.ok(settledAt !== undefined && settledAt >= (turnEnd?.at ?? Infinity), 'reverted after the turn ended');
    assert.equal(fs.readFileSync(file, 'utf8'), 'q1\nq2\nq3\n');
  });

  test('a diff opens before the turn ↔ now, and the hunk under the cursor is reverted from it', async () => {
    const a = await api();
    const feature = changesOf(a);
    const chat = await newChat(a);
    const file = path.join(dir, 'diff.ts');
    const v0 = lines('const v', 12);
    fs.writeFileSync(file, v0);
    await turn(chat, write(file, setLine(setLine(v0, 3, 'const AGENT3\n'), 10, 'const AGENT10\n')));
    await vscode.commands.executeCommand(ChangesCommandId.openChangeDiff, chat.id, 1, file);
    await waitFor('diff tab', () => feature.diff.activeDiff());
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff);
    assert.match(tab.label, /before turn 1 ↔ now/);
    const left = await vscode.workspace.openTextDocument(tab.input.original);
    assert.equal(left.getText(), v0, 'the left side is the snapshot');
    const editor = await waitFor('file side', () => (vscode.window.activeTextEditor?.document.uri.fsPath === file ? vscode.window.activeTextEditor : undefined));
    // CodeLens on the file: Revert / Keep per hunk.
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
    assert.deepEqual(
      lenses.filter((l) => l.command?.command === ChangesCommandId.revertHunk).map((l) => l.range.start.line),
      [2, 9],
    );
    // The cursor on the second hunk, in the diff's file side; the title action reverts that hunk.
    editor.selection = new vscode.Selection(9, 2, 9, 2);
    await vscode.commands.executeCommand(ChangesCommandId.revertHunk);
    assert.equal(fs.readFileSync(file, 'utf8'), setLine(v0, 3, 'const AGENT3\n'));
    // Undoable: undo brings the agent's line back, and the hunk is pending again.
    await vscode.commands.executeCommand('undo');
    await waitFor('undo', () => editor.document.getText().includes('const AGENT10'));
    await waitFor('hunk pending again', () => feature.service.trackerFor(chat)?.file(1, file)?.pending === 2);
    await vscode.commands.executeCommand('redo');
    await waitFor('redo', () => !editor.document.getText().includes('const AGENT10'));
    await editor.document.save();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('rewind: files restored and the conversation forked from that turn’s prompt', async () => {
    const a = await api();
    const feature = changesOf(a);
    const chat = await newChat(a);
    const file = path.join(dir, 'rewind.txt');
    fs.writeFileSync(file, 'r1\n');
    await turn(chat, 'first [plain]');
    await turn(chat, `second ${write(file, 'R ONE\n')}`);
    const before = a.manager.allChats.length;
    await vscode.commands.executeCommand(ChangesCommandId.rewindTurn, chat.id, 2);
    assert.equal(fs.readFileSync(file, 'utf8'), 'r1\n');
    const forked = await waitFor('fork', () => (a.manager.allChats.length > before ? a.manager.allChats.at(-1) : undefined));
    assert.deepEqual(
      forked.controller.state.entries.filter((e) => e.kind === 'user').map((e) => (e.kind === 'user' ? e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : '')),
      ['first [plain]'],
    );
    await a.manager.closeChat(forked);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.match(feature.service.noteText(chat), /rewind\.txt: restored to how it was before turn 2/);
  });

  test('snapshot usage is bounded; the header says what there is to review, not how it is stored', async () => {
    const a = await api();
    const feature = changesOf(a);
    const chat = await newChat(a);
    const file = path.join(dir, 'usage.txt');
    fs.writeFileSync(file, 'u'.repeat(4096) + '\n');
    await turn(chat, write(file, 'changed\n'));
    await settled();
    const u = feature.service.usage();
    assert.equal(u.files, 1);
    assert.equal(u.snapshots, 1);
    assert.equal(u.bytesInMemory, 4097, 'only the touched file, once');
    assert.equal(u.bytesOnDisk, 0);
    assert.equal(feature.tree.view.description, '1 to review');
  });
});
