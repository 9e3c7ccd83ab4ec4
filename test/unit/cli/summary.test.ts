import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, perTestDir, resultOf, runCli, scriptedAgent } from './cliHarness';

suite('hermes-acp-run --summary', function () {
  this.timeout(30_000);
  const work = perTestDir();

  test('the reply, every tool with its status, tokens, duration and the exit reason, from the same events as stdout', async () => {
    const file = path.join(work.path, 'summary.md');
    const r = await runCli(['-q', '[tools] [command cmd=rm -rf build] [plain]', '--format', 'stream-json', '--summary', file, '--', ...scriptedAgent], { cwd: work.path });
    assert.equal(r.code, 0, r.stderr);
    const evs = events(r);
    const result = resultOf(evs);
    const md = fs.readFileSync(file, 'utf8');
    const tools = evs.filter((e) => e.type === 'tool_result');
    assert.match(md, new RegExp(`#### Tools \\(${tools.length.toString()}\\)`));
    for (const t of tools) {
      assert.ok(md.includes(`| ${String(t.name)} | ${t.is_error === true ? '❌' : '✔'} ${String(t.status)} |`), `${String(t.name)} ${String(t.status)}`);
    }
    const tokens = result.tokens as { input: number; output: number; total: number };
    assert.ok(md.includes(`| tokens | ${tokens.input.toString()} in / ${tokens.output.toString()} out / ${tokens.total.toString()} total |`));
    assert.match(md, /\| duration \| \d+\.\d s \(turn \d+\.\d s\) \|/);
    assert.match(md, /\| exit reason \| completed \(end_turn\) \|/);
    assert.match(md, /#### Permissions\n\n- terminal: deny \(--permissions deny\)/);
    assert.ok(md.includes('> Hello from the scripted agent!'));
  });
});
