/**
 * Sessions across runs (issue 41) with the real Hermes v0.19.0 of the lab over ACP: a run named
 * with `--name`, then `--continue` and `--resume NAME` reach the same session id, and the model
 * request of each later turn carries the earlier turns (Hermes remembers them: the lab's model
 * server records the conversation it was sent). Every run is a new `hermes acp` process on one
 * HERMES_HOME. Run by `npm run test:hermes`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, resultOf, runCli, tempDir, type CliRun, type Event } from '../unit/cli/cliHarness';
import { labScope } from './tier';

suite('lab tier: hermes-acp-run sessions across runs (ACP)', function () {
  this.timeout(240_000);
  const scope = labScope('runner-sessions');
  let home = '';
  let state = '';

  setup(() => {
    home = scope.run.home();
    state = tempDir('hermes-lab-xdg-');
  });
  teardown(() => fs.rmSync(state, { recursive: true, force: true }));

  const hermes = (): string => path.join(scope.run.lab, 'bin', 'hermes');

  function run(query: string, extra: readonly string[]): Promise<CliRun> {
    return runCli(['-q', query, '--format', 'stream-json', '--cwd', scope.ws, ...extra, '--', hermes(), 'acp'], {
      cwd: scope.ws,
      timeoutMs: 180_000,
      env: { HERMES_HOME: home, HERMES_DISABLE_LAZY_INSTALLS: '1', XDG_STATE_HOME: state, ...scope.marker },
    });
  }

  function ok(r: CliRun): { evs: Event[]; id: string } {
    assert.equal(r.code, 0, r.stderr);
    const evs = events(r);
    const result = resultOf(evs);
    assert.equal(evs[0]?.session_id, result.session_id, 'system and result carry the same session id');
    assert.equal(String(result.text).trim(), 'Hello from the fake model!');
    return { evs, id: String(result.session_id) };
  }

  /** The conversation Hermes sent the model for the turn whose prompt contains `prompt`. */
  function sent(prompt: string): readonly string[] {
    const request = [...scope.run.model.requests].reverse().find((r) => r.user.includes(prompt));
    assert.ok(request !== undefined, `no model request for "${prompt}": ${scope.run.model.requests.map((r) => r.user).join(' | ')}`);
    return request.conversation;
  }

  test('--name, then --continue and --resume NAME: the same session id, and Hermes sends the earlier turns to the model', async () => {
    const first = ok(await run('[plain] Remember the word PAPAYA.', ['--name', 'lab-fruit']));
    assert.ok(first.id !== '');
    assert.equal(sent('Remember the word PAPAYA').filter((m) => m.startsWith('user: ')).length, 1, 'a new session starts empty');

    const traffic = path.join(scope.ws, 'traffic.jsonl');
    const second = ok(await run('[plain] Which word was it?', ['--continue', '--traffic-log', traffic]));
    assert.equal(second.id, first.id, '--continue reaches the named session');
    const methods = fs.readFileSync(traffic, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { msg?: { method?: string } }).msg?.method);
    // Hermes 0.19 offers sessionCapabilities.resume (and replays the history on it, as on a load).
    assert.ok(methods.includes('session/resume'), `reopened with session/resume: ${methods.filter((m) => m !== undefined).join(', ')}`);
    assert.ok(!methods.includes('session/new'), 'no new session');
    assert.deepEqual(second.evs.map((e) => e.type).filter((t) => t !== 'text'), ['system', 'result'], 'the earlier turn is not printed again');
    const printed = second.evs.filter((e) => e.type === 'text').map((e) => String(e.text)).join('');
    assert.equal(printed.trim(), 'Hello from the fake model!', 'only the new reply is printed, not the replayed history');
    const continued = sent('Which word was it?');
    assert.ok(continued.some((m) => m.startsWith('user: ') && m.includes('Remember the word PAPAYA.')), `the first turn is in the request: ${continued.join(' | ')}`);
    assert.ok(continued.some((m) => m.startsWith('assistant: ') && m.includes('Hello from the fake model!')), 'and the reply to it');

    const plain = ok(await run('[plain] A fresh start.', []));
    assert.notEqual(plain.id, first.id, 'a run without the flags starts a new session');

    const third = ok(await run('[plain] And the word again?', ['--resume', 'lab-fruit']));
    assert.equal(third.id, first.id, '--resume NAME reaches it after another session was used');
    const resumed = sent('And the word again?');
    const users = resumed.filter((m) => m.startsWith('user: '));
    assert.ok(users.some((m) => m.includes('Remember the word PAPAYA.')) && users.some((m) => m.includes('Which word was it?')), `both earlier turns: ${resumed.join(' | ')}`);
    assert.ok(!users.some((m) => m.includes('A fresh start.')), 'not the other session');

    const byId = ok(await run('[plain] By id now.', ['--resume', first.id]));
    assert.equal(byId.id, first.id);

    const listed = await runCli(['sessions', 'list', '--format', 'stream-json', '--cwd', scope.ws, '--', hermes(), 'acp'], {
      cwd: scope.ws,
      timeoutMs: 120_000,
      env: { HERMES_HOME: home, HERMES_DISABLE_LAZY_INSTALLS: '1', XDG_STATE_HOME: state, ...scope.marker },
    });
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { session_id: string; name: string | null; listed_by_agent: boolean | null });
    const named = lines.find((l) => l.session_id === first.id);
    assert.deepEqual([named?.name, named?.listed_by_agent], ['lab-fruit', true], JSON.stringify(lines));
  });

  test('--agent hermes is the lab\'s `hermes acp` found on PATH (no registry read), Hermes\' flags included', async () => {
    const r = await runCli(['-q', '[plain] Say hello.', '--format', 'stream-json', '--cwd', scope.ws, '--agent', 'hermes', '--ignore-rules'], {
      cwd: scope.ws,
      timeoutMs: 180_000,
      env: {
        HERMES_HOME: home,
        HERMES_DISABLE_LAZY_INSTALLS: '1',
        XDG_STATE_HOME: state,
        PATH: `${path.join(scope.run.lab, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
        // A registry that cannot be reached: --agent hermes must not need it.
        HERMES_ACP_REGISTRY_URL: 'http://127.0.0.1:9/registry.json',
        ...scope.marker,
      },
    });
    const { evs } = ok(r);
    assert.equal((evs[0]?.agent as { version?: string } | undefined)?.version, '0.19.0');
    assert.ok(!/ACP Registry|registry\.json/.test(r.stderr), r.stderr);
  });

  test('--resume of an id Hermes does not have: exit 1, result last, the error names it', async () => {
    const r = await run('[plain] hello', ['--resume', 'no-such-session-1234']);
    assert.equal(r.code, 1, r.stderr);
    const result = resultOf(events(r));
    assert.match(String(result.error), /no-such-session-1234/);
  });
});
