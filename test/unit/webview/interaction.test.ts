import * as assert from 'node:assert/strict';
import type { EntryView, PermissionView } from '../../../src/protocol/sessionView';
import { assistant, everyKind, patch, snapshot, tool, turnEnd, user } from './fixtures';
import { byRole, createHarness, keydown, type Harness } from './harness';

function permissionTool(id: string, permission: Partial<PermissionView> = {}, now = Date.now()): Extract<EntryView, { kind: 'tool' }> {
  return tool(id, {
    title: `Run rm -rf build (${id})`,
    toolKind: 'execute',
    status: 'pending',
    rawInput: '{"command":"rm -rf build"}',
    permission: {
      requestId: `req-${id}`,
      status: 'pending',
      options: [
        { optionId: `${id}-allow`, name: 'Allow once', kind: 'allow_once' },
        { optionId: `${id}-always`, name: 'Allow for session', kind: 'allow_always' },
        { optionId: `${id}-always2`, name: 'Always allow', kind: 'allow_always' },
        { optionId: `${id}-deny`, name: 'Deny', kind: 'reject_once' },
      ],
      requestedAt: now - 5_000,
      ...permission,
    },
  });
}

function textarea(h: Harness): HTMLTextAreaElement {
  const t = byRole(h.doc, 'textbox', 'Message')[0];
  assert.ok(t instanceof h.win.HTMLTextAreaElement);
  return t;
}

function type(h: Harness, value: string): void {
  const t = textarea(h);
  t.focus();
  t.value = value;
  t.setSelectionRange(value.length, value.length);
  t.dispatchEvent(new h.win.Event('input', { bubbles: true }));
}

suite('webview: interaction', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
  });
  teardown(() => h.close());

  test('permission buttons post the exact optionId, one per option, none pre-selected', () => {
    h.send(snapshot(1, [user('u1', 'clean'), permissionTool('t1')], { phase: 'running' }));
    const card = byRole(h.doc, 'article', 'Run rm -rf build (t1)')[0];
    assert.ok(card);
    const names = byRole(card, 'button')
      .filter((b) => b.classList.contains('option'))
      .map((b) => b.querySelector('.label')?.textContent);
    assert.deepEqual(names, ['Allow once', 'Allow for session', 'Always allow', 'Deny']);
    assert.ok(!card.contains(h.doc.activeElement) || !(h.doc.activeElement instanceof h.win.HTMLButtonElement), 'no option has focus');
    const always = byRole(card, 'button', 'Always allow')[0];
    assert.ok(always);
    always.click();
    assert.deepEqual(h.postedOfType('permission/choose'), [{ type: 'permission/choose', requestId: 'req-t1', optionId: 't1-always2' }]);
    // A second click cannot send a second answer.
    always.click();
    assert.equal(h.postedOfType('permission/choose').length, 1);
    h.send(
      patch(2, [
        {
          op: 'replace',
          index: 1,
          entry: permissionTool('t1', { status: 'selected', optionId: 't1-always2', answeredBy: 'user', answeredAt: Date.now() }),
        },
      ]),
    );
    assert.equal(card.querySelectorAll('button.option').length, 0, 'buttons gone after the answer');
    assert.match(card.querySelector('.permission')?.textContent ?? '', /Answered “Always allow” by you/);
    h.send(patch(3, [{ op: 'replace', index: 1, entry: permissionTool('t1', { status: 'selected', optionId: 't1-deny', answeredBy: 'rule: rm *' }) }]));
    assert.match(card.querySelector('.permission')?.textContent ?? '', /Answered “Deny” by rule: rm \*/);
  });

  test('expired and cancelled permissions are shown as such, without buttons', () => {
    h.send(snapshot(1, [permissionTool('t1', { status: 'expired' }), permissionTool('t2', { status: 'cancelled' })]));
    assert.equal(h.doc.querySelectorAll('button.option').length, 0);
    assert.match(h.doc.querySelector('[data-entry-id="t1"] .permission')?.textContent ?? '', /Expired/);
    assert.match(h.doc.querySelector('[data-entry-id="t2"] .permission')?.textContent ?? '', /Cancelled/);
  });

  test('Alt+Y answers the first allow_once option, Alt+N the first reject_once option', () => {
    h.send(snapshot(1, [permissionTool('t1'), permissionTool('t2')], { phase: 'running' }));
    const allow = h.doc.querySelector('[data-entry-id="t1"] button[aria-keyshortcuts="Alt+Y"]');
    assert.equal(allow?.querySelector('kbd')?.textContent, 'Alt+Y');
    keydown(h.doc.body, 'y', { altKey: true, code: 'KeyY' });
    assert.deepEqual(h.postedOfType('permission/choose').at(-1), { type: 'permission/choose', requestId: 'req-t1', optionId: 't1-allow' });
    // Focus inside the second card makes Alt+N answer that one.
    h.doc.querySelector<HTMLElement>('[data-entry-id="t2"] .permission')?.focus();
    keydown(h.doc.activeElement ?? h.doc.body, 'n', { altKey: true, code: 'KeyN' });
    assert.deepEqual(h.postedOfType('permission/choose').at(-1), { type: 'permission/choose', requestId: 'req-t2', optionId: 't2-deny' });
  });

  test('a new permission takes focus, unless the user is typing in the composer', () => {
    h.send(snapshot(1, [user('u1', 'go')], { phase: 'running' }));
    h.doc.querySelector<HTMLElement>('[role="log"]')?.focus(); // the user is in this chat
    h.send(patch(2, [{ op: 'insert', index: 1, entry: permissionTool('t1') }]));
    assert.equal(h.doc.activeElement, h.doc.querySelector('[data-entry-id="t1"] .permission'));
    assert.match(h.doc.querySelector('[role="status"][aria-live="polite"]')?.textContent ?? '', /Permission requested: Run rm -rf build \(t1\)/);
    type(h, 'half a thought');
    h.send(patch(3, [{ op: 'insert', index: 2, entry: permissionTool('t2') }]));
    assert.equal(h.doc.activeElement, textarea(h), 'focus stays in the composer');
  });

  test('a new permission does not take the keyboard from elsewhere (another chat, an editor): it is announced', () => {
    h.send(snapshot(1, [user('u1', 'go')], { phase: 'running' }));
    assert.equal(h.doc.hasFocus(), false, 'nothing in this chat has the keyboard');
    h.send(patch(2, [{ op: 'insert', index: 1, entry: permissionTool('t1') }]));
    assert.equal(h.doc.activeElement, h.doc.body, 'the focus stays where the user is');
    assert.match(h.doc.querySelector('[role="status"][aria-live="polite"]')?.textContent ?? '', /Permission requested: Run rm -rf build \(t1\)/);
    // Back in this chat, Alt+Y answers it.
    h.doc.querySelector<HTMLElement>('[role="log"]')?.focus();
    keydown(h.doc.activeElement ?? h.doc.body, 'y', { altKey: true, code: 'KeyY' });
    assert.deepEqual(h.postedOfType('permission/choose').at(-1), { type: 'permission/choose', requestId: 'req-t1', optionId: 't1-allow' });
  });

  test('the countdown corrects for host clock skew', () => {
    // The host clock runs 100 s ahead of ours.
    const skew = 100_000;
    const hostNow = Date.now() + skew;
    h.send(snapshot(1, [permissionTool('t1', { requestedAt: hostNow - 12_000, expiresAt: hostNow + 42_000 }, hostNow)], { phase: 'running', hostTime: hostNow }));
    const timer = h.doc.querySelector('.permission-timer')?.textContent ?? '';
    assert.match(timer, /Waiting for you for 1[12] s/);
    assert.match(timer, /Hermes denies in 4[12] s/);
  });

  test('Enter sends, Shift+Enter does not, Enter while composing does not', () => {
    h.send(snapshot(1, [], { phase: 'idle' }));
    type(h, 'hello');
    keydown(textarea(h), 'Enter', { shiftKey: true });
    keydown(textarea(h), 'Enter', { isComposing: true });
    assert.equal(h.postedOfType('prompt/submit').length, 0);
    const e = keydown(textarea(h), 'Enter');
    assert.ok(e.defaultPrevented);
    assert.deepEqual(h.postedOfType('prompt/submit'), [{ type: 'prompt/submit', text: 'hello', attachments: [] }]);
    assert.equal(textarea(h).value, '');
  });

  test('while the agent starts, Enter sends (the host holds it); a message handed back returns to the composer with its chips', () => {
    h.send(snapshot(1, [], { phase: 'starting' }));
    assert.match(h.doc.querySelector('.composer-hint')?.textContent ?? '', /Starting Hermes… A message sent now goes once it is ready\./);
    h.deliver({ type: 'composer/attach', attachment: { path: '/w/b.md', label: 'b.md' } });
    type(h, 'early question');
    const send = byRole(h.doc, 'button', 'Send')[0] as HTMLButtonElement | undefined;
    assert.equal(send?.disabled, false);
    keydown(textarea(h), 'Enter');
    assert.deepEqual(h.postedOfType('prompt/submit'), [{ type: 'prompt/submit', text: 'early question', attachments: [{ path: '/w/b.md', label: 'b.md' }] }]);
    assert.equal(textarea(h).value, '');
    // The start failed: the host hands the message back (chatMessages.ts).
    h.deliver({ type: 'composer/insert', text: 'early question' });
    h.deliver({ type: 'composer/attach', attachment: { path: '/w/b.md', label: 'b.md' } });
    assert.equal(textarea(h).value, 'early question');
    assert.equal(h.doc.querySelectorAll('.attachments .chip').length, 1);
  });

  test('Send is unavailable while the agent works, says why, and Stop and Escape cancel', () => {
    h.send(snapshot(1, [], { phase: 'running' }));
    type(h, 'next question');
    const send = byRole(h.doc, 'button', 'Send')[0] as HTMLButtonElement | undefined;
    assert.equal(send?.disabled, true);
    assert.match(h.doc.querySelector('.composer-hint')?.textContent ?? '', /Hermes is working/);
    keydown(textarea(h), 'Enter');
    assert.equal(h.postedOfType('prompt/submit').length, 0);
    assert.equal(textarea(h).value, 'next question', 'the draft is kept');
    const stop = byRole(h.doc, 'button', 'Stop')[0];
    assert.ok(stop && !stop.hidden);
    stop.click();
    keydown(h.doc.body, 'Escape');
    assert.equal(h.postedOfType('turn/cancel').length, 2);
    h.send(patch(2, [], { phase: 'idle' }));
    assert.equal(send.disabled, false);
    assert.ok(stop.hidden);
  });

  test('composer/attach adds a context chip that is sent with the next prompt and can be removed', () => {
    h.send(snapshot(1, []));
    h.deliver({ type: 'composer/attach', attachment: { path: '/w/src/a.ts', label: 'src/a.ts:3-9', startLine: 3, endLine: 9 } });
    h.deliver({ type: 'composer/attach', attachment: { path: '/w/src/a.ts', label: 'src/a.ts:3-9', startLine: 3, endLine: 9 } });
    h.deliver({ type: 'composer/attach', attachment: { path: '/w/b.md', label: 'b.md' } });
    assert.equal(h.doc.querySelectorAll('.attachments .chip').length, 2, 'duplicates are ignored');
    assert.equal(h.doc.activeElement, textarea(h));
    byRole(h.doc, 'button', 'Remove b.md')[0]?.click();
    type(h, 'explain this');
    keydown(textarea(h), 'Enter');
    assert.deepEqual(h.postedOfType('prompt/submit'), [
      { type: 'prompt/submit', text: 'explain this', attachments: [{ path: '/w/src/a.ts', label: 'src/a.ts:3-9', startLine: 3, endLine: 9 }] },
    ]);
    assert.equal(h.doc.querySelectorAll('.attachments .chip').length, 0, 'chips are cleared once sent');
  });

  test('a read-only session disables the composer and explains why', () => {
    h.send(snapshot(1, [], { readOnly: true }));
    assert.equal(textarea(h).disabled, true);
    assert.match(h.doc.querySelector('.composer-hint')?.textContent ?? '', /read-only/);
  });

  test('slash commands: filter by prefix, arrows move, Tab completes, Escape closes', () => {
    h.send(
      snapshot(1, [], {
        commands: [
          { name: 'plan', description: 'Make a plan' },
          { name: 'compact', description: 'Compact the context', hint: '[focus]' },
          { name: 'clear', description: 'Clear the conversation' },
        ],
      }),
    );
    type(h, '/c');
    const list = byRole(h.doc, 'listbox', 'Commands')[0];
    assert.ok(list && !list.hidden);
    const options = byRole(list, 'option');
    // The agent's commands, then the chat's own (issue 38: `/copy`).
    assert.deepEqual(
      options.map((o) => o.querySelector('.slash-name')?.textContent),
      ['/compact', '/clear', '/copy'],
    );
    assert.match(options[0]?.textContent ?? '', /\[focus\].*Compact the context/);
    const t = textarea(h);
    assert.equal(t.getAttribute('aria-activedescendant'), options[0]?.id);
    keydown(t, 'ArrowDown');
    assert.equal(t.getAttribute('aria-activedescendant'), byRole(list, 'option')[1]?.id);
    assert.equal(byRole(list, 'option')[1]?.getAttribute('aria-selected'), 'true');
    keydown(t, 'ArrowDown');
    keydown(t, 'ArrowDown');
    assert.equal(t.getAttribute('aria-activedescendant'), byRole(list, 'option')[0]?.id, 'wraps around');
    keydown(t, 'ArrowUp');
    keydown(t, 'ArrowUp');
    const tab = keydown(t, 'Tab');
    assert.ok(tab.defaultPrevented);
    assert.equal(t.value, '/clear ');
    assert.ok(list.hidden);
    assert.equal(h.postedOfType('prompt/submit').length, 0, 'Tab completes, it does not send (Enter: composerKeys.test.ts)');
    type(h, '/p');
    keydown(t, 'Tab');
    assert.equal(t.value, '/plan ');
    type(h, '/');
    assert.equal(byRole(list, 'option').length, 3 + 5, "the agent's three and the chat's five");
    const esc = keydown(t, 'Escape');
    assert.ok(esc.defaultPrevented && list.hidden);
    type(h, 'no slash');
    assert.ok(list.hidden);
  });

  test('the draft survives a reload (setState) and host snapshots; composer/insert and composer/focus', () => {
    h.send(snapshot(1, [user('u1', 'x')]));
    type(h, 'draft text');
    h.send(snapshot(2, [user('u1', 'x'), assistant('a1', 'y')]));
    assert.equal(textarea(h).value, 'draft text');
    h.deliver({ type: 'composer/insert', text: '@src/a.ts' });
    assert.equal(textarea(h).value, 'draft text @src/a.ts');
    assert.equal(h.doc.activeElement, textarea(h));
    const saved = h.state();
    assert.deepEqual((saved as { v: number; ui: { draft: string } }).ui.draft, 'draft text @src/a.ts');
    h.close();
    h = createHarness({ state: saved });
    assert.equal(textarea(h).value, 'draft text @src/a.ts');
    textarea(h).blur();
    h.deliver({ type: 'composer/focus' });
    assert.equal(h.doc.activeElement, textarea(h));
  });

  test('a thought is open while it streams and closes when the answer starts; a user toggle is remembered', () => {
    const now = Date.now();
    h.send(snapshot(1, [{ kind: 'assistant', id: 'a1', parts: [{ kind: 'thought', text: 'Let me think', startedAt: now - 2_000 }] }], { phase: 'running', hostTime: now }));
    const details = h.doc.querySelector<HTMLDetailsElement>('[data-entry-id="a1"] details.thought');
    assert.ok(details);
    assert.equal(details.open, true);
    assert.equal(details.querySelector('summary')?.textContent, 'Thinking…');
    h.send(patch(2, [{ op: 'appendText', index: 0, part: 0, kind: 'thought', text: ' harder' }]));
    h.settle();
    assert.match(details.textContent ?? '', /Let me think harder/);
    h.send(patch(3, [{ op: 'appendText', index: 0, part: 1, kind: 'text', text: 'The answer', at: now + 3_000 }]));
    assert.equal(details.open, false);
    assert.equal(details.querySelector('summary')?.textContent, 'Thought for 5 s');
    // The user opens it: it stays open through later updates and reloads.
    details.open = true;
    details.dispatchEvent(new h.win.Event('toggle'));
    h.send(patch(4, [{ op: 'appendText', index: 0, part: 1, kind: 'text', text: ' is 42' }]));
    assert.equal(details.open, true);
    const expanded = (h.state() as { ui: { expanded: Record<string, boolean> } }).ui.expanded;
    assert.deepEqual(expanded, { 'a1:0': true });
  });

  test('tool cards: locations, diff, full output, raw input, and expansion kept across updates', () => {
    h.send(snapshot(1, everyKind()));
    const read = h.doc.querySelector<HTMLElement>('[data-entry-id="t1"]');
    assert.ok(read);
    byRole(read, 'button', /src\/a\.ts:12/)[0]?.click();
    assert.deepEqual(h.postedOfType('location/open'), [{ type: 'location/open', path: '/work/src/a.ts', line: 12 }]);
    // A completed read starts collapsed; expanding shows the truncated output and its button.
    const toggle = byRole(read, 'button', 'Read src/a.ts')[0];
    assert.equal(toggle?.getAttribute('aria-expanded'), 'false');
    toggle?.click();
    assert.equal(toggle?.getAttribute('aria-expanded'), 'true');
    byRole(read, 'button', 'Open full output')[0]?.click();
    assert.deepEqual(h.postedOfType('output/open'), [{ type: 'output/open', entryId: 't1', contentIndex: 0 }]);
    h.send(patch(2, [{ op: 'replace', index: 2, entry: tool('t1', { title: 'Read src/a.ts', status: 'failed', content: [] }) }]));
    assert.equal(h.doc.querySelector('[data-entry-id="t1"]'), read, 'same node');
    assert.equal(toggle?.getAttribute('aria-expanded'), 'true', 'expansion kept');
    const edit = h.doc.querySelector<HTMLElement>('[data-entry-id="t2"]');
    edit?.querySelector<HTMLButtonElement>('button.diff-summary')?.click();
    assert.deepEqual(h.postedOfType('diff/open'), [{ type: 'diff/open', entryId: 't2', contentIndex: 0 }]);
    const term = h.doc.querySelector<HTMLElement>('[data-entry-id="t3"]');
    assert.match(term?.querySelector('.tool-command')?.textContent ?? '', /\$ npm test -- --grep a/);
    const raw = term?.querySelector<HTMLDetailsElement>('details.raw-details');
    assert.equal(raw?.open, false);
    assert.equal(raw?.querySelector('pre')?.textContent, '', 'raw text is filled only when opened');
    if (raw !== undefined && raw !== null) {
      raw.open = true;
      raw.dispatchEvent(new h.win.Event('toggle'));
      assert.match(raw.querySelector('pre')?.textContent ?? '', /"command"/);
    }
  });

  test('a long tool output shows its first 4,000 characters at once and the rest when the page is idle, as one text; a short one whole', () => {
    const long = Array.from({ length: 250 }, (_, i) => `line ${String(i).padStart(3, '0')}: ${'x'.repeat(40)}`).join('\n');
    const short = long.slice(0, 3_999);
    const output = (id: string, text: string): EntryView => tool(id, { title: `Run ${id}`, toolKind: 'execute', content: [{ type: 'text', text, fullLength: text.length, markdown: false }] });
    h.send(snapshot(1, [output('long', long), output('short', short)]));
    const box = (id: string): Element | null => h.doc.querySelector(`[data-entry-id="${id}"] pre.tool-output`);
    assert.equal(box('long')?.textContent, long.slice(0, 4_000), 'the first 4,000 characters in the first frame');
    assert.equal(box('short')?.textContent, short);
    h.timers.advance(0); // the page is idle
    assert.equal(box('long')?.textContent, long, 'then the rest, after it');
    assert.equal(box('long')?.childNodes.length, 2);
    h.timers.advance(1_000);
    assert.equal(box('long')?.textContent, long, 'once');
  });

  test('a running terminal grows in place', () => {
    const running = (output: string): EntryView =>
      tool('t1', { toolKind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'x', output, fullLength: output.length, running: true }] });
    h.send(snapshot(1, [running('line 1\n')]));
    const pre = h.doc.querySelector('.terminal-output');
    const first = pre?.firstChild;
    h.send(patch(2, [{ op: 'replace', index: 0, entry: running('line 1\n\u001b[33mline 2\u001b[0m\n') }]));
    assert.equal(pre?.firstChild, first, 'earlier output is not re-rendered');
    assert.equal(pre?.textContent, 'line 1\nline 2\n');
    assert.match(h.doc.querySelector('.terminal-state')?.textContent ?? '', /Running/);
  });

  test('file links and notice actions post their messages; other links cannot navigate', () => {
    h.send(snapshot(1, [assistant('a1', 'Open [a.ts](src/a.ts:7) or [b](#top)'), { kind: 'notice', id: 'n1', level: 'warning', title: 'Slow', actions: ['setupProvider'] }]));
    const link = h.doc.querySelector<HTMLAnchorElement>('a.file-link');
    const click = new h.win.MouseEvent('click', { bubbles: true, cancelable: true });
    link?.dispatchEvent(click);
    assert.ok(click.defaultPrevented);
    assert.deepEqual(h.postedOfType('location/open'), [{ type: 'location/open', path: 'src/a.ts', line: 7 }]);
    byRole(h.doc, 'button', 'Set Up Provider')[0]?.click();
    assert.deepEqual(h.postedOfType('notice/action'), [{ type: 'notice/action', action: 'setupProvider' }]);
  });

  test('fork from here, excluded and replayed prompts', () => {
    h.send(snapshot(1, [user('u1', 'old', { excluded: true, origin: 'replay' }), user('u2', 'new')]));
    const u1 = h.doc.querySelector<HTMLElement>('[data-entry-id="u1"]');
    assert.match(u1?.textContent ?? '', /not sent to the agent again/);
    assert.ok(u1?.classList.contains('excluded'));
    assert.equal(u1?.querySelector('.user-tools .excluded-note'), null, 'the note is under the text, not floated beside it');
    byRole(h.doc.querySelector('[data-entry-id="u2"]') ?? h.doc, 'button', 'Fork from here')[0]?.click();
    assert.deepEqual(h.postedOfType('fork/fromHere'), [{ type: 'fork/fromHere', entryId: 'u2' }]);
  });

  test('a replayed or agent-announced prompt is the user’s message, exactly like one typed here (issue 22)', () => {
    h.send(snapshot(1, [user('u1', 'typed here'), user('u2', 'from session/load', { origin: 'replay' }), user('u3', 'queued', { origin: 'agent' })]));
    const shown = byRole(h.doc, 'article', 'You');
    assert.equal(shown.length, 3);
    const shape = (e: HTMLElement): string => `${e.className}|${Array.from(e.children, (c) => c.className).join(',')}|${e.querySelector('.user-tools')?.textContent ?? ''}`;
    assert.deepEqual(shown.map(shape), shown.map(() => shape(shown[0]!)), 'same classes, same parts, no tag');
    assert.doesNotMatch(h.doc.body.textContent ?? '', /restored|sent by the agent/);
    assert.deepEqual(shown.map((e) => e.getAttribute('data-origin')), ['local', 'replay', 'agent']);
  });

  test('a notice with a fork point offers "Start fresh from here"; Set Up Agent and Open Remote Settings post their actions', () => {
    h.send(
      snapshot(1, [
        user('u1', '[ratelimit] hi'),
        { kind: 'notice', id: 'n1', level: 'info', title: 'Hermes will send this message again with your next one.', actions: [], forkFrom: 'u1' },
        { kind: 'notice', id: 'n2', level: 'error', title: '`hermes` was not found on PATH.', actions: ['setupAgent', 'openRemoteSettings'] },
      ]),
    );
    const info = h.doc.querySelector<HTMLElement>('[data-entry-id="n1"]');
    assert.ok(info?.classList.contains('notice-info'));
    byRole(info ?? h.doc, 'button', 'Start fresh from here')[0]?.click();
    assert.deepEqual(h.postedOfType('fork/fromHere'), [{ type: 'fork/fromHere', entryId: 'u1' }]);
    byRole(h.doc, 'button', 'Set Up Agent…')[0]?.click();
    byRole(h.doc, 'button', 'Open Remote Settings')[0]?.click();
    assert.deepEqual(h.postedOfType('notice/action'), [
      { type: 'notice/action', action: 'setupAgent' },
      { type: 'notice/action', action: 'openRemoteSettings' },
    ]);
  });

  test('completed replies and turn outcomes are announced once; streaming chunks are not', () => {
    h.send(snapshot(1, [user('u1', 'q')], { phase: 'running' }));
    const status = h.doc.querySelector('[role="status"][aria-live="polite"]');
    h.send(patch(2, [{ op: 'insert', index: 1, entry: assistant('a1', 'The answer is ') }]));
    h.send(patch(3, [{ op: 'appendText', index: 1, part: 0, kind: 'text', text: '42.' }]));
    assert.equal(status?.textContent, '');
    h.send(patch(4, [{ op: 'insert', index: 2, entry: turnEnd('e1', { outcome: 'cancelled' }) }], { phase: 'idle' }));
    assert.equal(
      Array.from(status?.children ?? []).map((c) => c.textContent).join(' | '),
      'Hermes replied: The answer is 42. | Turn ended: Cancelled',
    );
  });

  test("the turn's end shows the text streaming held back in the message's own task, before the frame", () => {
    h.send(snapshot(1, [user('u1', 'q')], { phase: 'running', turnStartedAt: Date.now() }));
    h.send(patch(2, [{ op: 'insert', index: 1, entry: assistant('a1', 'First paragraph.\n\n') }]));
    const reply = (): string => h.doc.querySelector('[data-entry-id="a1"]')?.textContent ?? '';
    h.send(patch(3, [{ op: 'appendText', index: 1, part: 0, kind: 'text', text: 'Second paragraph, held back by the pacing.' }]));
    assert.doesNotMatch(reply(), /Second paragraph/, 'a refresh this soon after the last waits for its timer');

    h.deliver(patch(4, [{ op: 'insert', index: 2, entry: turnEnd('e1') }], { phase: 'idle' }));
    assert.match(reply(), /First paragraph\.\s*Second paragraph, held back by the pacing\.$/, 'rendered in the task that ended the turn');
    assert.equal(h.doc.querySelectorAll('[data-entry-id="e1"]').length, 0, 'the footer waits for the frame');

    h.frame();
    assert.match(reply(), /Second paragraph, held back by the pacing\.$/);
    assert.ok(h.doc.querySelector('[data-entry-id="e1"]') !== null, 'the footer is shown in the frame');
    h.timers.advance(5_000);
    assert.equal((reply().match(/Second paragraph/g) ?? []).length, 1, 'shown once: nothing renders it again');
  });

  test('a turn that ends while its reply waits for the frame renders it whole in that frame', () => {
    h.send(snapshot(1, [user('u1', 'q')], { phase: 'running', turnStartedAt: Date.now() }));
    h.deliver(patch(2, [{ op: 'insert', index: 1, entry: assistant('a1', 'Quick answer.') }]));
    h.deliver(patch(3, [{ op: 'insert', index: 2, entry: turnEnd('e1') }], { phase: 'idle' }));
    assert.equal(h.doc.querySelector('[data-entry-id="a1"]'), null, 'nothing rendered before the frame');
    h.frame();
    assert.equal(h.doc.querySelector('[data-entry-id="a1"]')?.textContent, 'Quick answer.');
  });

  test('strings come from the host bundle when it has them', () => {
    h.close();
    h = createHarness({ l10n: { Send: 'Senden', 'Message {0} — Enter to send, / for commands, @ for files': 'Nachricht an {0}' } });
    h.send(snapshot(1, []));
    assert.equal(byRole(h.doc, 'button', 'Senden').length, 1);
    assert.equal(textarea(h).placeholder, 'Nachricht an Hermes');
  });

  test('the transcript is a log that does not announce itself, with a jump-to-latest control', () => {
    h.send(snapshot(1, everyKind()));
    const log = byRole(h.doc, 'log', 'Conversation')[0];
    assert.equal(log?.getAttribute('aria-live'), 'off');
    const jump = byRole(h.doc, 'button', 'Jump to latest')[0];
    assert.ok(jump?.hidden, 'hidden while at the bottom');
    for (const b of Array.from(h.doc.querySelectorAll('button'))) {
      assert.notEqual(b.textContent?.trim() === '' && !b.hasAttribute('aria-label'), true, `unnamed button ${b.outerHTML.slice(0, 80)}`);
    }
  });

  test("Home, End and the page keys in the log are the transcript's; a terminal's output and fields keep theirs", () => {
    const terminal = tool('t1', { toolKind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'x', output: 'line 1\n', fullLength: 7, running: true }] });
    h.send(snapshot(1, [...everyKind(), terminal]));
    const log = byRole(h.doc, 'log', 'Conversation')[0];
    const jump = byRole(h.doc, 'button', 'Jump to latest')[0];
    const output = h.doc.querySelector('.terminal-output');
    assert.ok(log && jump && output);
    assert.ok(jump.hidden);
    assert.ok(keydown(log, 'Home').defaultPrevented, 'Home in the log is not the browser’s animated scroll');
    assert.ok(!jump.hidden, 'Home leaves the reply: Jump to latest is offered');
    assert.ok(keydown(log, 'End').defaultPrevented);
    assert.ok(jump.hidden, 'End follows the reply again');
    const button = log.querySelector('button');
    assert.ok(button);
    assert.ok(keydown(button, 'Home', { ctrlKey: true }).defaultPrevented, 'from a button in a row too (Ctrl+Home as well)');
    assert.ok(!jump.hidden);
    assert.ok(keydown(log, 'PageDown').defaultPrevented, 'a page down that reaches the bottom follows the reply again');
    assert.ok(jump.hidden);
    assert.ok(keydown(log, 'PageUp').defaultPrevented);
    assert.ok(!jump.hidden);
    assert.ok(keydown(log, 'ArrowDown', { metaKey: true }).defaultPrevented, 'Cmd+Down is End (macOS)');
    assert.ok(jump.hidden);
    assert.ok(keydown(log, 'ArrowUp', { metaKey: true }).defaultPrevented, 'Cmd+Up is Home');
    assert.ok(!jump.hidden);
    assert.ok(!keydown(log, 'ArrowDown').defaultPrevented, 'an arrow alone stays the browser’s');
    keydown(log, 'End');
    button.addEventListener('keydown', (e) => e.preventDefault(), { once: true });
    keydown(button, 'Home');
    assert.ok(jump.hidden, 'a key a card took (its default prevented) is left to it');
    for (const [target, init] of [[output, {}], [log, { shiftKey: true }], [log, { altKey: true }]] as const) {
      for (const key of ['Home', 'PageUp']) {
        assert.ok(!keydown(target, key, init).defaultPrevented, `${key} left alone on ${target.className} ${JSON.stringify(init)}`);
        assert.ok(jump.hidden);
      }
    }
  });
});
