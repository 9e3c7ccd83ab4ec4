/**
 * Tool names per agent (src/session/agentProfiles.ts) on every recorded transcript in
 * test/fixtures: every prompt of every file, replayed through the replay agent and the real
 * runner. Each call is named by the tool (never its sentence) and named the same way in its
 * `tool_use`, `permission` and `tool_result`. (hermes/nocreds.jsonl has no prompt; hermes/load.jsonl
 * only loads sessions: neither is a one-shot run.)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readFixture } from '../../agents/fixtureFile';
import { fixturesDir } from '../../support/paths';
import { events, perTestDir, replayAgent, resultOf, runCli, type Event } from './cliHarness';

interface FixtureCase {
  readonly file: string;
  /** The agent process whose prompts are replayed (claude/codex-main: the second one only loads). */
  readonly segment?: number;
  /** Every tool name the runner must report for the file's prompts, in order of appearance. */
  readonly names: readonly string[];
}

const cases: readonly FixtureCase[] = [
  { file: 'hermes/main.jsonl', names: ['patch', 'write_file', 'terminal', 'todo'] },
  { file: 'hermes/ratelimit.jsonl', names: [] },
  { file: 'agents/claude-main.jsonl', segment: 1, names: ['Read', 'Edit', 'Bash', 'Write'] },
  { file: 'agents/claude-cancel-error.jsonl', names: [] },
  { file: 'agents/codex-main.jsonl', segment: 1, names: ['exec_command', 'apply_patch'] },
  { file: 'agents/codex-cancel-error.jsonl', names: [] },
  { file: 'agents/sdk-example-agent.jsonl', names: ['read', 'edit'] },
  // The npm agents the rig recorded (test/realAgents): opencode and pi announce a call by its tool's
  // name; pi's bash by its terminal `_meta`; Cline's titles are `<tool>: {…}`.
  { file: 'realAgents/opencode-edit-allow.jsonl', names: ['read', 'edit'] },
  { file: 'realAgents/opencode-bash.jsonl', names: ['bash'] },
  { file: 'realAgents/opencode-todowrite.jsonl', names: ['todowrite'] },
  { file: 'realAgents/pi-edit-deny.jsonl', names: ['read', 'edit'] },
  { file: 'realAgents/pi-bash.jsonl', names: ['bash'] },
  { file: 'realAgents/cline-read-edit.jsonl', names: ['read_files', 'apply_patch'] },
  { file: 'realAgents/cline-shell.jsonl', names: ['run_commands'] },
  { file: 'hermes/edits.jsonl', names: ['patch', 'write_file'] },
];

function promptCount(file: string): number {
  return readFixture(path.join(fixturesDir, file)).filter((e) => e.type === 'frame' && e.from === 'client' && e.method === 'session/prompt').length;
}

/** Names per call id must agree across the call's events; returns the names in order of first use. */
function namesOf(evs: readonly Event[]): string[] {
  const byCall = new Map<unknown, string>();
  const order: string[] = [];
  for (const e of evs) {
    if (e.type !== 'tool_use' && e.type !== 'permission' && e.type !== 'tool_result') {
      continue;
    }
    const name = String(e.name);
    assert.match(name, /^[A-Za-z_][\w.-]*$/, `a tool's name, not a sentence: ${JSON.stringify(e)}`);
    // The title only when it is the tool's name itself (opencode and pi announce a call so), never a sentence.
    assert.ok(name !== e.title || /^[A-Za-z_][\w.-]*$/.test(String(e.title)), JSON.stringify(e));
    const seen = byCall.get(e.tool_call_id);
    if (seen === undefined) {
      byCall.set(e.tool_call_id, name);
      order.push(name);
    } else {
      assert.equal(name, seen, `one name per call: ${JSON.stringify(e)}`);
    }
  }
  return order;
}

suite('hermes-acp-run: tool names on every recorded transcript', function () {
  this.timeout(180_000);
  const work = perTestDir();

  for (const c of cases) {
    test(`${c.file}: every prompt`, async () => {
      const ws = path.join(work.path, 'ws');
      fs.mkdirSync(ws, { recursive: true });
      const seen: string[] = [];
      const prompts = promptCount(c.file);
      assert.ok(prompts > 0);
      for (let n = 1; n <= prompts; n++) {
        const extra = [...(c.segment !== undefined ? ['--segment', String(c.segment)] : []), '--prompt', String(n), '--stay'];
        const run = await runCli(['-q', `prompt ${n}`, '--format', 'stream-json', '--cwd', ws, '--permissions', 'allow', '--', ...replayAgent(c.file, work.path, extra)], { cwd: work.path, timeoutMs: 30_000 });
        assert.doesNotMatch(run.stderr, /does not match the recording/, `${c.file} prompt ${n}`);
        const evs = events(run);
        assert.equal(resultOf(evs).exit_code, run.code);
        for (const name of namesOf(evs)) {
          if (!seen.includes(name)) {
            seen.push(name);
          }
        }
      }
      assert.deepEqual(seen, c.names);
    });
  }
});
