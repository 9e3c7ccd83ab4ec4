/**
 * Issue 38 — hermes-acp-run on recorded transcripts of the real agents, one prompt at a time through
 * the replay agent: opencode's, pi's and Cline's tools named as their source names them (not by
 * their ACP kind), Cline's `read_files {files: [{path}]}` read by the permission layer (allowed
 * under `allow`, a file outside the folder still denied), Hermes' edits that it never closes ended
 * `completed` when the file holds the change and `denied` when refused, and plans (Claude's
 * TodoWrite, Codex's update_plan, Hermes' todo) as `plan` events — every event validated against
 * schemas/stream-json.schema.json by cliHarness.events.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, perTestDir, ofType, replayAgent, resultOf, runCli, scriptedAgent, type Event } from './cliHarness';

suite('hermes-acp-run: the real agents recorded for issue 38', function () {
  this.timeout(30_000);
  const work = perTestDir();

  async function replay(fixture: string, prompt: number, extra: readonly string[] = [], agentExtra: readonly string[] = []): Promise<{ code: number | null; evs: Event[]; ws: string }> {
    const ws = path.join(work.path, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    const agent = replayAgent(fixture, work.path, [...agentExtra, '--prompt', String(prompt), '--stay']);
    const run = await runCli(['-q', `prompt ${prompt} of ${fixture}`, '--format', 'stream-json', '--cwd', ws, ...extra, '--', ...agent], { cwd: work.path });
    assert.doesNotMatch(run.stderr, /does not match the recording/, 'the runner followed the recorded request order');
    return { code: run.code, evs: events(run), ws };
  }

  const names = (evs: readonly Event[], type: string): string[] => ofType(evs, type).map((e) => String(e.name));

  suite('tool names, read where each agent puts them', () => {
    test("opencode's bash: the tool's name from the call's first announcement, not the kind `execute`", async () => {
      const { evs } = await replay('realAgents/opencode-bash.jsonl', 1, ['--permissions', 'allow']);
      assert.deepEqual(names(evs, 'tool_use'), ['bash']);
      assert.deepEqual(names(evs, 'permission'), ['bash'], 'the permission event names it the same way');
      assert.deepEqual(names(evs, 'tool_result'), ['bash']);
      assert.equal((ofType(evs, 'tool_use')[0]?.input as { command?: string }).command, 'echo rig-shell-ok > rig-shell-proof.txt');
    });

    test("opencode's todowrite: named todowrite, not `other`", async () => {
      const { evs } = await replay('realAgents/opencode-todowrite.jsonl', 1, ['--permissions', 'allow']);
      assert.deepEqual(names(evs, 'tool_use'), ['todowrite']);
      assert.deepEqual(ofType(evs, 'tool_result').map((r) => [r.name, r.status]), [['todowrite', 'completed']]);
    });

    test("pi's bash: named bash from its terminal _meta, its command (pi sends it only as the title) as input", async () => {
      const { evs } = await replay('realAgents/pi-bash.jsonl', 1);
      const use = ofType(evs, 'tool_use')[0];
      assert.deepEqual([use?.name, use?.kind, use?.input], ['bash', 'execute', { command: 'echo rig-shell-ok > rig-shell-proof.txt' }]);
      assert.deepEqual(names(evs, 'tool_result'), ['bash']);
    });

    test("pi's and opencode's read and edit keep their own names", async () => {
      assert.deepEqual(names((await replay('realAgents/pi-edit-deny.jsonl', 1)).evs, 'tool_use'), ['read', 'edit']);
      assert.deepEqual(names((await replay('realAgents/opencode-edit-allow.jsonl', 1, ['--permissions', 'allow'])).evs, 'tool_use'), ['read', 'edit']);
    });
  });

  suite("Cline's requests, read by the permission layer", () => {
    test('read_files {files: [{path}]} is allowed under --permissions allow, and the model then edits the file it read', async () => {
      const { code, evs } = await replay('realAgents/cline-read-edit.jsonl', 1, ['--permissions', 'allow']);
      assert.equal(code, 0);
      assert.deepEqual(
        ofType(evs, 'permission').map((p) => [p.name, p.option_kind, p.targets]),
        [
          ['read_files', 'allow_once', ['read rig-target.txt']],
          ['apply_patch', 'allow_once', ['write rig-target.txt']],
        ],
      );
      assert.deepEqual(ofType(evs, 'tool_result').map((r) => [r.name, r.status, r.is_error]), [['read_files', 'completed', false], ['apply_patch', 'completed', false]]);
    });

    test('the same read of a file outside the folder is still denied under --permissions allow', async () => {
      // The recording with its file moved out of the workspace (the replay agent rewrites the path).
      const outside = path.join(work.path, 'elsewhere', 'rig-target.txt');
      // --map applies after `<LAB>` became this run's folder.
      const { evs } = await replay('realAgents/cline-read-edit.jsonl', 1, ['--permissions', 'allow'], ['--map', `${path.join(work.path, 'ws', 'rig-target.txt')}=${outside}`]);
      const read = ofType(evs, 'permission')[0];
      assert.deepEqual([read?.name, read?.option_kind], ['read_files', 'reject_once']);
      assert.match(String(read?.rule), /outside the workspace/);
    });

    test('run_commands {commands: [string]}: each command is checked, not the title', async () => {
      const { evs } = await replay('realAgents/cline-shell.jsonl', 1, ['--permissions', 'allow']);
      const permission = ofType(evs, 'permission')[0];
      assert.deepEqual(permission?.targets, ['run echo rig-shell-ok (output redirected to rig-shell-proof.txt)', 'write rig-shell-proof.txt']);
      assert.equal(permission?.option_kind, 'reject_once', 'a redirection is never allowed by a rule');
      // (The recorded Cline ran it: it was recorded before this check read `commands`; the replay plays that.)
      assert.deepEqual(names(evs, 'tool_result'), ['run_commands']);
    });
  });

  suite("Hermes' edits it never closes (hermes/edits.jsonl)", () => {
    test('an allowed patch whose file holds the change ends completed; one whose file does not stays ended', async () => {
      const ws = path.join(work.path, 'ws');
      fs.mkdirSync(ws, { recursive: true });
      // edits.jsonl line 25: "hello.txt now: 'hello ACP\n'" (Hermes wrote it; the replay agent cannot).
      fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello ACP\n');
      const applied = await replay('hermes/edits.jsonl', 1, ['--permissions', 'allow']);
      const done = ofType(applied.evs, 'tool_result')[0];
      assert.deepEqual([done?.name, done?.status, done?.is_error], ['patch', 'completed', false]);
      assert.match(String(done?.output), /^applied: .*hello\.txt now holds the proposed change/);
      fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello world\n');
      const notApplied = await replay('hermes/edits.jsonl', 1, ['--permissions', 'allow']);
      assert.deepEqual(ofType(notApplied.evs, 'tool_result').map((r) => [r.status, r.is_error]), [['ended', false]]);
    });

    test('write_file of a new file, allowed and written: completed; refused: denied, not an error', async () => {
      const ws = path.join(work.path, 'ws');
      fs.mkdirSync(ws, { recursive: true });
      fs.writeFileSync(path.join(ws, 'notes.txt'), 'line one\nline two\n');
      const written = await replay('hermes/edits.jsonl', 2, ['--permissions', 'allow']);
      assert.deepEqual(ofType(written.evs, 'tool_result').map((r) => [r.name, r.status]), [['write_file', 'completed']]);
      const refused = await replay('hermes/edits.jsonl', 3);
      assert.deepEqual(ofType(refused.evs, 'tool_result').map((r) => [r.name, r.status, r.is_error]), [['write_file', 'denied', false]]);
      assert.equal(fs.existsSync(path.join(ws, 'denied.txt')), false);
    });
  });

  suite('plans in stream-json', () => {
    const cases = [
      ['Claude Agent ACP (TodoWrite)', 'agents/claude-main.jsonl', 2, ['--segment', '1'], ['Read hello.txt', 'Edit hello.txt']],
      ['Codex ACP (update_plan)', 'agents/codex-main.jsonl', 2, ['--segment', '1'], ['Read hello.txt', 'Edit hello.txt']],
      ['Hermes (todo)', 'hermes/main.jsonl', 6, [], ['Read the code', 'Write the patch', 'Run the tests']],
    ] as const;
    for (const [name, fixture, prompt, extra, contents] of cases) {
      test(`${name}: a plan event with each entry's content, status and priority, valid against the schema`, async () => {
        const { evs } = await replay(fixture, prompt, ['--permissions', 'allow'], extra);
        const plans = ofType(evs, 'plan');
        assert.ok(plans.length >= 1, 'at least one plan event');
        const last = plans.at(-1)?.entries as { content: string; status: string; priority: string }[];
        assert.deepEqual(last.map((e) => e.content), contents);
        for (const e of last) {
          assert.ok(['pending', 'in_progress', 'completed'].includes(e.status) && ['high', 'medium', 'low'].includes(e.priority), JSON.stringify(e));
        }
        const first = plans[0];
        assert.ok(first !== undefined && evs.indexOf(first) < evs.indexOf(resultOf(evs)), 'before the result');
      });
    }

    test('every change is one event, an unchanged plan none (the scripted agent ticks a plan off in four steps)', async () => {
      const run = await runCli(['-q', '[plan]', '--format', 'stream-json', '--', ...scriptedAgent], { cwd: work.path });
      const plans = ofType(events(run), 'plan').map((p) => (p.entries as { status: string }[]).map((e) => e.status).join(','));
      assert.deepEqual(plans, ['in_progress,pending,pending', 'completed,in_progress,pending', 'completed,completed,in_progress', 'completed,completed,completed']);
    });
  });
});

