import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolEntry } from '../../../src/session/sessionState';
import { ChatSession } from '../../../src/views/chatSession';
import { until } from '../../support/wait';
import { ChatRig } from '../hardening/chatRig';

function lastAssistantText(chat: ChatSession): string {
  const last = chat.controller.state.entries.filter((e) => e.kind === 'assistant').at(-1);
  return last?.kind === 'assistant' ? last.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') : '';
}

function permissionTools(chat: ChatSession): ToolEntry[] {
  return chat.controller.state.entries.filter((e): e is ToolEntry => e.kind === 'tool' && e.permission !== undefined);
}

/**
 * A chat's side of the policy with a real agent process (the scripted agent's Hermes-style
 * `perm-check-N` requests): the traffic log says what was checked and what decided, and "always"
 * remembers the exact argv, which answers the same argv later but not the same text with more
 * chained to it.
 */
suite('chat permissions with a real agent: traffic log and "always" memory', function () {
  this.timeout(60_000);
  let ws: string;
  let rig: ChatRig;
  setup(() => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-chatperm-')));
    rig = new ChatRig({ cwd: ws, timeouts: { session: 20_000, other: 10_000 } });
  });
  teardown(async () => {
    await rig.dispose();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test('the traffic log and the card show the targets and the decision; "always" stores the exact argv', async () => {
    const chat = new ChatSession({ host: rig.host, cwd: ws, consent: { allow: () => Promise.resolve(true) } });
    rig.chats.add(chat);
    assert.equal(await chat.ensureStarted(), true);

    const first = chat.submit([{ type: 'text', text: '[command cmd=ls -la]' }]);
    const pending = await until('the permission', () => chat.controller.pendingPermissions[0], 20_000, 20);
    const note = rig.host.log.snapshot().find((e) => e.dir === 'note' && e.text.startsWith('permission perm-check-'));
    assert.match(note?.text ?? '', /^permission perm-check-\d+: no rule allows run ls -la; checked: run ls -la$/);
    assert.deepEqual(permissionTools(chat).at(-1)?.permission?.check, { targets: ['run ls -la'], decision: 'no rule allows run ls -la', argv: ['ls', '-la'] });
    assert.equal(chat.choosePermission(pending.requestId, 'allow_always'), true);
    await first;
    assert.match(permissionTools(chat).at(-1)?.permission?.remembered ?? '', /^Remembered: you chose "Allow always" for run ls -la \(this session\)$/);

    // The agent caches its own "always" by text: the same argv written differently is asked of the client again.
    await chat.submit([{ type: 'text', text: '[command cmd=ls  -la]' }]);
    assert.equal(lastAssistantText(chat), 'You chose allow_once.');
    assert.match(permissionTools(chat).at(-1)?.permission?.answeredBy ?? '', /^rule: you chose "Allow always" for run ls -la/);

    const chained = chat.submit([{ type: 'text', text: '[command cmd=ls -la; rm -rf ~]' }]);
    const asked = await until('the chained command to be asked', () => chat.controller.pendingPermissions[0], 20_000, 20);
    assert.match(permissionTools(chat).at(-1)?.permission?.check?.decision ?? '', /no rule allows run rm -rf ~/);
    assert.equal(chat.choosePermission(asked.requestId, 'deny'), true);
    await chained;
    assert.equal(lastAssistantText(chat), 'You chose deny.');
  });
});
