import * as assert from 'node:assert/strict';
import type { MentionView } from '../../../src/protocol/webviewProtocol';
import { snapshot } from './fixtures';
import { byRole, createHarness, keydown, typeInComposer, type Harness } from './harness';

const typeIn = typeInComposer;

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

suite('webview: @ mentions', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
    h.send(snapshot(1, [], { phase: 'idle' }));
  });
  teardown(() => h.close());

  test('typing @ asks the host, the choice becomes a chip and is sent as an attachment', async () => {
    const t = typeIn(h, 'please read @hel');
    for (let i = 0; i < 200 && h.postedOfType('request/call').length === 0; i++) {
      await wait(10);
    }
    const calls = h.postedOfType('request/call');
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]?.call, { method: 'mentions/search', params: { query: 'hel' } });
    h.deliver({
      type: 'request/result',
      id: calls[0]?.id ?? -1,
      ok: true,
      value: [
        { path: '/ws/src/hello.ts', label: 'hello.ts', detail: 'src' },
        { path: '/ws/help.md', label: 'help.md', detail: '' },
      ],
    });
    await wait(10);
    const list = byRole(h.doc, 'listbox', 'Files')[0];
    assert.ok(list !== undefined && !list.hidden);
    assert.equal(byRole(list, 'option').length, 2);
    keydown(t, 'ArrowDown');
    const enter = keydown(t, 'Enter');
    assert.ok(enter.defaultPrevented, 'Enter picks the file, it does not send');
    assert.equal(t.value, 'please read ');
    const chips = byRole(h.doc, 'group', 'Context for the next message')[0];
    assert.match(chips?.textContent ?? '', /help\.md/);
    keydown(t, 'Enter');
    const submit = h.postedOfType('prompt/submit');
    assert.equal(submit.length, 1);
    assert.deepEqual(submit[0]?.attachments, [{ path: '/ws/help.md', label: 'help.md' }]);
  });

  async function menuFor(text: string, results: readonly MentionView[]): Promise<HTMLTextAreaElement> {
    const before = h.postedOfType('request/call').length;
    const t = typeIn(h, text);
    for (let i = 0; i < 200 && h.postedOfType('request/call').length === before; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const call = h.postedOfType('request/call').at(-1);
    assert.ok(call !== undefined);
    h.deliver({ type: 'request/result', id: call.id, ok: true, value: results });
    await new Promise((r) => setTimeout(r, 10));
    assert.ok(byRole(h.doc, 'listbox', 'Files')[0]?.hidden === false);
    return t;
  }

  const files: MentionView[] = [
    { path: '/ws/hello.txt', label: 'hello.txt', detail: '' },
    { path: '/ws/src/hello.ts', label: 'hello.ts', detail: 'src' },
  ];

  test('the file typed in full + one Enter attaches it and sends the message', async () => {
    const t = await menuFor('explain @hello.txt', files);
    keydown(t, 'Enter');
    const submit = h.postedOfType('prompt/submit');
    assert.deepEqual(submit, [{ type: 'prompt/submit', text: 'explain ', attachments: [{ path: '/ws/hello.txt', label: 'hello.txt' }] }]);
  });

  test('a partial name + Enter attaches the chosen file and waits; Tab attaches without sending', async () => {
    let t = await menuFor('read @hel', files);
    keydown(t, 'ArrowDown');
    keydown(t, 'Enter');
    assert.equal(h.postedOfType('prompt/submit').length, 0);
    assert.equal(t.value, 'read ');
    t = await menuFor('read @src/hello.ts', files);
    keydown(t, 'ArrowDown');
    keydown(t, 'Tab');
    assert.equal(h.postedOfType('prompt/submit').length, 0, 'Tab never sends');
    assert.match(byRole(h.doc, 'group', 'Context for the next message')[0]?.textContent ?? '', /hello\.ts/);
  });

  test('a stale answer for an older query is ignored', async () => {
    typeIn(h, '@a');
    await wait(120);
    typeIn(h, '@ab');
    await wait(120);
    const calls = h.postedOfType('request/call');
    assert.equal(calls.length, 2);
    h.deliver({ type: 'request/result', id: calls[0]?.id ?? -1, ok: true, value: [{ path: '/ws/a.ts', label: 'a.ts' }] });
    await wait(10);
    const list = byRole(h.doc, 'listbox', 'Files')[0];
    assert.ok(list === undefined || list.hidden, 'the menu waits for the newest query');
  });
});

suite('webview: pasted images', () => {
  function paste(h: Harness, type: string): ClipboardEvent {
    const t = byRole(h.doc, 'textbox', 'Message')[0];
    assert.ok(t !== undefined);
    const file = new h.win.File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type });
    const event = new h.win.Event('paste', { bubbles: true, cancelable: true }) as ClipboardEvent;
    Object.defineProperty(event, 'clipboardData', { value: { items: [{ kind: 'file', type, getAsFile: () => file }] } });
    t.dispatchEvent(event);
    return event;
  }

  test('are attached only for agents that accept images, and sent as image attachments', async () => {
    const h = createHarness();
    h.send(snapshot(1, [], { phase: 'idle', acceptsImages: false }));
    paste(h, 'image/png');
    assert.match(h.doc.body.textContent ?? '', /does not accept images/);
    h.send(snapshot(2, [], { phase: 'idle', acceptsImages: true }));
    paste(h, 'image/png');
    for (let i = 0; i < 200 && !(h.doc.body.textContent ?? '').includes('Pasted image'); i++) {
      await wait(10);
    }
    const t = typeIn(h, 'what is this?');
    keydown(t, 'Enter');
    const sent = h.postedOfType('prompt/submit')[0];
    assert.equal(sent?.attachments.length, 1);
    assert.equal(sent?.attachments[0]?.image?.mimeType, 'image/png');
    assert.equal(sent?.attachments[0]?.image?.data, 'iVBORw==');
    h.close();
  });
});
