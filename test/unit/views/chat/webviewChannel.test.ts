import * as assert from 'node:assert/strict';
import type { ChatSession } from '../../../../src/app/chatSession';
import { PROTOCOL_VERSION, type HostMessage } from '../../../../src/protocol/webviewProtocol';
import type { ViewContext } from '../../../../src/session/viewProjection';
import { maxTextPatchIntervalMs, textPatchInterval, textPatchIntervalMs, WebviewChannel, type WebviewLike } from '../../../../src/views/chat/webviewChannel';
import { chatOver } from '../../../builders/boundChat';
import { SessionHarness, textChunk } from '../../../builders/sessionBuilders';

const context: ViewContext = { agentName: 'Agent', readOnly: false, acceptsImages: false, pendingPermissions: 0, now: 0, relativePath: (p) => p };

/** A chat the channel can bind: a real session state (reduced from ACP updates) and its change event. */
function fakeChat(): { harness: SessionHarness; chat: ChatSession; change: (update: ReturnType<typeof textChunk>) => void } {
  const harness = new SessionHarness();
  harness.prompt('Go');
  const { chat, changed } = chatOver(harness);
  return {
    harness,
    chat,
    change: (update) => {
      harness.update(update);
      changed();
    },
  };
}

/** A webview that records what it is sent and answers each post with `answer` (VS Code: false while hidden). */
function fakeWebview(answer: (m: HostMessage) => Promise<boolean>): { webview: WebviewLike; posted: HostMessage[]; receive: (raw: unknown) => void } {
  const posted: HostMessage[] = [];
  let listener: (raw: unknown) => void = () => undefined;
  return {
    posted,
    receive: (raw) => listener(raw),
    webview: {
      postMessage: (m) => {
        posted.push(m);
        return answer(m);
      },
      onDidReceiveMessage: (l) => {
        listener = l;
        return { dispose: () => undefined };
      },
    },
  };
}

const ready = { type: 'webview/ready', protocolVersion: PROTOCOL_VERSION, clientId: 'c' };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Streams text into a real channel for `ms` (a chunk of `chunkChars` every `everyMs`), with real
 * timers; what the webview received.
 */
async function stream(chunkChars: number, everyMs: number, ms: number): Promise<{ textPatches: number; text: string; sent: string }> {
  const { chat, change } = fakeChat();
  const { webview, posted, receive } = fakeWebview(() => Promise.resolve(true));
  const channel = new WebviewChannel(webview, { context: () => context, onMessage: () => undefined });
  channel.bind(chat);
  receive(ready);
  let sent = '';
  const started = Date.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const chunk = `${'x'.repeat(chunkChars - 1)} `;
      sent += chunk;
      change(textChunk(chunk));
      if (Date.now() - started >= ms) {
        clearInterval(timer);
        resolve();
      }
    }, everyMs);
  });
  channel.flush();
  channel.dispose();
  let text = '';
  let textPatches = 0;
  for (const m of posted) {
    if (m.type !== 'session/patch') {
      continue;
    }
    for (const op of m.ops) {
      if (op.op === 'insert' && op.entry.kind === 'assistant') {
        text += op.entry.parts.map((p) => ('text' in p ? p.text : '')).join('');
      } else if (op.op === 'appendText') {
        text += op.text;
      }
    }
    textPatches += m.ops.every((op) => op.op === 'appendText') ? 1 : 0;
  }
  return { textPatches, text, sent };
}

suite('webview channel: text-only patches', () => {
  test('the wait grows with the rate: 100 ms up to 1,600 characters a second, 250 ms from 4,000', () => {
    assert.equal(textPatchInterval(0), textPatchIntervalMs);
    assert.equal(textPatchInterval(400), 100);
    assert.equal(textPatchInterval(1_600), 100);
    assert.equal(textPatchInterval(2_400), 150);
    assert.equal(textPatchInterval(4_000), maxTextPatchIntervalMs);
    assert.equal(textPatchInterval(1e6), 250);
    assert.equal(textPatchInterval(4_000, 0), 0, 'an interval of 0 posts text like any other change');
    assert.equal(textPatchInterval(10, 400), 400, 'a longer minimum stays');
  });

  test('fast text (4,000 characters a second) is posted about every 250 ms, all of it', async () => {
    const r = await stream(16, 4, 2_000);
    assert.equal(r.text, r.sent);
    // Every 100 ms would be ~20 patches in 2 s; every 250 ms ~8.
    assert.ok(r.textPatches >= 4 && r.textPatches <= 12, `${r.textPatches} text-only patches`);
  });

  test('text at reading speed is still posted every 100 ms', async () => {
    const r = await stream(4, 10, 1_000);
    assert.equal(r.text, r.sent);
    assert.ok(r.textPatches >= 7, `${r.textPatches} text-only patches in a second`);
  });
});

suite('webview channel: a hidden webview', () => {
  const types = (posted: readonly HostMessage[]): string[] => posted.map((m) => m.type);
  /** A channel bound to a fake chat, its webview ready; a post is taken while `visible()` (VS Code: false while hidden). */
  const liveChannel = (visible: () => boolean) => {
    const { chat, change, harness } = fakeChat();
    const { webview, posted, receive } = fakeWebview(() => Promise.resolve(visible()));
    const channel = new WebviewChannel(webview, { context: () => context, onMessage: () => undefined, textIntervalMs: 0 });
    channel.bind(chat);
    receive(ready);
    return { channel, change, harness, posted, receive };
  };

  test('after a dropped post nothing is sent while hidden; shown again, one snapshot carries everything', async () => {
    let visible = true;
    const { channel, change, harness, posted } = liveChannel(() => visible);
    assert.deepEqual(types(posted), ['session/snapshot']);
    visible = false;
    // 30 changes over ~300 ms while hidden: the first patch is dropped, then nothing is tried.
    for (let i = 0; i < 30; i++) {
      change(textChunk(`chunk ${i} `));
      await sleep(10);
    }
    await sleep(50);
    assert.deepEqual(types(posted), ['session/snapshot', 'session/patch'], 'one dropped patch, not a snapshot per window');
    channel.post({ type: 'composer/insert', text: 'held' });
    assert.equal(posted.length, 2, 'other messages wait too');

    visible = true;
    channel.resync(); // onDidChangeVisibility
    await sleep(40);
    assert.deepEqual(types(posted), ['session/snapshot', 'session/patch', 'composer/insert', 'session/snapshot']);
    const last = posted.at(-1);
    assert.ok(last?.type === 'session/snapshot');
    const assistant = last.view.entries.find((e) => e.kind === 'assistant');
    const shown = assistant?.kind === 'assistant' ? assistant.parts.map((p) => ('text' in p ? p.text : '')).join('') : '';
    assert.equal(shown, Array.from({ length: 30 }, (_, i) => `chunk ${i} `).join(''), 'the snapshot has every chunk');
    assert.equal(last.view.entries.length, harness.state.entries.length);
    change(textChunk('after'));
    await sleep(40);
    assert.deepEqual(types(posted).slice(4), ['session/patch'], 'patches again once live');
    channel.dispose();
  });

  test('a drop reported after the webview was live again does not stall it', async () => {
    const pending: ((ok: boolean) => void)[] = [];
    const { chat, change } = fakeChat();
    const { webview, posted, receive } = fakeWebview(() => new Promise<boolean>((resolve) => pending.push(resolve)));
    const channel = new WebviewChannel(webview, { context: () => context, onMessage: () => undefined, textIntervalMs: 0 });
    channel.bind(chat);
    receive(ready);
    change(textChunk('a'));
    await sleep(40);
    assert.deepEqual(types(posted), ['session/snapshot', 'session/patch']);
    // The webview reloads (its script says ready again) before the patch's answer comes back.
    receive(ready);
    assert.deepEqual(types(posted), ['session/snapshot', 'session/patch', 'session/snapshot']);
    for (const resolve of pending.splice(0, 2)) {
      resolve(false);
    }
    await sleep(0);
    change(textChunk('b'));
    await sleep(40);
    assert.deepEqual(types(posted), ['session/snapshot', 'session/patch', 'session/snapshot', 'session/patch'], 'still sending');
    for (const resolve of pending.splice(0)) {
      resolve(true);
    }
    channel.dispose();
  });

  test('a message the hidden webview drops (a prompt handed back to the composer) is sent again once it shows', async () => {
    let visible = true;
    const { channel, posted } = liveChannel(() => visible);
    visible = false;
    // Nothing else was posted while hidden, so the channel does not know yet: this post finds out.
    channel.post({ type: 'composer/insert', text: 'my question' });
    channel.post({ type: 'composer/attach', attachment: { path: '/w/b.md', label: 'b.md' } });
    await sleep(20);
    assert.deepEqual(types(posted), ['session/snapshot', 'composer/insert', 'composer/attach']);
    visible = true;
    channel.resync();
    await sleep(40);
    assert.deepEqual(types(posted).slice(3).sort(), ['composer/attach', 'composer/insert', 'session/snapshot']);
    assert.deepEqual(
      posted.filter((m) => m.type === 'composer/insert').map((m) => (m.type === 'composer/insert' ? m.text : '')),
      ['my question', 'my question'],
      'dropped once, delivered once',
    );
    channel.dispose();
  });

  test('a chat that stayed on screen (another tab became active) is sent no snapshot unless a post was dropped', async () => {
    let visible = true;
    const { channel, change, posted } = liveChannel(() => visible);
    change(textChunk('a'));
    await sleep(40);
    channel.setActive(false);
    channel.resumeIfStalled(); // onDidChangeViewState: still visible, no longer active
    change(textChunk('b'));
    await sleep(40);
    assert.deepEqual(types(posted), ['session/snapshot', 'session/patch', 'session/patch'], 'patches go on, no snapshot');
    visible = false;
    change(textChunk('c'));
    await sleep(40);
    visible = true;
    channel.resumeIfStalled();
    await sleep(40);
    assert.deepEqual(types(posted).slice(3), ['session/patch', 'session/snapshot'], 'the dropped patch is made good by one snapshot');
    channel.dispose();
  });

  test("the webview's own resync request (a seq gap) also ends a stall", async () => {
    let visible = false;
    const { channel, change, posted, receive } = liveChannel(() => visible);
    await sleep(0);
    change(textChunk('x'));
    await sleep(40);
    assert.deepEqual(types(posted), ['session/snapshot']);
    visible = true;
    receive({ type: 'session/resync', lastSeq: 0 });
    await sleep(40);
    assert.deepEqual(types(posted), ['session/snapshot', 'session/snapshot']);
    channel.dispose();
  });
});

suite('webview channel: entries shown from outside the session state', () => {
  test("a turn's footer is sent again only when the files its turn changed are not what was shown", async () => {
    const { chat, harness, change } = fakeChat();
    change(textChunk('Done.'));
    harness.end();
    let files: { files: number; added: number; removed: number } | undefined;
    const ctx: ViewContext = { ...context, turnChanges: () => files };
    const { webview, posted, receive } = fakeWebview(() => Promise.resolve(true));
    const channel = new WebviewChannel(webview, { context: () => ctx, onMessage: () => undefined, textIntervalMs: 0 });
    channel.bind(chat);
    receive(ready);
    assert.deepEqual(posted.map((m) => m.type), ['session/snapshot']);
    const isFooter = (e: { kind: string }): boolean => e.kind === 'turnEnd';
    const footerIndex = harness.state.entries.findIndex(isFooter);
    assert.ok(footerIndex >= 0, 'the turn has its footer');

    // Another chat's turn changed files (every chat is asked): nothing to send here.
    channel.refreshEntries(isFooter);
    await sleep(40);
    assert.equal(posted.length, 1, 'an unchanged footer is not sent again');

    files = { files: 2, added: 5, removed: 1 };
    channel.refreshEntries(isFooter);
    await sleep(40);
    assert.equal(posted.length, 2);
    const patch = posted[1];
    assert.ok(patch?.type === 'session/patch');
    assert.deepEqual(
      patch.ops.map((o) => (o.op === 'replace' && o.entry.kind === 'turnEnd' ? { index: o.index, changes: o.entry.changes } : o.op)),
      [{ index: footerIndex, changes: files }],
    );

    channel.refreshEntries(isFooter);
    await sleep(40);
    assert.equal(posted.length, 2, 'asked again with the same files: nothing');
    files = undefined; // restored: the footer loses its offer
    channel.refreshEntries(isFooter);
    await sleep(40);
    const last = posted.at(-1);
    assert.ok(posted.length === 3 && last?.type === 'session/patch');
    assert.ok(last.ops.length === 1 && last.ops[0]?.op === 'replace' && last.ops[0].entry.kind === 'turnEnd' && last.ops[0].entry.changes === undefined);
    channel.dispose();
  });
});
