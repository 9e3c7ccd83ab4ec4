/**
 * hermes-acp-run on recorded real transcripts (test/fixtures), one prompt at a time through the
 * replay agent (`--prompt N`): Hermes' guarded edits and commands, Claude's and Codex's tool
 * calls. Checks what phase A of issue 18 controls — each tool's own name, its input, `is_error` —
 * and that every event validates (cliHarness.events).
 *
 * Hermes asks about a guarded call under ids of its own (`edit-approval-N`, `perm-check-N`); the
 * reducer joins the request to the call it guards (slices/guardedCall.ts), so each real tool is
 * one `tool_use` and one `tool_result` under the announced `tc-…` id.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, perTestDir, ofType, replayAgent, resultOf, runCli, type Event } from './cliHarness';

interface Replay {
  readonly code: number | null;
  readonly evs: Event[];
  readonly lab: string;
}

/** One `tool_use` and one `tool_result` per call id, and every `permission` about a call that was used. */
function assertOnePerCall(evs: readonly Event[]): void {
  const uses = ofType(evs, 'tool_use').map((e) => String(e.tool_call_id));
  const results = ofType(evs, 'tool_result').map((e) => String(e.tool_call_id));
  assert.equal(new Set(uses).size, uses.length, `one tool_use per call: ${uses.join(', ')}`);
  assert.deepEqual([...results].sort(), [...uses].sort(), 'one tool_result per tool_use');
  for (const p of ofType(evs, 'permission')) {
    assert.ok(uses.includes(String(p.tool_call_id)), `the permission names a used call: ${JSON.stringify(p)}`);
  }
}

function one(list: readonly Event[], what: string): Event {
  const [first, ...rest] = list;
  assert.ok(first !== undefined && rest.length === 0, `exactly one ${what}: ${JSON.stringify(list)}`);
  return first;
}

/** Every tool event names the tool, not a sentence: no spaces, no paths. */
function assertToolNames(evs: readonly Event[]): void {
  for (const e of evs) {
    if (e.type === 'tool_use' || e.type === 'tool_result' || e.type === 'permission') {
      assert.match(String(e.name), /^[A-Za-z_][\w.-]*$/, JSON.stringify(e));
    }
  }
}

suite('hermes-acp-run: recorded transcripts, one prompt each', function () {
  this.timeout(30_000);
  const work = perTestDir();

  async function replay(fixture: string, prompt: number, extra: readonly string[] = [], segment?: number): Promise<Replay> {
    const ws = path.join(work.path, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    const agent = replayAgent(fixture, work.path, [...(segment !== undefined ? ['--segment', String(segment)] : []), '--prompt', String(prompt), '--stay']);
    const run = await runCli(['-q', `prompt ${prompt} of ${fixture}`, '--format', 'stream-json', '--cwd', ws, ...extra, '--', ...agent], { cwd: work.path });
    assert.doesNotMatch(run.stderr, /does not match the recording/, 'the runner followed the recorded request order');
    const evs = events(run);
    assertToolNames(evs);
    assertOnePerCall(evs);
    return { code: run.code, evs, lab: work.path };
  }

  suite('Hermes 0.19 (hermes/main.jsonl)', () => {
    test('patch with an edit approval (allowed): one patch call with the approval\'s arguments, not an error', async () => {
      const { code, evs, lab } = await replay('hermes/main.jsonl', 2, ['--permissions', 'allow']);
      assert.equal(code, 0);
      const file = `${lab}/ws/hello.txt`;
      const use = one(ofType(evs, 'tool_use'), 'tool_use');
      assert.deepEqual([use.tool_call_id, use.name, use.title, use.kind], ['tc-1a4c6a93238b', 'patch', `patch (replace): ${file}`, 'edit']);
      assert.deepEqual(use.input, { mode: 'replace', path: file, old_string: 'world', new_string: 'ACP' });
      const permission = one(ofType(evs, 'permission'), 'permission');
      assert.deepEqual([permission.tool_call_id, permission.name, permission.optionId], ['tc-1a4c6a93238b', 'patch', 'allow_once']);
      // Hermes 0.19 never completes patch (#50723): the turn ended normally, so no error.
      const result = one(ofType(evs, 'tool_result'), 'tool_result');
      assert.deepEqual([result.tool_call_id, result.name, result.status, result.is_error], ['tc-1a4c6a93238b', 'patch', 'ended', false]);
      assert.equal(resultOf(evs).text, '\n\nI replaced `world` with `ACP`.');
      // Hermes' usage is cumulative; for a one-prompt run the session's first report is the turn's.
      assert.deepEqual(resultOf(evs).tokens, { input: 3702, output: 168, total: 3870, cache_read: 0, cache_write: 0 });
    });

    test('write_file denied: one write_file call, denied (not an error) with the denial as output', async () => {
      const { evs, lab } = await replay('hermes/main.jsonl', 3);
      const use = one(ofType(evs, 'tool_use'), 'tool_use');
      assert.deepEqual([use.tool_call_id, use.name, use.input], ['tc-36aa4ebed71f', 'write_file', { path: `${lab}/ws/new.txt`, content: 'line one\nline two\n' }]);
      const result = one(ofType(evs, 'tool_result'), 'tool_result');
      assert.deepEqual([result.tool_call_id, result.name, result.status, result.is_error, result.output], ['tc-36aa4ebed71f', 'write_file', 'denied', false, 'permission denied: --permissions deny']);
      assert.equal(one(ofType(evs, 'permission'), 'permission').rule, '--permissions deny');
    });

    test('a dangerous command allowed: one terminal call, the command as input, the agent\'s completion not an error', async () => {
      const { evs, lab } = await replay('hermes/main.jsonl', 4, ['--permissions', 'allow']);
      const use = one(ofType(evs, 'tool_use'), 'tool_use');
      assert.deepEqual([use.tool_call_id, use.name, use.input], ['tc-77d3dc272c14', 'terminal', { command: `rm -r ${lab}/ws/scratch`, description: 'delete in root path' }]);
      const ran = one(ofType(evs, 'tool_result'), 'tool_result');
      assert.deepEqual([ran.tool_call_id, ran.name, ran.status, ran.is_error], ['tc-77d3dc272c14', 'terminal', 'completed', false]);
      assert.match(String(ran.output), /exit_code:\*\* 0/);
    });

    test('a dangerous command denied: one terminal call, failed with Hermes\' own block message', async () => {
      const { evs } = await replay('hermes/main.jsonl', 5);
      one(ofType(evs, 'tool_use'), 'tool_use');
      const blocked = one(ofType(evs, 'tool_result'), 'tool_result');
      assert.deepEqual([blocked.tool_call_id, blocked.name, blocked.status, blocked.is_error], ['tc-811f91fb05fb', 'terminal', 'denied', false]);
      assert.match(String(blocked.output), /BLOCKED: User denied this command/);
      const permission = one(ofType(evs, 'permission'), 'permission');
      assert.deepEqual([permission.tool_call_id, permission.option_kind], ['tc-811f91fb05fb', 'reject_once']);
    });

    test('todo: named todo, completed', async () => {
      const { code, evs } = await replay('hermes/main.jsonl', 6);
      assert.equal(code, 0);
      const r = one(ofType(evs, 'tool_result'), 'todo');
      assert.deepEqual([r.name, r.status, r.is_error], ['todo', 'completed', false]);
    });

    test('HTTP 500 reported as the answer: exit 75, no usage', async () => {
      const { code, evs } = await replay('hermes/main.jsonl', 13);
      assert.equal(code, 75);
      const result = resultOf(evs);
      assert.equal(result.error, 'API call failed after 3 retries: HTTP 500: Fake upstream exploded');
      assert.equal(result.tokens_reported, false);
    });
  });

  suite('Claude Agent ACP 0.23.1 (agents/claude-main.jsonl)', () => {
    test('Read then Edit: names from _meta.claudeCode.toolName, inputs from the later update, the permission on the same call', async () => {
      const { code, evs } = await replay('agents/claude-main.jsonl', 3, ['--permissions', 'allow'], 1);
      assert.equal(code, 0);
      const uses = ofType(evs, 'tool_use');
      assert.deepEqual(uses.map((u) => u.name), ['Read', 'Edit']);
      assert.deepEqual(uses[0]?.input, { file_path: '/tmp/ws/claude/hello.txt' });
      assert.equal(uses[0]?.title, 'Read hello.txt', 'the title when the arguments arrived, not the first "Read File"');
      assert.deepEqual(uses[1]?.input, { replace_all: false, file_path: '/tmp/ws/claude/hello.txt', old_string: 'Hello world', new_string: 'Hello ACP' });
      const permission = one(ofType(evs, 'permission'), 'permission');
      assert.deepEqual([permission.tool_call_id, permission.name, permission.title], [uses[1]?.tool_call_id, 'Edit', 'Edit hello.txt']);
      assert.deepEqual(ofType(evs, 'tool_result').map((r) => [r.name, r.status, r.is_error]), [['Read', 'completed', false], ['Edit', 'completed', false]]);
      assert.deepEqual(resultOf(evs).tokens, { input: 300, output: 60, total: 360, cache_read: 0, cache_write: 0 });
    });

    test('Bash: the command as input, the _meta terminal output as output', async () => {
      const { evs } = await replay('agents/claude-main.jsonl', 4, ['--permissions', 'allow'], 1);
      const use = one(ofType(evs, 'tool_use'), 'Bash');
      assert.deepEqual([use.name, (use.input as { command?: string }).command], ['Bash', 'touch created-by-shell.txt && echo created']);
      const res = one(ofType(evs, 'tool_result'), 'Bash result');
      assert.deepEqual([res.status, res.is_error, res.output], ['completed', false, 'created']);
    });

    test('Write denied: the agent got the reject option, the call still named Write', async () => {
      const { evs } = await replay('agents/claude-main.jsonl', 5, [], 1);
      assert.deepEqual([one(ofType(evs, 'permission'), 'permission').optionId, one(ofType(evs, 'tool_use'), 'Write').name], ['reject', 'Write']);
    });
  });

  suite('Codex ACP 0.16.0 (agents/codex-main.jsonl)', () => {
    test('a read through exec and an apply_patch edit: named from the arguments\' shape, inputs as sent, no usage', async () => {
      const { code, evs } = await replay('agents/codex-main.jsonl', 3, ['--permissions', 'allow'], 1);
      assert.equal(code, 0);
      const uses = ofType(evs, 'tool_use');
      assert.deepEqual(uses.map((u) => [u.name, u.kind]), [['exec_command', 'read'], ['apply_patch', 'edit']]);
      assert.deepEqual((uses[0]?.input as { command?: unknown }).command, ['/bin/bash', '-lc', "cat '/tmp/ws/codex/hello.txt'"]);
      assert.deepEqual(ofType(evs, 'tool_result').map((r) => [r.name, r.status, r.is_error]), [['exec_command', 'completed', false], ['apply_patch', 'completed', false]]);
      assert.equal(resultOf(evs).tokens_reported, false);
      assert.deepEqual(evs[0]?.agent, { name: 'codex-acp', title: 'Codex', version: '0.16.0' });
    });

    test('exec asked about before it is announced: one call named exec_command; its cwd outside the workspace is refused even under allow', async () => {
      const { evs } = await replay('agents/codex-main.jsonl', 4, ['--permissions', 'allow'], 1);
      const use = one(ofType(evs, 'tool_use'), 'exec');
      const permission = one(ofType(evs, 'permission'), 'permission');
      assert.ok(evs.indexOf(use) < evs.indexOf(permission));
      assert.deepEqual([use.name, permission.name, permission.tool_call_id], ['exec_command', 'exec_command', use.tool_call_id]);
      // The recorded command runs in /tmp/ws/codex, not in this run's workspace: the permission
      // layer judges the request's own targets, whatever call it joins.
      assert.deepEqual([permission.optionId, permission.option_kind], ['abort', 'reject_once']);
      assert.match(String(permission.rule), /\/tmp\/ws\/codex is outside the workspace folders/);
      // Codex itself reports the call completed (its completion carries the proposal text).
      assert.equal(one(ofType(evs, 'tool_result'), 'exec result').status, 'completed');
    });
  });
});
