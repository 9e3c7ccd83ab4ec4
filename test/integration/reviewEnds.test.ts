import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatManager } from '../../src/views/chat/chatManager';
import type { ChatSession } from '../../src/app/chatSession';
import { api, useScriptedAgent, waitFor } from './support';

function workspace(): string {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(root !== undefined, 'the test host opens a workspace folder');
  return fs.realpathSync(root);
}

/** The proposed side of every open proposal diff tab. */
function proposalDocuments(): vscode.Uri[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .flatMap((t) => (t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'hermes-proposal' ? [t.input.modified] : []));
}

const ends: { name: string; end: (manager: ChatManager, chat: ChatSession) => Promise<unknown> }[] = [
  { name: 'turn cancel', end: (_m, chat) => chat.cancel() },
  { name: 'session close', end: (m, chat) => m.closeChat(chat) },
  { name: 'agent exit', end: (_m, chat) => Promise.resolve(process.kill(chat.host.pid ?? 0, 'SIGKILL')) },
  { name: 'agent restart', end: (m, chat) => m.restartAgent(chat.host) },
];

/**
 * Issue 16 "every write ends", in the extension host: a `fs/write_text_file` waiting for review
 * (`hermes.review.writes: review`) ends as rejected on each way a turn can end, its diff tab
 * closes, and a late Allow from the diff editor's title changes nothing on disk.
 */
suite('review writes end with their turn', () => {
  suiteSetup(async () => {
    await useScriptedAgent({}, 'review-ends');
    await vscode.workspace.getConfiguration('hermes').update('review.writes', 'review', vscode.ConfigurationTarget.Global);
  });
  suiteTeardown(async () => {
    await vscode.workspace.getConfiguration('hermes').update('review.writes', undefined, vscode.ConfigurationTarget.Global);
  });

  for (const { name, end } of ends) {
    test(`${name}: the write is rejected, the file unchanged, its tab closed, a late Allow writes nothing`, async () => {
      const a = await api();
      const chat = await a.manager.newSidebarSession();
      await waitFor('session', () => chat.sessionId);
      const file = path.join(workspace(), `review-${name.replace(/\W+/g, '-')}.txt`);
      fs.writeFileSync(file, 'original\n');
      const turn = chat.submit([{ type: 'text', text: `[write path=${file} text=changed by the agent]` }]);
      const proposed = await waitFor('the proposal tab', () => proposalDocuments()[0], 30_000);
      await end(a.manager, chat);
      await waitFor('the proposal tab to close', () => proposalDocuments().length === 0, 30_000);
      await turn;
      assert.equal(a.manager.reviewer.answer(proposed, true), false, 'a late Allow answers nothing');
      assert.equal(fs.readFileSync(file, 'utf8'), 'original\n');
    });
  }

  test('Reject in the diff title answers the agent with an error; Allow writes; each tab closes', async () => {
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    const file = path.join(workspace(), 'review-answered.txt');
    fs.writeFileSync(file, 'original\n');
    for (const accept of [false, true]) {
      const turn = chat.submit([{ type: 'text', text: `[write path=${file} text=accepted=${String(accept)}]` }]);
      const proposed = await waitFor('the proposal tab', () => proposalDocuments()[0], 30_000);
      assert.equal(a.manager.reviewer.answer(proposed, accept), true);
      await waitFor('the proposal tab to close', () => proposalDocuments().length === 0, 30_000);
      await turn;
      assert.equal(fs.readFileSync(file, 'utf8'), accept ? 'accepted=true' : 'original\n');
    }
  });
});
