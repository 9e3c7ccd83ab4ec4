import * as assert from 'node:assert/strict';
import { diffEntries } from '../../../src/session/entryDiff';
import { reduceSession } from '../../../src/session/sessionReducer';
import type { AssistantEntry, Entry, ToolEntry } from '../../../src/session/sessionState';
import { toMarkdown } from '../../../src/session/transcript';
import { nextId, plan, SessionHarness, textChunk, toolCall, toolUpdate } from '../../builders/sessionBuilders';

function tools(entries: readonly Entry[]): ToolEntry[] {
  return entries.filter((e): e is ToolEntry => e.kind === 'tool');
}

function assistants(entries: readonly Entry[]): AssistantEntry[] {
  return entries.filter((e): e is AssistantEntry => e.kind === 'assistant');
}

suite('session reducer', () => {
  test('treats a repeated tool_call as an upsert', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(toolCall('t1', { title: 'Edit', kind: 'edit', rawInput: {} }));
    h.update(toolCall('t1', { title: 'Edit hello.txt', kind: 'edit', status: 'in_progress' }));
    const t = tools(h.state.entries);
    assert.equal(t.length, 1);
    assert.equal(t[0]?.title, 'Edit hello.txt');
    assert.equal(t[0]?.status, 'in_progress');
  });

  test('merges only the fields present in tool_call_update; content and locations replace the collection', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(
      toolCall('t1', {
        title: 'read',
        kind: 'read',
        content: [{ type: 'content', content: { type: 'text', text: 'a' } }],
        locations: [{ path: '/w/a.ts', line: 1 }],
      }),
    );
    h.update(toolUpdate('t1', { status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'b' } }] }));
    const t = tools(h.state.entries)[0];
    assert.equal(t?.title, 'read');
    assert.equal(t?.toolKind, 'read');
    assert.equal(t?.status, 'completed');
    assert.deepEqual(t?.content, [{ type: 'content', content: { type: 'text', text: 'b' } }]);
    assert.deepEqual(t?.locations, [{ path: '/w/a.ts', line: 1 }]);
  });

  test('treats null fields in tool_call_update as unchanged', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(toolCall('t1', { title: 'x', kind: 'execute', content: [{ type: 'content', content: { type: 'text', text: 'keep' } }] }));
    h.update(toolUpdate('t1', { title: null, content: null, kind: null, status: 'in_progress' }));
    const t = tools(h.state.entries)[0];
    assert.equal(t?.title, 'x');
    assert.equal(t?.toolKind, 'execute');
    assert.equal(t?.content.length, 1);
  });

  test('creates the entry when an update names a tool call never announced', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(toolUpdate('ghost', { status: 'completed', title: 'ghost call' }));
    const t = tools(h.state.entries);
    assert.equal(t.length, 1);
    assert.equal(t[0]?.status, 'completed');
    assert.equal(t[0]?.title, 'ghost call');
  });

  test('attaches a permission for an unannounced tool call to a new entry', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(toolCall('tc-1', { title: 'patch', kind: 'edit' }));
    h.apply({
      type: 'permissionRequested',
      id: nextId(),
      at: h.tick(),
      requestId: 'p1',
      toolCall: { toolCallId: 'edit-approval-1', title: 'Approve edit: a.txt', kind: 'edit', status: 'pending' },
      options: [
        { optionId: 'allow_once', name: 'Allow edit', kind: 'allow_once' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ],
    });
    const t = tools(h.state.entries);
    assert.equal(t.length, 2);
    assert.equal(t[1]?.toolCallId, 'edit-approval-1');
    assert.equal(t[1]?.permission?.status, 'pending');
    assert.equal(t[0]?.permission, undefined);
  });

  test('ignores echoed user chunks during an active turn', () => {
    const h = new SessionHarness();
    h.prompt('hello there');
    h.update(textChunk('hello there', 'user_message_chunk'));
    assert.equal(h.state.entries.filter((e) => e.kind === 'user').length, 1);
  });

  test('shows user chunks that are not an echo as agent-announced user messages', () => {
    const h = new SessionHarness();
    h.prompt('first');
    h.update(textChunk('queued prompt', 'user_message_chunk'));
    const users = h.state.entries.filter((e) => e.kind === 'user');
    assert.equal(users.length, 2);
    assert.equal(users[1]?.origin, 'agent');
  });

  test('starts a new assistant message when the messageId changes', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(textChunk('one', 'agent_message_chunk', 'm1'));
    h.update(textChunk(' more', 'agent_message_chunk', 'm1'));
    h.update(textChunk('two', 'agent_message_chunk', 'm2'));
    const a = assistants(h.state.entries);
    assert.equal(a.length, 2);
    assert.deepEqual(
      a.map((x) => x.parts.map((p) => (p.kind === 'block' ? '' : p.text)).join('')),
      ['one more', 'two'],
    );
  });

  test('starts a new assistant message after a tool call', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(textChunk('before'));
    h.update(toolCall('t1'));
    h.update(textChunk('after'));
    assert.deepEqual(
      h.state.entries.map((e) => e.kind),
      ['user', 'assistant', 'tool', 'assistant'],
    );
  });

  test('keeps thoughts and text as separate parts of one message', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(textChunk('think', 'agent_thought_chunk'));
    h.update(textChunk('ing', 'agent_thought_chunk'));
    h.update(textChunk('answer'));
    const a = assistants(h.state.entries)[0];
    assert.deepEqual(a?.parts.map((p) => [p.kind, p.kind === 'block' ? '' : p.text]), [
      ['thought', 'thinking'],
      ['text', 'answer'],
    ]);
  });

  test('replaces the plan on every plan update and updates the turn checklist in place', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(plan(['a', 'pending'], ['b', 'pending']));
    h.update(plan(['a', 'completed'], ['b', 'in_progress']));
    assert.deepEqual(h.state.plan.map((p) => p.status), ['completed', 'in_progress']);
    assert.equal(h.state.entries.filter((e) => e.kind === 'plan').length, 1);
    h.end();
    h.prompt('again');
    h.update(plan(['c', 'pending']));
    assert.equal(h.state.entries.filter((e) => e.kind === 'plan').length, 2);
    assert.deepEqual(h.state.plan.map((p) => p.content), ['c']);
  });

  test('marks unfinished tool calls cancelled on cancel, and still applies later updates', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(toolCall('t1', { status: 'in_progress' }));
    h.update(toolCall('t2', { status: 'completed' }));
    h.apply({ type: 'cancelRequested', at: h.tick() });
    assert.deepEqual(tools(h.state.entries).map((t) => t.status), ['cancelled', 'completed']);
    assert.equal(h.state.phase, 'cancelling');
    h.update(toolUpdate('t1', { status: 'completed' }));
    assert.equal(tools(h.state.entries)[0]?.status, 'completed');
    h.end('cancelled');
    assert.equal(h.state.phase, 'idle');
    const footer = h.state.entries.at(-1);
    assert.equal(footer?.kind === 'turnEnd' ? footer.outcome : undefined, 'cancelled');
  });

  test('closes tool calls left open when the prompt response arrives (Hermes #50723)', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(toolCall('tc-1', { kind: 'edit' }));
    h.end('end_turn');
    assert.equal(tools(h.state.entries)[0]?.status, 'ended');
  });

  test('marks the prompt excluded on refusal', () => {
    const h = new SessionHarness();
    h.prompt('nope');
    h.end('refusal');
    const user = h.state.entries.find((e) => e.kind === 'user');
    assert.equal(user?.kind === 'user' ? user.excluded : undefined, true);
  });

  test('ignores a late completion of an older turn', () => {
    const h = new SessionHarness();
    h.prompt('one');
    h.end('end_turn');
    h.prompt('two');
    const before = h.state;
    h.end('end_turn', undefined, 1);
    assert.equal(h.state, before);
    assert.equal(h.state.phase, 'running');
  });

  test('shows the turn delta of cumulative usage', () => {
    const h = new SessionHarness({ cumulativePromptUsage: true, mergesCancelledPrompt: true, replaysOnResume: true });
    h.prompt('one');
    h.end('end_turn', { inputTokens: 1000, outputTokens: 234, totalTokens: 1234 });
    h.prompt('two');
    h.end('end_turn', { inputTokens: 3000, outputTokens: 702, totalTokens: 3702 });
    const footers = h.state.entries.filter((e) => e.kind === 'turnEnd');
    assert.deepEqual(
      footers.map((f) => (f.kind === 'turnEnd' ? f.usage?.totalTokens : undefined)),
      [1234, 2468],
    );
  });

  test('treats an error after cancel as the end of a cancelled turn, not a failure', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.apply({ type: 'cancelRequested', at: h.tick() });
    h.apply({ type: 'turnFailed', turnId: 1, id: nextId(), noticeId: nextId(), at: h.tick(), error: 'Request cancelled', title: 'The agent could not complete this turn.' });
    assert.equal(h.state.entries.some((e) => e.kind === 'notice'), false);
    const footer = h.state.entries.at(-1);
    assert.equal(footer?.kind === 'turnEnd' ? footer.outcome : undefined, 'cancelled');
  });

  test('an exit we asked for (Restart Agent) is a neutral line without crash actions; any other exit is an error', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.apply({ type: 'agentExited', id: nextId(), noticeId: 'n1', at: h.tick(), message: 'Restarting Hermes…', stderrTail: '', expected: true });
    const restart = h.state.entries.find((e) => e.id === 'n1');
    assert.deepEqual(restart?.kind === 'notice' ? [restart.level, restart.title, restart.actions] : undefined, ['info', 'Restarting Hermes…', []]);
    const footer = h.state.entries.filter((e) => e.kind === 'turnEnd').at(-1);
    assert.equal(footer?.kind === 'turnEnd' ? footer.outcome : undefined, 'interrupted', 'the running turn still ends interrupted');
    const crashed = new SessionHarness();
    crashed.apply({ type: 'agentExited', id: nextId(), noticeId: 'n2', at: crashed.tick(), message: 'The agent exited with code 1.', stderrTail: 'Traceback' });
    const crash = crashed.state.entries.find((e) => e.id === 'n2');
    assert.deepEqual(crash?.kind === 'notice' ? [crash.level, crash.log, crash.actions] : undefined, ['error', 'Traceback', ['restartAgent', 'showTraffic']]);
  });

  test('a notice can carry the user message a fresh start forks before', () => {
    const h = new SessionHarness();
    h.apply({ type: 'noticeAdded', id: 'n1', at: h.tick(), level: 'info', title: 'Hermes will send this message again with your next one.', forkFrom: 'u1' });
    const n = h.state.entries[0];
    assert.equal(n?.kind === 'notice' ? n.forkFrom : undefined, 'u1');
  });

  test('does not duplicate history that a load replays into a chat already showing it', () => {
    const h = new SessionHarness();
    h.prompt('hello');
    h.update(textChunk('hi!'));
    h.end();
    h.apply({ type: 'replayStarted' });
    h.update(textChunk('hello', 'user_message_chunk'));
    h.update(textChunk('hi!'));
    h.update(textChunk('second question', 'user_message_chunk'));
    h.update(textChunk('second answer'));
    h.apply({ type: 'replayEnded' });
    const kinds = h.state.entries.map((e) => e.kind);
    assert.deepEqual(kinds, ['user', 'assistant', 'turnEnd', 'user', 'assistant']);
    // Replaying the same history again (Hermes replays on resume too) adds nothing.
    const before = h.state.entries;
    h.apply({ type: 'replayStarted' });
    h.update(textChunk('hello', 'user_message_chunk'));
    h.update(textChunk('hi!'));
    h.update(textChunk('second question', 'user_message_chunk'));
    h.update(textChunk('second answer'));
    h.apply({ type: 'replayEnded' });
    assert.equal(h.state.entries, before);
  });

  test('renders the same transcript however the text was chunked', () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    const whole = new SessionHarness();
    whole.prompt('go');
    whole.update(textChunk(text));
    whole.end();
    const pieces = new SessionHarness();
    pieces.prompt('go');
    for (let i = 0; i < text.length; i += 7) {
      pieces.update(textChunk(text.slice(i, i + 7)));
    }
    pieces.end();
    assert.equal(toMarkdown(pieces.state), toMarkdown(whole.state));
  });

  test('returns the same state for a no-op and keeps untouched entries identical', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(toolCall('t1'));
    h.update(textChunk('a'));
    const before = h.state;
    const same = reduceSession(before, { type: 'updateReceived', id: nextId(), at: 1, update: textChunk('') });
    assert.equal(same, before);
    h.update(textChunk('b'));
    assert.equal(h.state.entries[0], before.entries[0]);
    assert.equal(h.state.entries[1], before.entries[1]);
    assert.notEqual(h.state.entries[2], before.entries[2]);
  });

  test('clears the title on session_info_update with null and keeps it when omitted', () => {
    const h = new SessionHarness();
    h.update({ sessionUpdate: 'session_info_update', title: 'First' });
    h.update({ sessionUpdate: 'session_info_update', updatedAt: '2026-01-01T00:00:00Z' });
    assert.equal(h.state.title, 'First');
    h.update({ sessionUpdate: 'session_info_update', title: null });
    assert.equal(h.state.title, undefined);
  });
});

suite('entry diff', () => {
  test('turns appends into inserts and in-place changes into replaces', () => {
    const h = new SessionHarness();
    h.prompt('go');
    const a = h.state.entries;
    h.update(textChunk('x'));
    const b = h.state.entries;
    assert.deepEqual(diffEntries(a, b).map((o) => [o.op, o.index]), [['insert', 1]]);
    h.update(textChunk('y'));
    assert.deepEqual(diffEntries(b, h.state.entries).map((o) => [o.op, o.index]), [['replace', 1]]);
    assert.deepEqual(diffEntries(h.state.entries, h.state.entries), []);
  });

  test('replaces the tail after a structural change', () => {
    const h = new SessionHarness();
    h.prompt('a');
    h.update(textChunk('x'));
    const prev = h.state.entries;
    const next = [prev[1], prev[0]].filter((e): e is Entry => e !== undefined);
    const ops = diffEntries(prev, next);
    assert.deepEqual(ops.map((o) => o.op), ['remove', 'insert', 'insert']);
  });
});

suite('session reducer: thoughts and usage', () => {
  test('ends a thought when a tool call or a new message follows it in another entry', () => {
    const h = new SessionHarness();
    h.prompt('go');
    h.update(textChunk('thinking', 'agent_thought_chunk', 'm1'));
    h.update(toolCall('t1'));
    const thought = assistants(h.state.entries)[0]?.parts[0];
    assert.equal(thought?.kind, 'thought');
    assert.equal(thought?.kind === 'thought' ? thought.endedAt : undefined, h.now);
    h.update(textChunk('more thinking', 'agent_thought_chunk', 'm2'));
    h.update(textChunk('answer', 'agent_message_chunk', 'm3'));
    const second = assistants(h.state.entries)[1]?.parts[0];
    assert.ok(second?.kind === 'thought' && second.endedAt !== undefined);
  });

  test('keeps the cumulative cost when a usage_update omits it', () => {
    const h = new SessionHarness();
    h.update({ sessionUpdate: 'usage_update', used: 10, size: 100, cost: { amount: 0.5, currency: 'USD' } });
    h.update({ sessionUpdate: 'usage_update', used: 20, size: 100 });
    assert.deepEqual(h.state.usage, { used: 20, size: 100, cost: { amount: 0.5, currency: 'USD' } });
  });
});
