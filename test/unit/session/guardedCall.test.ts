import type * as acp from '@agentclientprotocol/sdk';
import * as assert from 'node:assert/strict';
import type { PermissionCheckView } from '../../../src/protocol/sessionView';
import type { Entry, ToolEntry } from '../../../src/session/sessionState';
import { targetsOf } from '../../../src/session/slices/guardedCall';
import { nextId, SessionHarness, toolCall, toolUpdate } from '../../builders/sessionBuilders';

/**
 * A permission request under an id never announced joins the call it guards (Hermes'
 * `edit-approval-N` / `perm-check-N`, hermes-acp.md §6–7): one card, one permission, whichever
 * comes first. Shapes as in test/fixtures/hermes/main.jsonl.
 */

function tools(entries: readonly Entry[]): ToolEntry[] {
  return entries.filter((e): e is ToolEntry => e.kind === 'tool');
}

const editOptions: acp.PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow edit', kind: 'allow_once' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
];

const file = '/lab/ws/hello.txt';
const patchCall = toolCall('tc-1a4c', {
  title: `patch (replace): ${file}`,
  kind: 'edit',
  locations: [{ path: file }],
  content: [{ type: 'content', content: { type: 'text', text: `Preparing replace edit for ${file}.` } }],
});
const patchApproval: acp.ToolCallUpdate = {
  toolCallId: 'edit-approval-1',
  title: `Approve edit: ${file}`,
  kind: 'edit',
  status: 'pending',
  content: [{ type: 'diff', path: file, oldText: 'hello world\n', newText: 'hello ACP\n' }],
  rawInput: { tool: 'patch', arguments: { mode: 'replace', path: file, old_string: 'world', new_string: 'ACP' } },
};
const terminalCall = toolCall('tc-77d3', { title: 'terminal: rm -r /lab/ws/scratch', kind: 'execute', locations: [] });
const commandCheck: acp.ToolCallUpdate = {
  toolCallId: 'perm-check-1',
  title: 'delete in root path: rm -r /lab/ws/scratch',
  kind: 'execute',
  status: 'pending',
  rawInput: { command: 'rm -r /lab/ws/scratch', description: 'delete in root path' },
};

function ask(h: SessionHarness, request: acp.ToolCallUpdate, requestId: string, check?: PermissionCheckView): void {
  h.apply({ type: 'permissionRequested', id: nextId(), at: h.tick(), requestId, toolCall: request, options: editOptions, ...(check !== undefined ? { check } : {}) });
}

suite('session reducer: a permission request joins the call it guards', () => {
  test('request after the call (Hermes 0.19 edit): one entry with the call\'s title, the request\'s diff and arguments', () => {
    const h = new SessionHarness();
    h.prompt('edit');
    h.update(patchCall);
    ask(h, patchApproval, 'p1');
    const [t, ...rest] = tools(h.state.entries);
    assert.equal(rest.length, 0, 'one card');
    assert.deepEqual([t?.toolCallId, t?.title, t?.toolKind], ['tc-1a4c', `patch (replace): ${file}`, 'edit']);
    assert.deepEqual([t?.permission?.requestId, t?.permission?.status, t?.permission?.toolCallId], ['p1', 'pending', 'edit-approval-1']);
    assert.deepEqual(t?.aliasIds, ['edit-approval-1']);
    assert.deepEqual(t?.rawInput, patchApproval.rawInput);
    assert.deepEqual(t?.content.map((c) => c.type), ['content', 'diff'], 'the preview and the diff');
  });

  test('request after the call (dangerous command): matched by the command in the title and rawInput; the agent\'s completion lands on it', () => {
    const h = new SessionHarness();
    h.prompt('clean');
    h.update(terminalCall);
    ask(h, commandCheck, 'p1');
    h.apply({ type: 'permissionResolved', requestId: 'p1', outcome: { kind: 'selected', optionId: 'allow_once' }, answeredBy: 'user', at: h.tick() });
    h.update(toolUpdate('tc-77d3', { status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'exit_code: 0' } }] }));
    const [t, ...rest] = tools(h.state.entries);
    assert.equal(rest.length, 0);
    assert.deepEqual([t?.status, t?.permission?.status, t?.permission?.optionId], ['completed', 'selected', 'allow_once']);
  });

  test('request before the call: the call announced next takes the entry over (its id and title), keeps the permission and its answer', () => {
    const h = new SessionHarness();
    h.prompt('edit');
    ask(h, patchApproval, 'p1');
    h.apply({ type: 'permissionResolved', requestId: 'p1', outcome: { kind: 'selected', optionId: 'allow_once' }, answeredBy: 'user', at: h.tick() });
    const [before] = tools(h.state.entries);
    assert.equal(before?.permissionOnly, true);
    h.update(patchCall);
    const [t, ...rest] = tools(h.state.entries);
    assert.equal(rest.length, 0, 'one card');
    assert.equal(t?.id, before?.id, 'the same entry (the same card in the chat)');
    assert.deepEqual([t?.toolCallId, t?.title, t?.permissionOnly, t?.aliasIds], ['tc-1a4c', `patch (replace): ${file}`, undefined, ['edit-approval-1']]);
    assert.deepEqual([t?.permission?.status, t?.permission?.toolCallId], ['selected', 'edit-approval-1']);
    assert.deepEqual(t?.rawInput, patchApproval.rawInput, 'the request\'s arguments stay when the call has none');
    assert.deepEqual(t?.content.map((c) => c.type), ['content', 'diff']);
    h.update(toolUpdate('edit-approval-1', { status: 'completed' }));
    assert.equal(tools(h.state.entries).length, 1, 'updates under the request\'s id land on the call');
    assert.equal(tools(h.state.entries)[0]?.status, 'completed');
  });

  test('a denied request before the call: the call that follows does not reopen it', () => {
    const h = new SessionHarness();
    h.prompt('edit');
    ask(h, patchApproval, 'p1');
    h.apply({ type: 'permissionResolved', requestId: 'p1', outcome: { kind: 'selected', optionId: 'deny' }, answeredBy: 'user', at: h.tick() });
    h.update(patchCall);
    const [t, ...rest] = tools(h.state.entries);
    assert.equal(rest.length, 0);
    assert.equal(t?.status, 'failed');
  });

  test('nothing matches: the request is a call of its own (another path, another kind, a finished call, a call of an earlier turn)', () => {
    const h = new SessionHarness();
    h.prompt('one');
    h.update(toolCall('tc-old', { title: `patch (replace): ${file}`, kind: 'edit', locations: [{ path: file }] }));
    h.end();
    h.prompt('two');
    h.update(toolCall('tc-other', { title: 'patch (replace): /lab/ws/other.txt', kind: 'edit', locations: [{ path: '/lab/ws/other.txt' }] }));
    h.update(toolCall('tc-read', { title: `read: ${file}`, kind: 'read', locations: [{ path: file }] }));
    h.update(toolCall('tc-done', { title: `patch (replace): ${file}`, kind: 'edit', locations: [{ path: file }], status: 'completed' }));
    ask(h, patchApproval, 'p1');
    const t = tools(h.state.entries);
    assert.deepEqual(t.map((e) => e.toolCallId), ['tc-old', 'tc-other', 'tc-read', 'tc-done', 'edit-approval-1']);
    assert.deepEqual(t.map((e) => e.permission?.requestId), [undefined, undefined, undefined, undefined, 'p1']);
  });

  test('a call that already holds a permission is not joined twice: a second request with the same target is its own', () => {
    const h = new SessionHarness();
    h.prompt('edit');
    h.update(patchCall);
    ask(h, patchApproval, 'p1');
    ask(h, { ...patchApproval, toolCallId: 'edit-approval-2' }, 'p2');
    assert.deepEqual(tools(h.state.entries).map((e) => [e.toolCallId, e.permission?.requestId]), [['tc-1a4c', 'p1'], ['edit-approval-2', 'p2']]);
  });

  test('a request under the call\'s own id stays on it (Claude, Codex), as before', () => {
    const h = new SessionHarness();
    h.prompt('edit');
    h.update(toolCall('toolu_1', { title: 'Edit hello.txt', kind: 'edit', locations: [{ path: file }] }));
    ask(h, { toolCallId: 'toolu_1', title: 'Edit hello.txt', kind: 'edit' }, 'p1');
    const [t, ...rest] = tools(h.state.entries);
    assert.equal(rest.length, 0);
    assert.deepEqual([t?.permission?.requestId, t?.permission?.toolCallId, t?.aliasIds], ['p1', undefined, undefined]);
  });

  test('the permission layer\'s check of the request\'s own targets is kept on the joined call', () => {
    const h = new SessionHarness();
    h.prompt('edit');
    h.update(patchCall);
    const check: PermissionCheckView = { targets: [`write ${file}`], decision: 'asked the user' };
    ask(h, patchApproval, 'p1', check);
    assert.deepEqual(tools(h.state.entries)[0]?.permission?.check, check);
  });

  test('targets: paths from locations, diffs and (wrapped) arguments; commands from rawInput and the title after its label', () => {
    assert.deepEqual([...targetsOf(patchApproval).targets].sort(), [file]);
    assert.deepEqual([...targetsOf({ ...commandCheck, rawInput: { command: ['rm', '-r', 'x'] } }).targets].sort(), ['rm -r /lab/ws/scratch', 'rm -r x']);
    assert.deepEqual([...targetsOf({ title: 'Read File', kind: 'read' }).targets], [], 'a title without a label names nothing');
  });
});
