/**
 * hermes-acp-run against the agent shapes seen in the wild (reference/agents-in-the-wild.md),
 * played by the scripted agent: tokens only in `_meta` (Qwen Code, Gemini CLI — the agent
 * impersonates their `agentInfo.name`, so their profiles apply), arguments that arrive after the
 * call (Claude), an agent that edits without asking (pi), and an auto-approving start mode (Qwen).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, perTestDir, ofType, resultOf, runCli, scriptedAgent, type Event } from './cliHarness';

function oneShot(query: string, extra: readonly string[] = []): string[] {
  return ['-q', query, '--format', 'stream-json', ...extra, '--', ...scriptedAgent];
}

function only(list: readonly Event[], what: string): Event {
  const [first, ...rest] = list;
  assert.ok(first !== undefined && rest.length === 0, `exactly one ${what}: ${JSON.stringify(list)}`);
  return first;
}

suite('hermes-acp-run: agent shapes', function () {
  this.timeout(30_000);
  const work = perTestDir();

  suite('tokens only in _meta', () => {
    const forms = [
      ['Qwen Code: _meta.usage on message chunks, one per model call, summed; _meta survives our session/update fast path', 'qwen', 'qwen-code', 20],
      ['Gemini CLI: _meta.quota.token_count of the prompt response', 'gemini', 'gemini-cli', 0],
    ] as const;
    for (const [title, form, agentName, cacheRead] of forms) {
      test(title, async () => {
        const run = await runCli(oneShot(`[meta-usage form=${form} input=1200 output=80 calls=2]`), { cwd: work.path, env: { SCRIPTED_AGENT_INFO_NAME: agentName } });
        assert.equal(run.code, 0, run.stderr);
        const result = resultOf(events(run));
        assert.deepEqual(result.tokens, { input: 2400, output: 160, total: 2560, cache_read: cacheRead, cache_write: 0 });
        assert.equal(result.tokens_reported, true);
      });
    }

    test('an agent whose profile says where its tokens are does not read them elsewhere (pi reports none)', async () => {
      const run = await runCli(oneShot('[meta-usage form=qwen]'), { cwd: work.path, env: { SCRIPTED_AGENT_INFO_NAME: 'pi-acp' } });
      const result = resultOf(events(run));
      assert.equal(result.tokens_reported, false);
      assert.equal((result.tokens as { total: number }).total, 0);
    });
  });

  suite('input arriving in a later update (Claude)', () => {
    test('tool_use waits for the arguments: one event, the real input, the current title, the tool\'s name', async () => {
      const run = await runCli(oneShot('[late-input path=late.txt]'), { cwd: work.path });
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      const use = only(ofType(evs, 'tool_use'), 'tool_use');
      assert.equal(use.name, 'write_file');
      assert.equal(use.title, `Write ${path.join(work.path, 'late.txt')}`);
      assert.deepEqual(use.input, { file_path: path.join(work.path, 'late.txt'), content: 'written after the arguments arrived\n' });
      const res = only(ofType(evs, 'tool_result'), 'tool_result');
      assert.deepEqual([res.name, res.status, res.is_error], ['write_file', 'completed', false]);
    });

    test('with a permission request on the same call: tool_use first, and the permission names the call the same way', async () => {
      const run = await runCli(oneShot('[late-input path=asked.txt ask=yes]', ['--permissions', 'allow']), { cwd: work.path });
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      const use = only(ofType(evs, 'tool_use'), 'tool_use');
      const permission = only(ofType(evs, 'permission'), 'permission');
      assert.ok(evs.indexOf(use) < evs.indexOf(permission));
      assert.deepEqual([permission.name, permission.title, permission.optionId], [use.name, use.title, 'allow']);
      assert.ok(fs.existsSync(path.join(work.path, 'asked.txt')));
    });

    test('denied: the call is denied (not an error) with the denial as its output unless the agent says more', async () => {
      const run = await runCli(oneShot('[late-input path=denied.txt ask=yes]'), { cwd: work.path });
      const evs = events(run);
      const res = only(ofType(evs, 'tool_result'), 'tool_result');
      assert.deepEqual([res.status, res.is_error, res.output], ['denied', false, 'The user rejected the write.']);
      assert.equal(fs.existsSync(path.join(work.path, 'denied.txt')), false);
    });
  });

  suite('a policy that cannot hold', () => {
    test('an agent without modes that edits without asking: permissions_enforced false and a warning', async () => {
      const run = await runCli(oneShot('[silent-edit path=s.txt]'), { cwd: work.path, env: { SCRIPTED_AGENT_MODES: 'none' } });
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      assert.equal(resultOf(evs).permissions_enforced, false);
      assert.equal(evs[0]?.mode, '');
      assert.match(run.stderr, /warning: the agent edited or ran something without asking for permission.*--permissions deny was not enforced/);
      assert.ok(fs.existsSync(path.join(work.path, 's.txt')), 'the agent really wrote it');
    });

    test('pi never asks, whatever its modes: the same for a command', async () => {
      const run = await runCli(oneShot('[silent-command cmd=rm -rf build]'), { cwd: work.path, env: { SCRIPTED_AGENT_INFO_NAME: 'pi-acp' } });
      assert.equal(resultOf(events(run)).permissions_enforced, false);
    });

    test('the same turn is enforced under --permissions allow, and when the agent asked', async () => {
      const allowed = await runCli(oneShot('[silent-edit path=a.txt]', ['--permissions', 'allow']), { cwd: work.path, env: { SCRIPTED_AGENT_MODES: 'none' } });
      assert.equal(resultOf(events(allowed)).permissions_enforced, true);
      assert.doesNotMatch(allowed.stderr, /was not enforced/);
      const asked = await runCli(oneShot('[command cmd=rm -r build] [silent-edit path=b.txt]'), { cwd: work.path, env: { SCRIPTED_AGENT_MODES: 'none' } });
      assert.equal(resultOf(events(asked)).permissions_enforced, true);
    });

    test('an auto-approving start mode is switched to the asking one under deny: the edit is asked about and denied', async () => {
      const run = await runCli(oneShot('[edit path=guarded.txt]'), { cwd: work.path, env: { SCRIPTED_AGENT_MODES: 'auto-first' } });
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      assert.equal(evs[0]?.mode, 'default');
      assert.match(run.stderr, /switched the session mode from "auto" to "default" \(mode "auto" does not ask before edits and commands/);
      assert.equal(only(ofType(evs, 'permission'), 'permission').optionId, 'deny');
      assert.equal(resultOf(evs).permissions_enforced, true);
      assert.equal(fs.existsSync(path.join(work.path, 'guarded.txt')), false);
    });

    test('the same through a config option of category mode', async () => {
      const run = await runCli(oneShot('[edit path=guarded.txt]'), { cwd: work.path, env: { SCRIPTED_AGENT_MODES: 'auto-first', SCRIPTED_AGENT_CONFIG_OPTIONS: '1' } });
      const evs = events(run);
      assert.equal(evs[0]?.mode, 'default');
      assert.match(run.stderr, /session\/set_config_option sess-\S+ mode="default"/);
      assert.equal(only(ofType(evs, 'permission'), 'permission').optionId, 'deny');
    });

    test('allow keeps the agent\'s mode; --mode picks one (an auto one is then reported as not enforced); an unknown --mode fails', async () => {
      const allowed = await runCli(oneShot('[edit path=free.txt]', ['--permissions', 'allow']), { cwd: work.path, env: { SCRIPTED_AGENT_MODES: 'auto-first' } });
      const evs = events(allowed);
      assert.equal(evs[0]?.mode, 'auto');
      assert.equal(ofType(evs, 'permission').length, 0);
      assert.ok(fs.existsSync(path.join(work.path, 'free.txt')));

      const yolo = await runCli(oneShot('[silent-edit path=y.txt]', ['--mode', 'yolo']), { cwd: work.path, env: { SCRIPTED_AGENT_MODES: 'auto-first' } });
      const yevs = events(yolo);
      assert.equal(yevs[0]?.mode, 'yolo');
      assert.equal(resultOf(yevs).permissions_enforced, false);

      const unknown = await runCli(oneShot('[plain]', ['--mode', 'turbo']), { cwd: work.path });
      assert.equal(unknown.code, 1);
      const result = resultOf(events(unknown));
      assert.match(String(result.error), /--mode turbo: the agent offers "default", "accept_edits", "dont_ask"/);
      assert.equal(result.turn_duration_ms, null, 'no prompt was sent');
    });
  });
});
