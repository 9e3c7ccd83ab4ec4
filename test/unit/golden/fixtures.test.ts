import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { replayAgentCommand, startStack, tempWorkspace } from '../../support/agentStack';
import { driveFixture, goldenTranscript, readFixture, segments } from '../../support/fixtureDriver';
import { fixturesDir } from '../../support/paths';

/**
 * Golden tests: each recorded real transcript, replayed by the replay agent process and driven
 * through the real client core (framing, SDK connection, reducer), must produce the checked-in
 * Markdown transcript. Regenerate with UPDATE_GOLDEN=1 and review the diff.
 */
const fixtures = [
  'hermes/main',
  'hermes/load',
  'hermes/nocreds',
  'hermes/ratelimit',
  'agents/claude-main',
  'agents/claude-cancel-error',
  'agents/codex-main',
  'agents/codex-cancel-error',
  'agents/sdk-example-agent',
];

suite('golden transcripts from recorded real agents', function () {
  this.timeout(60_000);

  for (const name of fixtures) {
    test(`${name} replays to the reviewed transcript`, async () => {
      const file = path.join(fixturesDir, `${name}.jsonl`);
      const lab = tempWorkspace('hermes-lab-');
      const parts: string[] = [];
      const segs = segments(readFixture(file, lab));
      for (let i = 0; i < segs.length; i++) {
        const seg = segs[i] ?? [];
        const stack = await startStack(replayAgentCommand(lab, file, ['--stay', ...(segs.length > 1 ? ['--segment', String(i + 1)] : [])]));
        try {
          const controllers = await driveFixture(stack, seg);
          // Some updates come after the last response (Hermes sends the title late): wait for every
          // recorded agent frame to have arrived before reading the transcript.
          const expected = seg.filter((f) => f.dir === 'a2c').length;
          const deadline = Date.now() + 5000;
          while (stack.log.snapshot().filter((e) => e.dir === 'in').length < expected && Date.now() < deadline) {
            await new Promise((r) => setTimeout(r, 10));
          }
          if (segs.length > 1) {
            parts.push(`<!-- agent process ${i + 1} -->`, '');
          }
          parts.push(goldenTranscript(controllers));
          for (const c of controllers.values()) {
            assert.notEqual(c.state.phase, 'running', 'no turn is left running');
            for (const e of c.state.entries) {
              if (e.kind === 'tool') {
                assert.ok(!['pending', 'in_progress'].includes(e.status) || c.state.turn !== undefined, `tool ${e.toolCallId} left ${e.status}`);
                assert.notEqual(e.permission?.status, 'pending', `permission on ${e.toolCallId} left pending`);
              }
            }
          }
        } finally {
          await stack.dispose();
        }
      }
      const actual = parts.join('\n').replaceAll(lab, '<LAB>');
      const goldenFile = path.join(fixturesDir, 'golden', `${name.replace('/', '-')}.md`);
      if (process.env.UPDATE_GOLDEN === '1' || !fs.existsSync(goldenFile)) {
        fs.writeFileSync(goldenFile, actual);
      }
      assert.equal(actual, fs.readFileSync(goldenFile, 'utf8'));
    });
  }
});
