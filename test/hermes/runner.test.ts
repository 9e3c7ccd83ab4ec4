/**
 * `hermes-acp-run` (dist/cli.js) against the real Hermes v0.19.0 of the lab, over ACP, the TUI
 * Gateway (stdio and `hermes serve`) and the API Server (chat and runs): a plain turn, an approval
 * allowed and denied, a clarify (the gateway only: Hermes has no other channel for it), an error
 * at start, a provider 429, an interrupt and the server dying. Run by `npm run test:hermes`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { events, ofType, resultOf, runCli, type CliOptions, type CliRun } from '../unit/cli/cliHarness';
import { protocols, type Protocol, type Reached } from './protocols';
import { labScope, markedWith, victim } from './tier';

function runner(reached: Reached, ws: string, query: string, extra: readonly string[], marker: Record<string, string>, options: CliOptions = {}): Promise<CliRun> {
  return runCli(['-q', query, '--format', 'stream-json', '--cwd', ws, ...extra, ...reached.flags], { cwd: ws, timeoutMs: 180_000, ...options, env: { ...reached.env, ...marker } });
}

/** Kills what serves the turn once the turn streams: the agent or gateway the runner started, or the server. */
function killer(protocol: Protocol, reached: Reached, marker: Record<string, string>, kill: (pid: number) => void): () => void {
  return () => {
    if (reached.server !== undefined) {
      process.kill(-(reached.server.child.pid ?? 0), 'SIGKILL');
      return;
    }
    const needle = protocol.name === 'acp' ? 'hermes_cli.main' : 'tui_gateway.entry';
    for (const pid of markedWith(marker, needle)) {
      kill(pid);
    }
  };
}

for (const protocol of protocols) {
  suite(`lab tier: hermes-acp-run over ${protocol.label}`, function () {
    this.timeout(240_000);
    const scope = labScope(`runner-${protocol.name}`);
    let reached: Reached;
    suiteSetup(async function () {
      this.timeout(180_000);
      reached = await protocol.reach(scope.run, scope.run.home());
    });

    test('a plain turn: exit 0, the text, tokens reported, Hermes’ version and model', async () => {
      const run = await runner(reached, scope.ws, '[plain] Say hello.', [], scope.marker);
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      const result = resultOf(evs);
      assert.equal(String(result.text).trim(), 'Hello from the fake model!');
      assert.equal(result.tokens_reported, true, JSON.stringify(result.tokens));
      assert.ok(Number((result.tokens as { total: number }).total) > 0);
      const agent = evs[0]?.agent as { version?: string } | undefined;
      assert.equal(agent?.version, '0.19.0');
      assert.ok(String(evs[0]?.model) !== '', 'the model is named');
    });

    if (protocol.name === 'api-chat') {
      test('chat mode: --permissions allow is refused (exit 2); under deny the command is parked, reported failed, and not run', async () => {
        const refused = await runner(reached, scope.ws, 'x', ['--permissions', 'allow'], scope.marker);
        assert.equal(refused.code, 2);
        assert.match(refused.stderr, /--api-mode runs/);
        const dir = victim(scope.ws);
        const run = await runner(reached, scope.ws, `[terminal cmd=rm -r ${dir}] Clean up.`, [], scope.marker);
        assert.equal(run.code, 0, run.stderr);
        const evs = events(run);
        assert.deepEqual(ofType(evs, 'tool_use').map((t) => [t.name, t.input]), [['terminal', { command: `rm -r ${dir}` }]]);
        assert.deepEqual(ofType(evs, 'tool_result').map((t) => [t.status, t.is_error]), [['failed', true]]);
        assert.equal(resultOf(evs).permissions_enforced, true);
        assert.ok(fs.existsSync(dir));
      });
    } else {
      for (const [flags, allowed] of [
        [['--permissions', 'allow'], true],
        [[], false],
      ] as const) {
        test(`a dangerous command ${allowed ? 'allowed by --permissions allow runs' : 'denied by --permissions deny does not run'}`, async () => {
          const dir = victim(scope.ws);
          const run = await runner(reached, scope.ws, `[terminal cmd=rm -r ${dir}] Clean up.`, flags, scope.marker);
          assert.equal(run.code, 0, run.stderr);
          const evs = events(run);
          const permissions = ofType(evs, 'permission');
          assert.equal(permissions.length, 1, JSON.stringify(permissions));
          assert.equal(permissions[0]?.option_kind, allowed ? 'allow_once' : 'reject_once');
          const use = ofType(evs, 'tool_use').find((t) => t.tool_call_id === permissions[0]?.tool_call_id);
          assert.equal((use?.input as { command?: string } | undefined)?.command, `rm -r ${dir}`);
          assert.equal(fs.existsSync(dir), !allowed);
        });
      }
    }

    if (protocol.clarify) {
      test('a clarify is cancelled at once (nobody to ask) and reported; the turn goes on', async () => {
        const run = await runner(reached, scope.ws, '[clarify] Ask me.', [], scope.marker);
        assert.equal(run.code, 0, run.stderr);
        const [question] = ofType(events(run), 'question');
        assert.deepEqual([question?.kind, question?.outcome], ['clarify', 'cancelled']);
      });
    }

    test('an agent that cannot start (no provider) ends the run with Hermes’ error, exit 1', async () => {
      const home = scope.run.home({ provider: false });
      const broken = protocol.name === 'acp' || protocol.name === 'gateway-stdio' ? { ...reached, env: { ...reached.env, HERMES_HOME: home } } : await protocol.reach(scope.run, home);
      const run = await runner(broken, scope.ws, '[plain] Say hello.', [], scope.marker);
      assert.equal(run.code, 1, run.stderr);
      assert.match(String(resultOf(events(run)).error), /provider/i);
      if (broken.server !== undefined) {
        scope.run.kill(broken.server);
      }
    });

    test('a provider rate limit (HTTP 429) exits 75', async () => {
      const run = await runner(reached, scope.ws, '[ratelimit] hi', [], scope.marker);
      assert.equal(run.code, 75, run.stderr);
      assert.match(String(resultOf(events(run)).error), /429|rate/i);
    });

    test('SIGTERM mid-turn cancels it: exit 130', async () => {
      let sent = false;
      const run = await runner(reached, scope.ws, '[slow] count', [], scope.marker, {
        onLine: (line, child) => {
          if (!sent && line.includes('tick 2')) {
            sent = true;
            child.kill('SIGTERM');
          }
        },
      });
      assert.ok(sent, run.stdout);
      assert.equal(run.code, 130, run.stderr);
      assert.equal(resultOf(events(run)).exit_code, 130);
    });

    test('the server dying mid-turn: exit 1 with what happened', async () => {
      const target = reached.server !== undefined ? await protocol.reach(scope.run, scope.run.home()) : reached;
      let killed = false;
      const kill = killer(protocol, target, scope.marker, (pid) => process.kill(pid, 'SIGKILL'));
      const run = await runner(target, scope.ws, '[slow] count', [], scope.marker, {
        onLine: (line) => {
          if (!killed && line.includes('tick 2')) {
            killed = true;
            kill();
          }
        },
      });
      assert.ok(killed, run.stdout);
      assert.equal(run.code, 1, run.stderr);
      const error = String(resultOf(events(run)).error);
      assert.match(error, protocol.name.startsWith('api') ? /Lost the connection to the API server at http:\/\/127\.0\.0\.1:\d+/ : /killed|exited|closed|connection/i);
    });
  });
}
