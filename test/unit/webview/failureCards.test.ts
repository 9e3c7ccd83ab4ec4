/**
 * Issue 38 in the webview (jsdom): a failed turn's one failure block, the prompt the agent holds
 * said above the composer, a message sent together with it, Denied and confirmed tool cards, prose
 * and log in notices, "Mode:"/"Model:" labels, and the `/` menu with the chat's own commands while
 * the agent starts.
 */
import * as assert from 'node:assert/strict';
import { header, snapshot, tool, turnEnd, user } from './fixtures';
import { byRole, createHarness, typeInComposer, type Harness } from './harness';

suite('webview: failures, held prompts, finished cards (issue 38)', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
  });
  teardown(() => h.close());

  const failed = turnEnd('f1', {
    turnId: 1,
    outcome: 'error',
    error: 'API call failed after 3 retries: HTTP 429: Rate limit reached (fake)',
    provider: { kind: 'rateLimit', httpStatus: 429, transient: true },
    retry: true,
    retryIn: 'newSession',
    startFresh: 'u1',
  });

  test('a failed turn is one block: the cause once, what to do, and Retry in a new session / Start fresh / Show Traffic', () => {
    h.send(snapshot(1, [user('u1', 'Say hello to the team'), failed], { agentName: 'Hermes' }));
    const block = byRole(h.doc, 'group', 'What failed')[0];
    assert.ok(block);
    assert.equal(block.querySelector('.failure-cause')?.textContent, 'API call failed after 3 retries: HTTP 429: Rate limit reached (fake)');
    assert.match(block.querySelector('.failure-hint')?.textContent ?? '', /^This is usually temporary: try again in a moment\. Hermes keeps this message/);
    assert.deepEqual(byRole(block, 'button').map((b) => b.textContent), ['Retry in a new session', 'Start fresh', 'Show Traffic']);
    assert.equal(h.doc.querySelectorAll('.notice, .turn-error').length, 0);
    // The icon goes with the words (a narrow footer wraps them together).
    assert.ok(h.doc.querySelector('.turn-end .outcome > .codicon'));
    byRole(block, 'button', 'Retry in a new session')[0]?.click();
    byRole(block, 'button', 'Start fresh')[0]?.click();
    byRole(block, 'button', 'Show Traffic')[0]?.click();
    assert.deepEqual(h.postedOfType('turn/retry'), [{ type: 'turn/retry', turnId: 1 }]);
    assert.deepEqual(h.postedOfType('fork/fromHere'), [{ type: 'fork/fromHere', entryId: 'u1' }]);
    assert.deepEqual(h.postedOfType('notice/action'), [{ type: 'notice/action', action: 'showTraffic' }]);
  });

  test('an agent that keeps nothing: plain Retry, no Start fresh; a lasting failure offers Set Up Provider', () => {
    h.send(snapshot(1, [user('u1', 'x'), turnEnd('f1', { turnId: 1, outcome: 'error', error: 'HTTP 401: Incorrect API key', provider: { kind: 'auth', httpStatus: 401, transient: false }, retry: true, retryIn: 'session' })]));
    const block = byRole(h.doc, 'group', 'What failed')[0];
    assert.ok(block);
    assert.deepEqual(byRole(block, 'button').map((b) => b.textContent), ['Retry', 'Set Up Provider', 'Show Traffic']);
    assert.match(block.textContent ?? '', /Check the model provider’s configuration/);
  });

  test('the held prompt is said above the composer before sending, with Start fresh; a message sent with it is marked', () => {
    h.send(snapshot(1, [user('u1', '[slow] count'), turnEnd('f1', { turnId: 1, outcome: 'cancelled' })], { agentName: 'Hermes', held: { reason: 'cancelled', preview: '[slow] count', startFresh: 'u1' } }));
    const held = h.doc.querySelector('.composer-held');
    assert.ok(held instanceof h.win.HTMLElement && !held.hidden);
    assert.equal(held.querySelector('.composer-held-text')?.textContent, 'Hermes will send your next message together with the cancelled one: “[slow] count”.');
    byRole(held, 'button', 'Start fresh')[0]?.click();
    assert.deepEqual(h.postedOfType('fork/fromHere'), [{ type: 'fork/fromHere', entryId: 'u1' }]);
    assert.match(h.doc.querySelector('.turn-end')?.textContent ?? '', /no token count reported/, 'a cancelled turn without counts is not "0 tokens"');
    h.send(snapshot(2, [user('u2', 'never mind', { mergedWith: { reason: 'cancelled', text: '[slow] count' } })]));
    const after = h.doc.querySelector('.composer-held');
    assert.ok(after instanceof h.win.HTMLElement && after.hidden, 'nothing held any more');
    const note = h.doc.querySelector('.merged-note');
    assert.equal(note?.querySelector('summary')?.textContent, 'sent together with the cancelled message');
    assert.equal(note?.querySelector('.merged-text')?.textContent, '[slow] count');
    assert.equal(h.doc.querySelector('.entry-user .user-body')?.textContent?.trim(), 'never mind');
  });

  test('Denied is its own neutral status; a card the client confirmed says how', () => {
    const options = [
      { optionId: 'allow_once', name: 'Allow edit', kind: 'allow_once' as const },
      { optionId: 'deny', name: 'Deny', kind: 'reject_once' as const },
    ];
    h.send(
      snapshot(1, [
        tool('t1', { title: 'write: /w/denied.txt', toolKind: 'edit', status: 'denied', permission: { requestId: 'p1', status: 'selected', options, requestedAt: 1, optionId: 'deny' } }),
        tool('t2', { title: 'patch (replace): /w/hello.txt', toolKind: 'edit', status: 'completed', confirmed: 'disk' }),
      ]),
    );
    const [denied, done] = Array.from(h.doc.querySelectorAll('.tool-status'));
    assert.equal(denied?.className, 'tool-status status-denied');
    assert.equal(denied?.textContent, 'Denied');
    assert.match(done?.getAttribute('title') ?? '', /^Completed: the file holds the proposed change/);
  });

  test("a notice's prose is a paragraph, its log a preformatted box", () => {
    h.send(snapshot(1, [{ kind: 'notice', id: 'n1', level: 'error', title: 'The agent exited with code 1.', detail: 'Restart it to continue.', log: 'Traceback:\n  boom', actions: [] }]));
    assert.equal(h.doc.querySelector('p.notice-text')?.textContent, 'Restart it to continue.');
    assert.equal(h.doc.querySelector('pre.notice-log')?.textContent, 'Traceback:\n  boom');
  });

  test('mode and model say which is which, the context figure says what it counts, a restart reads as a start', () => {
    h.send(
      snapshot(1, [], {
        usage: { used: 11654, size: 131072 },
        phase: 'exited',
        restarting: true,
        configOptions: [
          { type: 'select', id: 'mode', name: 'Mode', category: 'mode', select: { current: 'default', options: [{ id: 'default', name: 'Default' }] } },
          { type: 'select', id: 'model', name: 'Model', category: 'model', select: { current: 'default', options: [{ id: 'default', name: 'Default' }] } },
        ],
      }),
    );
    assert.deepEqual(Array.from(h.doc.querySelectorAll('.config-options .control-label'), (e) => e.textContent), ['Mode:', 'Model:']);
    const icons = Array.from(h.doc.querySelectorAll('.config-options .control-icon'), (e) => e.className);
    assert.equal(new Set(icons).size, 2, `distinct icons: ${icons.join(' | ')}`);
    assert.equal(byRole(h.doc, 'combobox', 'Mode').filter((c) => c.closest('.config-options') !== null).length, 1, 'Claude-style: the config option is the Mode selector');
    assert.equal(h.doc.querySelector('.usage-text')?.textContent, 'context 11.7k / 131k');
    assert.equal(h.doc.querySelector('.topbar .phase')?.textContent, 'Restarting…');
    assert.match(h.doc.querySelector('.composer-hint')?.textContent ?? '', /^Restarting Hermes… A message sent now goes once it is ready\./);
  });

  test("'/' while the agent starts: the chat's own commands and a line that the agent's come when it is ready; one runs without being sent", () => {
    h.send(snapshot(1, [], { phase: 'starting', commands: [], agentName: 'Hermes' }));
    typeInComposer(h, '/');
    h.settle();
    const menu = byRole(h.doc, 'listbox', 'Commands')[0];
    assert.ok(menu !== undefined && !menu.hidden, 'the menu opens');
    assert.deepEqual(byRole(menu, 'option').map((o) => o.querySelector('.slash-name')?.textContent), ['/new', '/sessions', '/restart', '/traffic', '/copy']);
    assert.equal(menu.querySelector('.slash-note')?.textContent, "Hermes’s own commands appear here once it is ready.");
    typeInComposer(h, '/sess');
    h.settle();
    byRole(menu, 'option')[0]?.click();
    assert.deepEqual(h.postedOfType('clientCommand/run'), [{ type: 'clientCommand/run', name: 'sessions' }]);
    assert.equal(h.postedOfType('prompt/submit').length, 0, 'not sent to the agent');
    // Once the agent's commands arrive they come first, and one of the same name wins.
    h.send(snapshot(2, [], { ...header({ phase: 'idle', agentName: 'Hermes' }), commands: [{ name: 'new', description: "the agent's /new" }] }));
    typeInComposer(h, '/');
    h.settle();
    const names = byRole(menu, 'option').map((o) => o.querySelector('.slash-name')?.textContent);
    assert.deepEqual(names, ['/new', '/sessions', '/restart', '/traffic', '/copy']);
    assert.equal(byRole(menu, 'option')[0]?.querySelector('.slash-origin'), null, "the agent's /new");
    assert.equal(menu.querySelector('.slash-note'), null);
  });
});
