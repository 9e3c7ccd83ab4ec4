import * as assert from 'node:assert/strict';
import type { EntryView, PermissionView } from '../../../src/protocol/sessionView';
import { patch, snapshot, tool } from './fixtures';
import { byRole, createHarness, type Harness } from './harness';

function commandTool(id: string, permission: Partial<PermissionView> = {}): Extract<EntryView, { kind: 'tool' }> {
  return tool(id, {
    title: `git commit (${id})`,
    toolKind: 'execute',
    status: 'pending',
    permission: {
      requestId: `req-${id}`,
      status: 'pending',
      options: [
        { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'allow_always', name: 'Allow always', kind: 'allow_always' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ],
      requestedAt: Date.now() - 1_000,
      check: { targets: ['run git commit -m wip'], decision: 'no rule allows run git commit -m wip', argv: ['git', 'commit', '-m', 'wip'] },
      ...permission,
    },
  });
}

suite('webview: permission card, what was checked and what "always" remembers', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
  });
  teardown(() => h.close());

  test('the card lists the targets checked and why it asks', () => {
    h.send(snapshot(1, [commandTool('t1')], { phase: 'running' }));
    const card = byRole(h.doc, 'article', 'git commit (t1)')[0];
    assert.ok(card);
    const list = card.querySelector('ul.permission-targets');
    assert.ok(list);
    assert.equal(list.getAttribute('aria-labelledby') !== null, true);
    assert.deepEqual([...list.querySelectorAll('li')].map((li) => li.textContent), ['run git commit -m wip']);
    assert.match(card.querySelector('.permission-decision')?.textContent ?? '', /no rule allows/);
  });

  test('"always" remembers the exact command by default, or a prefix picked in a labelled list', () => {
    h.send(snapshot(1, [commandTool('t1'), commandTool('t2')], { phase: 'running' }));
    const [one, two] = byRole(h.doc, 'combobox', '“Always” remembers');
    assert.ok(one instanceof h.win.HTMLSelectElement && two instanceof h.win.HTMLSelectElement);
    assert.deepEqual(
      [...one.options].map((o) => o.textContent),
      ['exactly “git commit -m wip”', '“git commit -m” with any arguments', '“git commit” with any arguments', '“git” with any arguments'],
    );
    assert.equal(one.value, '4', 'exact by default');
    assert.equal(one.tabIndex >= 0, true, 'keyboard-reachable');
    const card1 = byRole(h.doc, 'article', 'git commit (t1)')[0];
    byRole(card1 ?? h.doc, 'button', 'Allow always')[0]?.click();
    assert.deepEqual(h.postedOfType('permission/choose').at(-1), { type: 'permission/choose', requestId: 'req-t1', optionId: 'allow_always' });
    two.value = '2';
    two.dispatchEvent(new h.win.Event('change', { bubbles: true }));
    const card2 = byRole(h.doc, 'article', 'git commit (t2)')[0];
    byRole(card2 ?? h.doc, 'button', 'Allow always')[0]?.click();
    assert.deepEqual(h.postedOfType('permission/choose').at(-1), { type: 'permission/choose', requestId: 'req-t2', optionId: 'allow_always', rememberPrefix: 2 });
  });

  test('a one-time answer never sends a prefix; no list without a rememberable command', () => {
    h.send(snapshot(1, [commandTool('t1'), commandTool('t2', { check: { targets: ['run ls', 'run rm -rf ~'], decision: 'x' } })], { phase: 'running' }));
    const [select] = byRole(h.doc, 'combobox', '“Always” remembers');
    assert.ok(select instanceof h.win.HTMLSelectElement);
    select.value = '1';
    const card1 = byRole(h.doc, 'article', 'git commit (t1)')[0];
    byRole(card1 ?? h.doc, 'button', 'Allow once')[0]?.click();
    assert.deepEqual(h.postedOfType('permission/choose').at(-1), { type: 'permission/choose', requestId: 'req-t1', optionId: 'allow_once' });
    assert.equal(byRole(h.doc, 'combobox', '“Always” remembers').length, 1, 'the compound command offers no prefix');
  });

  test('once answered, the card says what was remembered', () => {
    h.send(snapshot(1, [commandTool('t1')], { phase: 'running' }));
    h.send(
      patch(2, [
        {
          op: 'replace',
          index: 0,
          entry: commandTool('t1', { status: 'selected', optionId: 'allow_always', answeredBy: 'user', remembered: 'Remembered: you chose "Allow always" for run git commit … (this session)' }),
        },
      ]),
    );
    const card = byRole(h.doc, 'article', 'git commit (t1)')[0];
    assert.match(card?.querySelector('.permission-remembered')?.textContent ?? '', /Remembered: .*git commit …/);
    assert.equal(byRole(card ?? h.doc, 'combobox').length, 0);
  });
});
