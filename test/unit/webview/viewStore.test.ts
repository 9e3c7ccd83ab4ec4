import * as assert from 'node:assert/strict';
import type { EntryView } from '../../../src/protocol/sessionView';
import { PROTOCOL_VERSION } from '../../../src/protocol/webviewProtocol';
import { parseHostMessage } from '../../../src/webview/hostMessages';
import { assistant, everyKind, patch, snapshot, tool, turnEnd, user } from './fixtures';
import { byRole, createHarness, type Harness } from './harness';

function entryNode(h: Harness, id: string): HTMLElement {
  const node = h.doc.querySelector<HTMLElement>(`[data-entry-id="${id}"]`);
  assert.ok(node, `no node for entry ${id}`);
  return node;
}

function renderedIds(h: Harness): string[] {
  return Array.from(h.doc.querySelectorAll<HTMLElement>('.transcript-list > .entry-row > [data-entry-id], .transcript-list > .entry-row > .lazy-slot > [data-entry-id]')).map(
    (e) => e.dataset.entryId ?? '',
  );
}

suite('webview: view store and transcript', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
  });
  teardown(() => h.close());

  test('says ready with the protocol version and its client id before anything else', () => {
    assert.deepEqual(h.posted[0], { type: 'webview/ready', protocolVersion: PROTOCOL_VERSION, clientId: 'test-client' });
  });

  test('a snapshot renders every entry kind', () => {
    h.send(snapshot(1, everyKind()));
    assert.deepEqual(renderedIds(h), ['u1', 'a1', 't1', 't2', 't3', 'p1', 'n1', 'e1']);
    const log = byRole(h.doc, 'log', 'Conversation');
    assert.equal(log.length, 1);
    assert.equal(log[0]?.getAttribute('aria-live'), 'off');
    // user: markdown, chip, thumbnail, fork
    const u = entryNode(h, 'u1');
    assert.equal(u.querySelector('strong')?.textContent, 'failing');
    assert.equal(u.querySelector('button.chip')?.textContent, 'a.ts');
    assert.match(u.querySelector('img.thumb')?.getAttribute('src') ?? '', /^data:image\/png;base64,/);
    assert.equal(byRole(u, 'button', 'Fork from here').length, 1);
    // assistant: thought + highlighted code + file link
    const a = entryNode(h, 'a1');
    assert.equal(a.querySelector('details.thought summary')?.textContent, 'Thought for 4 s');
    assert.ok(a.querySelector('pre code.language-ts span[class^="hljs-"]'), 'highlighted code');
    assert.equal(a.querySelector('a.file-link')?.getAttribute('data-path'), 'src/a.ts');
    // tools: named articles, statuses, content
    assert.equal(byRole(h.doc, 'article', 'Read src/a.ts').length, 1);
    assert.match(entryNode(h, 't1').querySelector('.tool-status')?.textContent ?? '', /Completed/);
    assert.match(entryNode(h, 't3').querySelector('.tool-status')?.textContent ?? '', /Failed/);
    assert.ok(entryNode(h, 't1').querySelector('.codicon-file'));
    assert.ok(entryNode(h, 't3').querySelector('.codicon-terminal'));
    assert.equal(byRole(entryNode(h, 't2'), 'button', 'Allow once').length, 1);
    assert.match(entryNode(h, 't2').querySelector('.diff-summary')?.textContent ?? '', /src\/a\.ts.*\+3.*−1/);
    assert.ok(entryNode(h, 't3').querySelector('.terminal-output .ansi-fg-2'), 'ANSI green');
    assert.match(entryNode(h, 't3').querySelector('.terminal-state')?.textContent ?? '', /Exit code 1/);
    assert.equal(byRole(entryNode(h, 't3'), 'button', 'Show all').length, 1);
    // plan, notice, turn end
    assert.equal(entryNode(h, 'p1').querySelectorAll('li').length, 3);
    assert.equal(byRole(entryNode(h, 'n1'), 'button', 'Show Traffic').length, 1);
    assert.equal(byRole(entryNode(h, 'n1'), 'button', 'Restart Agent').length, 1);
    assert.equal(entryNode(h, 'n1').querySelector('.notice-log')?.textContent, 'Traceback:\n  boom', 'the stderr is a log box');
    assert.equal(entryNode(h, 'n1').querySelector('.notice-text')?.textContent, 'Its last lines of output are below.', 'the prose wraps outside it');
    assert.match(entryNode(h, 'e1').textContent ?? '', /Completed.*4\.2 s.*12\.3k in · 456 out · 12\.8k total/);
  });

  test('patches touch only the entries they address', () => {
    h.send(snapshot(1, [user('u1', 'one'), assistant('a1', 'two'), tool('t1'), assistant('a2', 'four'), turnEnd('e1')]));
    const before = { u1: entryNode(h, 'u1'), a1: entryNode(h, 'a1'), t1: entryNode(h, 't1'), a2: entryNode(h, 'a2'), e1: entryNode(h, 'e1') };
    const a1Text = before.a1.querySelector('p');
    h.send(
      patch(2, [
        { op: 'insert', index: 2, entry: user('u2', 'inserted') },
        { op: 'replace', index: 3, entry: tool('t1', { status: 'failed' }) },
        { op: 'remove', index: 5, count: 1 },
        { op: 'appendText', index: 4, part: 0, kind: 'text', text: ' and more' },
      ]),
    );
    h.settle();
    assert.deepEqual(renderedIds(h), ['u1', 'a1', 'u2', 't1', 'a2']);
    assert.equal(entryNode(h, 'u1'), before.u1);
    assert.equal(entryNode(h, 'a1'), before.a1);
    assert.equal(before.a1.querySelector('p'), a1Text, 'untouched message content kept');
    assert.equal(entryNode(h, 't1'), before.t1, 'replace updates the card in place');
    assert.match(before.t1.querySelector('.tool-status')?.textContent ?? '', /Failed/);
    assert.equal(entryNode(h, 'a2'), before.a2);
    assert.equal(before.a2.textContent, 'four and more');
    assert.equal(before.e1.isConnected, false);
  });

  test('a seq gap asks for a resync, ignores patches until the snapshot, and the snapshot recovers', () => {
    h.send(snapshot(5, [assistant('a1', 'hello')]));
    h.send(patch(6, [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: ' world' }]));
    h.send(patch(8, [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: ' LOST' }]));
    assert.deepEqual(h.postedOfType('session/resync'), [{ type: 'session/resync', lastSeq: 6 }]);
    h.send(patch(9, [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: ' ignored' }]));
    h.settle();
    assert.equal(entryNode(h, 'a1').textContent, 'hello world');
    assert.equal(h.postedOfType('session/resync').length, 1, 'one resync per gap');
    const node = entryNode(h, 'a1');
    h.send(snapshot(9, [assistant('a1', 'hello world, again'), user('u1', 'next')]));
    h.settle();
    assert.equal(entryNode(h, 'a1'), node, 'the snapshot keeps the node of a surviving entry');
    assert.equal(node.textContent, 'hello world, again');
    h.send(patch(10, [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: '!' }]));
    h.settle();
    assert.equal(node.textContent, 'hello world, again!');
  });

  test('an op that does not fit the list asks for a resync', () => {
    h.send(snapshot(1, [user('u1', 'x')]));
    h.send(patch(2, [{ op: 'replace', index: 3, entry: user('u9', 'y') }]));
    assert.deepEqual(h.postedOfType('session/resync'), [{ type: 'session/resync', lastSeq: 1 }]);
  });

  test('duplicate and stale patches are ignored', () => {
    h.send(snapshot(3, [assistant('a1', 'x')]));
    h.send(patch(3, [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: 'dup' }]));
    h.send(patch(2, [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: 'old' }]));
    assert.equal(entryNode(h, 'a1').textContent, 'x');
    assert.equal(h.postedOfType('session/resync').length, 0);
  });

  test('a long transcript has rows only for the entries near the view, in order through inserts and removes', () => {
    const ids = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `u${from + i}`);
    h.send(snapshot(1, ids(0, 300).map((id) => user(id, id))));
    // jsdom lays nothing out: the view counts as 1,000 px tall, every row as its estimate (56 px).
    const shown = renderedIds(h);
    assert.ok(shown.length > 10 && shown.length < 100, `${shown.length} rows`);
    assert.deepEqual(shown, ids(300 - shown.length, 300), 'the last entries, in order (pinned to the bottom)');
    assert.equal(h.doc.querySelectorAll('.entry-row').length, shown.length);
    // An insert before the rows shifts nothing shown; one among them takes its place.
    h.send(patch(2, [{ op: 'insert', index: 1, entry: user('x', 'x') }]));
    assert.deepEqual(renderedIds(h), shown);
    h.send(patch(3, [{ op: 'insert', index: 300, entry: user('y', 'y') }]));
    assert.deepEqual(renderedIds(h).slice(-3), ['u298', 'y', 'u299']);
    // Removing rows shown brings earlier entries in, still in order.
    h.send(patch(4, [{ op: 'remove', index: 250, count: 50 }]));
    const after = renderedIds(h);
    assert.deepEqual(after.slice(-2), ['y', 'u299']);
    assert.deepEqual(after.slice(0, -2), ids(249 - (after.length - 2), 249));
    const log = byRole(h.doc, 'log', 'Conversation')[0];
    assert.match(h.doc.getElementById(log?.getAttribute('aria-describedby') ?? '')?.textContent ?? '', /^Entries \d+ to 252 of 252 are shown/);
  });

  test('1,000 patches delivered before a frame render once', () => {
    h.send(snapshot(1, [assistant('a1', 'first')], { phase: 'running' }));
    const rendersBefore = h.app.store.renders;
    for (let i = 0; i < 1000; i++) {
      h.deliver(patch(2 + i, [{ op: 'replace', index: 0, entry: assistant('a1', `version ${i}`) }]));
    }
    assert.equal(h.frame(), 1, 'one frame was requested');
    assert.equal(h.app.store.renders, rendersBefore + 1);
    h.timers.advance(1000);
    assert.equal(entryNode(h, 'a1').textContent?.trim(), 'version 999');
  });

  test('text appended to a message on screen goes to it without a frame; its view paces the DOM', () => {
    h.send(snapshot(1, [assistant('a1', '')], { phase: 'running' }));
    const rendersBefore = h.app.store.renders;
    let expected = '';
    for (let i = 0; i < 1000; i++) {
      const chunk = `w${i} `;
      expected += chunk;
      h.deliver(patch(2 + i, [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: chunk }]));
    }
    assert.equal(h.frame(), 0, 'no frame was requested');
    assert.equal(h.app.store.renders, rendersBefore);
    h.timers.advance(1000);
    assert.equal(entryNode(h, 'a1').textContent?.trim(), expected.trim());
    // A new part changes the message's structure: that goes through a frame.
    h.deliver(patch(1002, [{ op: 'appendText', index: 0, part: 1, kind: 'thought', text: 'hmm' }]));
    assert.equal(h.frame(), 1);
    assert.ok(entryNode(h, 'a1').querySelector('details.thought'));
  });

  test('a new part after a thought ends the thought at the part start', () => {
    const now = Date.now();
    h.send(snapshot(1, [{ kind: 'assistant', id: 'a1', parts: [{ kind: 'thought', text: 'hmm', startedAt: now - 3_000 }] }], { phase: 'running', hostTime: now }));
    h.send(patch(2, [{ op: 'appendText', index: 0, part: 1, kind: 'text', text: 'Answer', at: now }]));
    const entry = h.app.store.slots[0]?.entry as Extract<EntryView, { kind: 'assistant' }>;
    assert.deepEqual(entry.parts[0], { kind: 'thought', text: 'hmm', startedAt: now - 3_000, endedAt: now });
    assert.equal(entryNode(h, 'a1').querySelector('summary')?.textContent, 'Thought for 3 s');
  });

  test('the header renders agent, demo badge, title, usage and selectors', () => {
    h.send(
      snapshot(1, [], {
        badge: { kind: 'demo', label: 'Demo', title: 'This chat runs the built-in demo agent.' },
        title: 'Fix tests',
        usage: { used: 12_300, size: 131_072, cost: { amount: 0.42, currency: 'USD' } },
        modes: { current: 'ask', options: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] },
        models: { current: 'm1', options: [{ id: 'm1', name: 'Model One' }] },
        configOptions: [
          { type: 'select', id: 'effort', name: 'Effort', select: { current: 'low', options: [{ id: 'low', name: 'Low' }, { id: 'high', name: 'High' }] } },
          { type: 'boolean', id: 'web', name: 'Web search', value: false },
        ],
      }),
    );
    const top = h.doc.querySelector('.topbar');
    assert.match(top?.textContent ?? '', /Hermes.*Demo.*Fix tests.*context 12\.3k \/ 131k/);
    assert.equal(top?.querySelector<HTMLElement>('.badge-demo')?.hidden, false);
    assert.equal(top?.querySelector<HTMLElement>('.badge-demo')?.title, 'This chat runs the built-in demo agent.');
    const mode = byRole(h.doc, 'combobox', 'Mode')[0] as HTMLSelectElement | undefined;
    assert.equal(mode?.value, 'ask');
    mode.value = 'code';
    mode.dispatchEvent(new h.win.Event('change', { bubbles: true }));
    assert.deepEqual(h.postedOfType('mode/set'), [{ type: 'mode/set', modeId: 'code' }]);
    const effort = byRole(h.doc, 'combobox', 'Effort')[0] as HTMLSelectElement | undefined;
    assert.ok(effort);
    effort.value = 'high';
    effort.dispatchEvent(new h.win.Event('change', { bubbles: true }));
    const web = Array.from(h.doc.querySelectorAll('label')).find((l) => l.textContent === 'Web search')?.querySelector('input');
    assert.ok(web);
    web.click();
    assert.deepEqual(h.postedOfType('config/set'), [
      { type: 'config/set', configId: 'effort', value: 'high' },
      { type: 'config/set', configId: 'web', value: true },
    ]);
  });

  test("a worktree session's badge names its branch (its folder in the tooltip); the host's empty-state hint shows as text", () => {
    h.send(snapshot(1, [], { badge: { kind: 'worktree', label: 'hermes/52f398e6', title: 'Works in the worktree .worktrees/hermes-52f398e6' }, emptyHint: '<b>Not markup</b>' }));
    const badge = h.doc.querySelector<HTMLElement>('.topbar .badge');
    assert.equal(badge?.textContent, 'hermes/52f398e6');
    assert.equal(badge?.className, 'badge badge-worktree');
    assert.equal(badge?.title, 'Works in the worktree .worktrees/hermes-52f398e6');
    assert.equal(badge?.hidden, false);
    assert.equal(h.doc.querySelector('.empty-hint')?.textContent, '<b>Not markup</b>');
    assert.equal(h.doc.querySelector('.empty-hint b'), null);
    // The next header has none: the badge goes (a chat's header is sent whole).
    h.send(snapshot(2, []));
    assert.equal(h.doc.querySelector<HTMLElement>('.topbar .badge')?.hidden, true);
    // A badge of another kind is not a header the webview takes.
    assert.equal(parseHostMessage(snapshot(3, [], { badge: { kind: 'evil', label: 'x', title: 'y' } } as never)), undefined);
  });

  test('the guard rejects malformed host messages', () => {
    assert.equal(parseHostMessage(null), undefined);
    assert.equal(parseHostMessage({ type: 'session/patch', seq: 1, ops: [{ op: 'insert', index: -1, entry: user('u', 'x') }] }), undefined);
    assert.equal(parseHostMessage({ type: 'session/patch', seq: 1, ops: [{ op: 'insert', index: 0, entry: { kind: 'user', id: 'u' } }] }), undefined);
    assert.equal(parseHostMessage({ type: 'session/snapshot', seq: 1, view: { header: {}, entries: [] } }), undefined);
    assert.equal(parseHostMessage({ type: 'nope' }), undefined);
    assert.ok(parseHostMessage(snapshot(1, everyKind())));
    // A malformed message changes nothing.
    h.deliver({ type: 'session/snapshot', seq: 1, view: { header: { agentName: 3 }, entries: [] } });
    h.frame();
    assert.equal(h.app.store.seq, undefined);
  });
});
