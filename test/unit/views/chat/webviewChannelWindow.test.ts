import * as assert from 'node:assert/strict';
import type { ChatSession } from '../../../../src/app/chatSession';
import type { EntryView } from '../../../../src/protocol/sessionView';
import { PROTOCOL_VERSION, type EntriesResult, type FindResult, type HostMessage } from '../../../../src/protocol/webviewProtocol';
import type { ViewContext } from '../../../../src/session/viewProjection';
import { snapshotLimits } from '../../../../src/session/viewWindow';
import { WebviewChannel } from '../../../../src/views/chat/webviewChannel';
import { chatOver } from '../../../builders/boundChat';
import { SessionHarness, textChunk, toolCall, toolUpdate } from '../../../builders/sessionBuilders';

const context: ViewContext = { agentName: 'Agent', readOnly: false, acceptsImages: false, pendingPermissions: 0, now: 0, relativePath: (p) => p };

/** `turns` finished turns of four entries (prompt, answer, a shell call with `outputChars` of output, footer). */
function longChat(turns: number, outputChars = 200): { harness: SessionHarness; chat: ChatSession; changed: () => void } {
  const harness = new SessionHarness();
  for (let i = 0; i < turns; i++) {
    harness.prompt(`Question ${i}`);
    harness.update(textChunk(`Answer ${i}: the needle${i % 50 === 7 ? ' and another needle' : ''} is here.\nSecond line.`));
    harness.update(toolCall(`t${i}`, { title: `npm test ${i}`, kind: 'execute', status: 'in_progress' }));
    harness.update(toolUpdate(`t${i}`, { status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'ok\n'.repeat(outputChars / 3) } }] }));
    harness.end();
  }
  const { chat, changed } = chatOver(harness);
  return { harness, chat, changed };
}

function channelFor(chat: ChatSession): { channel: WebviewChannel; posted: HostMessage[]; call: (id: number, call: unknown) => void } {
  const posted: HostMessage[] = [];
  let listener: (raw: unknown) => void = () => undefined;
  const channel = new WebviewChannel(
    {
      postMessage: (m) => {
        posted.push(JSON.parse(JSON.stringify(m)) as HostMessage);
        return Promise.resolve(true);
      },
      onDidReceiveMessage: (l) => {
        listener = l;
        return { dispose: () => undefined };
      },
    },
    { context: () => context, onMessage: () => undefined },
  );
  channel.bind(chat);
  listener({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION, clientId: 'c' });
  return { channel, posted, call: (id, c) => listener({ type: 'request/call', id, call: c }) };
}

function result<T>(posted: readonly HostMessage[], id: number): T {
  const m = posted.find((p) => p.type === 'request/result' && p.id === id);
  assert.ok(m?.type === 'request/result' && m.ok, `answer ${id}: ${JSON.stringify(m)}`);
  return m.value as T;
}

suite('webview channel: a long session is sent in part, the rest on request', () => {
  test('a short session is sent whole, as before', () => {
    const { chat } = longChat(5);
    const { posted, channel } = channelFor(chat);
    const snap = posted[0];
    assert.ok(snap?.type === 'session/snapshot');
    assert.equal(snap.view.entries.length, chat.controller.state.entries.length);
    assert.equal(snap.view.earlier, undefined);
    channel.dispose();
  });

  test('a snapshot of 2,000 entries carries the last ones whole and outlines the others, in order', () => {
    const { chat } = longChat(500);
    const { posted, channel } = channelFor(chat);
    const snap = posted[0];
    assert.ok(snap?.type === 'session/snapshot');
    const all = chat.controller.state.entries;
    const earlier = snap.view.earlier ?? [];
    assert.equal(snap.view.entries.length, snapshotLimits.entries);
    assert.equal(earlier.length + snap.view.entries.length, all.length);
    assert.deepEqual([...earlier.map((o) => o.id), ...snap.view.entries.map((e) => e.id)], all.map((e) => e.id));
    assert.deepEqual(
      earlier.slice(0, 4).map((o) => o.kind),
      ['user', 'assistant', 'tool', 'turnEnd'],
    );
    assert.equal(earlier[1]?.lines, 2, 'an answer of two short lines');
    // 2,000 entries in ~150 KB instead of all of them.
    assert.ok(JSON.stringify(snap).length < JSON.stringify(all).length / 3);
    channel.dispose();
  });

  test('a big session stops at the character budget: 100 tool outputs of 50 KB are not all sent', () => {
    const { chat } = longChat(100, 50_000);
    const { posted, channel } = channelFor(chat);
    const snap = posted[0];
    assert.ok(snap?.type === 'session/snapshot');
    const sentChars = JSON.stringify(snap.view.entries).length;
    assert.ok(sentChars < snapshotLimits.chars * 1.2, `${sentChars} characters sent whole`);
    assert.ok((snap.view.earlier ?? []).length > 100, `${(snap.view.earlier ?? []).length} outlined`);
    channel.dispose();
  });

  test('entries/get answers with the entries as last posted and that seq; later changes come as patches', async () => {
    const { chat, harness, changed } = longChat(500);
    const { posted, call, channel } = channelFor(chat);
    call(1, { method: 'entries/get', params: { from: 10, to: 30 } });
    const r = result<EntriesResult>(posted, 1);
    assert.equal(r.from, 10);
    assert.equal(r.seq, 1);
    assert.deepEqual(
      r.entries.map((e) => e.id),
      chat.controller.state.entries.slice(10, 30).map((e) => e.id),
    );
    // A change not posted yet is not in an answer: it follows in the patch with the next seq.
    harness.prompt('one more');
    changed();
    call(2, { method: 'entries/get', params: { from: 1_999, to: 2_010 } });
    assert.deepEqual(
      result<EntriesResult>(posted, 2).entries.map((e) => e.id),
      [chat.controller.state.entries[1_999]?.id],
    );
    channel.flush();
    const patch = posted.at(-1);
    assert.ok(patch?.type === 'session/patch' && patch.seq === 2 && patch.ops[0]?.op === 'insert' && patch.ops[0].index === 2_000);
    call(3, { method: 'entries/get', params: { from: 2_000, to: 2_010 } });
    const r3 = result<EntriesResult>(posted, 3);
    assert.equal(r3.seq, 2);
    assert.equal((r3.entries[0] as Extract<EntryView, { kind: 'user' }> | undefined)?.kind, 'user');
    // Out of range, and malformed: an empty answer, and nothing.
    call(4, { method: 'entries/get', params: { from: 5_000, to: 5_010 } });
    assert.deepEqual(result<EntriesResult>(posted, 4).entries, []);
    const before = posted.length;
    call(5, { method: 'entries/get', params: { from: -1, to: 'x' } });
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(posted.length, before, 'a malformed request is dropped');
    channel.dispose();
  });

  test('transcript/find lists every entry whose shown text holds the query, case-insensitively, with counts', () => {
    const { chat } = longChat(500);
    const { posted, call, channel } = channelFor(chat);
    call(7, { method: 'transcript/find', params: { query: 'NEEDLE' } });
    const r = result<FindResult>(posted, 7);
    assert.equal(r.matches.length, 500);
    assert.equal(r.total, 510, 'ten answers hold it twice');
    assert.equal(r.matches[0]?.index, 1);
    assert.equal(r.matches[7]?.count, 2);
    assert.equal(r.matches[499]?.id, chat.controller.state.entries[1_997]?.id);
    call(8, { method: 'transcript/find', params: { query: 'npm test 499' } });
    assert.deepEqual(
      result<FindResult>(posted, 8).matches.map((m) => m.index),
      [1_998],
    );
    call(9, { method: 'transcript/find', params: { query: '   ' } });
    assert.deepEqual(result<FindResult>(posted, 9), { seq: 1, matches: [], total: 0 });
    channel.dispose();
  });
});
