import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../support/paths';
import { cliPath, perTestDir, scriptedAgent } from './cliHarness';

/** The `run:` script of the README's "Ask the agent" step ("In CI"), dedented, exactly as written there. */
function readmeStep(): string {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const block = /<!-- ci-recipe:[^>]*-->\n```yaml\n([\s\S]*?)\n```/.exec(readme)?.[1];
  assert.ok(block !== undefined, 'README.md has the ci-recipe block');
  const lines = block.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'run: |');
  assert.ok(start > 0, 'the step has a run: | script');
  const indent = /^\s*/.exec(lines[start + 1] ?? '')?.[0].length ?? 0;
  const body: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.trim() !== '' && (/^\s*/.exec(l)?.[0].length ?? 0) < indent) {
      break;
    }
    body.push(l.slice(indent));
  }
  return body.join('\n');
}

suite('hermes-acp-run: the README\'s CI recipe, run locally', function () {
  this.timeout(60_000);
  const work = perTestDir();

  function runStep(agentEnv: Record<string, string>): { code: number | null; stdout: string; summary: string; events: string } {
    const bin = path.join(work.path, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'hermes-acp-run'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`, { mode: 0o755 });
    const summaryFile = path.join(work.path, 'step-summary.md');
    const r = spawnSync('bash', ['-e', '-c', readmeStep()], {
      cwd: work.path,
      encoding: 'utf8',
      timeout: 50_000,
      env: {
        ...process.env,
        ...agentEnv,
        PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
        AGENT: 'scripted',
        AGENT_COMMAND: scriptedAgent.join(' '),
        AGENT_FLAGS: '',
        GITHUB_STEP_SUMMARY: summaryFile,
        XDG_STATE_HOME: path.join(work.path, 'state'),
      },
    });
    const read = (f: string): string => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '');
    return { code: r.status, stdout: `${r.stdout}${r.stderr}`, summary: read(summaryFile), events: read(path.join(work.path, 'events-scripted.jsonl')) };
  }

  test('a completed turn: the step passes, the events file is kept and the summary appended', () => {
    const r = runStep({});
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.summary, /^### ✅ Scripted test agent 1\.0\.0: exit 0$/m);
    assert.match(r.summary, /\| exit reason \| completed \(end_turn\) \|/);
    assert.match(r.summary, /\| tokens \| \d+ in \/ \d+ out \/ \d+ total \|/);
    assert.match(r.summary, /> You said: Summarize this repository in three sentences/);
    assert.equal((JSON.parse(r.events.trim().split('\n').pop() ?? '{}') as { type?: string }).type, 'result');
  });

  test('an agent that cannot start a session: the step fails with the ::error:: line, the summary says why', () => {
    const r = runStep({ SCRIPTED_AGENT_NO_PROVIDER: '1' });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /::error::scripted: the turn did not complete \(exit 1\): .*No LLM provider configured/);
    assert.match(r.summary, /^### ❌ Scripted test agent 1\.0\.0: exit 1$/m);
    assert.match(r.summary, /\| exit reason \| failed: .*No LLM provider configured/);
  });
});
