import * as assert from 'node:assert/strict';
import type { ChatSession } from '../../../src/app/chatSession';
import { PROTOCOL_VERSION, type HostMessage } from '../../../src/protocol/webviewProtocol';
import type { ViewContext } from '../../../src/session/viewProjection';
import { maxTextPatchIntervalMs, textPatchInterval, textPatchIntervalMs, WebviewChannel, type WebviewLike } from '../../../src/views/webviewChannel';
import { SessionHarness, textChunk } from '../../builders/sessionBuilders';

const context: ViewContext = { agentName: 'Agent', demo: false, readOnly: false, acceptsImages: false, pendingPermissions: 0, now: 0, relativePath: (p) => p };

/**
 * Streams text into a real channel for `ms` (a chunk of `chunkChars` every `everyMs`), with real
 * timers; what the webview received.
 */
async function stream(chunkChars: number, everyMs: number, ms: number): Promise<{ textPatches: number; text: string; sent: string }> {
  const harness = new SessionHarness();
  harness.prompt('Go');
  const listeners = new Set<() => void>();
  const chat = {
    controller: {
      get state() {
        return harness.state;
      },
    },
    onDidChange: (listener: () => void) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
  } as unknown as ChatSession;
  const posted: HostMessage[] = [];
  let receive: (raw: unknown) => void = () => undefined;
  const webview: WebviewLike = {
    postMessage: (m) => {
      posted.push(m);
      return Promise.resolve(true);
    },
    onDidReceiveMessage: (listener) => {
      receive = listener;
      return { dispose: () => undefined };
    },
  };
  const channel = new WebviewChannel(webview, { context: () => context, onMessage: () => undefined });
  channel.bind(chat);
  receive({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION, clientId: 'c' });
  let sent = '';
  const started = Date.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const chunk = `${'x'.repeat(chunkChars - 1)} `;
      sent += chunk;
      harness.update(textChunk(chunk));
      for (const listener of listeners) {
        listener();
      }
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
