/**
 * R1 — crash mid-turn. The agent dies (SIGKILL, or a clean `exit 1`) at random points of a turn,
 * while a permission is pending, and during a `session/load` replay. Each time: the chat shows the
 * failure with the agent's stderr tail within 1 s, nothing stays pending, and "Restart Agent" +
 * `session/load` restores the conversation with no entry lost or duplicated.
 *
 * Real scripted agent processes, the real AgentHost / AcpClient / ChatSession / SessionController
 * (see chatRig.ts for what stands in for ChatManager). The automatic respawn with backoff that
 * ChatManager adds on top is exercised in test/integration/hardening.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HostConnection } from '../../../src/host/agentHost';
import { AgentExitedError } from '../../../src/agentPort/agentErrors';
import type { TurnResult } from '../../../src/session/sessionController';
import type { Disposable } from '../../../src/util/disposable';
import type { ChatSession } from '../../../src/app/chatSession';
import { scriptedAgentCommand, startStack, tempWorkspace } from '../../support/agentStack';
import { ChatRig, conversation, notices, userTexts, type ContentItem } from './chatRig';
import { killTagged, newTag, Rng, scaled, seed, summary, taggedProcesses, until, within } from './support';

type Mode = 'SIGKILL' | 'exit 1';
type Point = 'start' | 'mid-stream' | 'random-time' | 'permission' | 'load (restore)' | 'load (history)';

interface Kill {
  readonly mode: Mode;
  readonly point: Point;
}

interface Outcome {
  readonly kill: Kill;
  readonly shownMs: number;
  readonly settledMs: number;
  readonly lost: number;
  readonly duplicated: number;
}

/** The 20 (CI: 8) kills: half SIGKILL, half exit 1; ≥ 4 (CI: 2) with a permission pending, ≥ 3 (CI: 2) during load. */
function plan(rng: Rng, total: number): Kill[] {
  const fixed: Kill[] =
    total >= 20
      ? [
          { mode: 'SIGKILL', point: 'permission' },
          { mode: 'SIGKILL', point: 'permission' },
          { mode: 'exit 1', point: 'permission' },
          { mode: 'exit 1', point: 'permission' },
          { mode: 'SIGKILL', point: 'load (restore)' },
          { mode: 'exit 1', point: 'load (restore)' },
          { mode: 'exit 1', point: 'load (history)' },
          { mode: 'SIGKILL', point: 'load (history)' },
        ]
      : [
          { mode: 'SIGKILL', point: 'permission' },
          { mode: 'exit 1', point: 'permission' },
          { mode: 'SIGKILL', point: 'load (restore)' },
          { mode: 'exit 1', point: 'load (history)' },
        ];
  const kills = [...fixed];
  const free: Point[] = ['start', 'mid-stream', 'random-time', 'random-time'];
  while (kills.length < total) {
    const sigkills = kills.filter((k) => k.mode === 'SIGKILL').length;
    const mode: Mode = sigkills < total / 2 && (kills.length - sigkills >= total / 2 || rng.next() < 0.5) ? 'SIGKILL' : 'exit 1';
    kills.push({ mode, point: rng.pick(free) });
  }
  return rng.shuffle(kills);
}

/** Items of `before` missing from `after` (by id and content), and items of `after` that are new or repeated. */
function compare(before: readonly ContentItem[], after: readonly ContentItem[]): { lost: ContentItem[]; extra: ContentItem[] } {
  const afterIds = new Map(after.map((i) => [i.id, i]));
  const lost = before.filter((b) => afterIds.get(b.id)?.sig !== b.sig);
  const beforeIds = new Set(before.map((b) => b.id));
  const extra = after.filter((a) => !beforeIds.has(a.id));
  return { lost, extra };
}

/** Same conversation content in the same order (ids differ between two loads). */
function compareBySig(expected: readonly ContentItem[], actual: readonly ContentItem[]): { lost: number; duplicated: number } {
  const count = (items: readonly ContentItem[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const i of items) {
      m.set(i.sig, (m.get(i.sig) ?? 0) + 1);
    }
    return m;
  };
  const e = count(expected);
  const a = count(actual);
  let lost = 0;
  let duplicated = 0;
  for (const [sig, n] of e) {
    lost += Math.max(0, n - (a.get(sig) ?? 0));
  }
  for (const [sig, n] of a) {
    duplicated += Math.max(0, n - (e.get(sig) ?? 0));
  }
  return { lost, duplicated };
}

/** The notice an unexpected exit adds (not "The agent was stopped." of a restart we asked for). */
function failureNotice(chat: ChatSession, from: number): ReturnType<typeof notices>[number] | undefined {
  return notices(chat)
    .slice(from)
    .find((n) => n.level === 'error' && n.actions?.includes('restartAgent') === true && /was killed by|exited with code/.test(n.title));
}

function repeatedUsers(chat: ChatSession): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const t of userTexts(chat)) {
    if (seen.has(t)) {
      repeated.push(t);
    }
    seen.add(t);
  }
  return repeated;
}

suite('R1 hardening: the agent crashes mid-turn', function () {
  const total = scaled(20, 8);
  this.timeout(scaled(300_000, 150_000));
  const tag = newTag('r1');
  const ws = tempWorkspace('hermes-r1-');
  let rig: ChatRig | undefined;

  suiteTeardown(async () => {
    await rig?.dispose();
    killTagged(tag);
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test(`${total} kills at random points of a turn (seed ${seed}): failure shown ≤ 1 s with the stderr tail, nothing pending, restart + load restores everything`, async () => {
    const rng = new Rng(seed);
    const stateFile = path.join(ws, '.scripted-agent-state.json');
    const r = new ChatRig({ cwd: ws, env: { SCRIPTED_AGENT_STATE_FILE: stateFile }, tag, timeouts: { session: 20_000, other: 10_000 } });
    rig = r;
    let chat = r.createChat();
    assert.equal(await within(chat.ensureStarted(), 20_000, 'first session/new'), true);
    // A history whose replay is larger than a pipe buffer (3 × 64 KB tool outputs), so a kill on the
    // first replayed update lands in the middle of the replay.
    let turnNo = 0;
    const submit = (text: string): Promise<TurnResult | undefined> => chat.submit([{ type: 'text', text: `#${++turnNo} ${text}` }]);
    const warm = await within(submit('[tools] [big-output kb=64] [big-output kb=64] [big-output kb=64] [plan]'), 30_000, 'warm-up turn');
    assert.equal(warm?.kind, 'ended');
    assert.equal((await within(submit('hello'), 10_000, 'echo turn'))?.kind, 'ended');

    const kills = plan(rng, total);
    const outcomes: Outcome[] = [];
    for (const [i, kill] of kills.entries()) {
      const where = `kill ${i + 1}/${total} (${kill.mode}, ${kill.point})`;
      const oldClient: HostConnection | undefined = r.host.client;
      const pid = r.host.pid;
      assert.ok(pid !== undefined && oldClient !== undefined, `${where}: the agent runs`);
      const exitsBefore = r.exits.length;
      let killAt = 0;
      let target = chat;

      // When the failure became visible: the first new error notice carrying the restart action.
      const noticesBefore = new Map<ChatSession, number>();
      const shownAt = new Map<ChatSession, number>();
      const subs: Disposable[] = [];
      const watch = (c: ChatSession): void => {
        noticesBefore.set(c, notices(c).length);
        subs.push(
          c.onDidChange(() => {
            if (!shownAt.has(c) && failureNotice(c, noticesBefore.get(c) ?? 0) !== undefined) {
              shownAt.set(c, Date.now());
            }
          }),
        );
      };
      // The agent announces its own crash on stderr just before it exits: that is the kill time.
      const stderrSub = r.host.log.onDidAppend((e) => {
        if (killAt === 0 && e.dir === 'stderr' && e.text.includes('about to crash')) {
          killAt = e.time;
        }
      });
      const sigkill = (): void => {
        if (killAt === 0) {
          killAt = Date.now();
          process.kill(pid, 'SIGKILL');
        }
      };
      const agentMode = kill.mode === 'SIGKILL' ? 'kill' : 'exit';
      let turn: Promise<TurnResult | undefined> | undefined;
      let loadOk: boolean | undefined;
      let sessionId = chat.sessionId;
      assert.ok(sessionId !== undefined);

      try {
        switch (kill.point) {
          case 'start':
            watch(chat);
            turn = submit(`[crash when=start mode=${agentMode} code=1]`);
            break;
          case 'mid-stream': {
            watch(chat);
            const prefix = rng.shuffle(['[plain]', '[thought]', '[plan]', '[markdown]', '[tools]']).slice(0, rng.int(0, 3));
            turn = submit(`${prefix.join(' ')} [crash when=mid mode=${agentMode} code=1]`);
            break;
          }
          case 'random-time':
            watch(chat);
            if (kill.mode === 'SIGKILL') {
              const body = rng.pick(['[slow n=30 ms=20] [tools]', '[tool-steps ms=250] [plain]', '[thought] [slow n=25 ms=25]', '[burst n=3000] [slow n=20 ms=25]']);
              turn = submit(body);
              const delay = rng.int(0, 450);
              setTimeout(sigkill, delay);
            } else {
              turn = submit(`[slow n=${rng.int(1, 25)} ms=20] [crash when=start mode=exit code=1]`);
            }
            break;
          case 'permission': {
            watch(chat);
            let pendingAtKill: number;
            const asked = new Promise<number>((resolve) => chat.controller.onPermissionRequested(() => resolve(r.unsettledPermissions.length)));
            if (kill.mode === 'SIGKILL' && rng.next() < 0.5) {
              turn = submit(`[command cmd=rm -rf build-${i}]`);
              pendingAtKill = await within(asked, 10_000, `${where}: permission request`);
              sigkill();
            } else {
              turn = submit(`[crash when=permission mode=${agentMode} code=1]`);
              pendingAtKill = await within(asked, 10_000, `${where}: permission request`);
            }
            assert.ok(pendingAtKill >= 1, `${where}: a permission is pending when the agent dies`);
            break;
          }
          case 'load (restore)': {
            // "Restart Agent": the chat reloads its session, and the agent dies during the replay.
            watch(chat);
            if (kill.mode === 'exit 1') {
              r.env.SCRIPTED_AGENT_CRASH_ON_LOAD = '1';
            }
            const loading = r.host.log.onDidAppend((e) => {
              if (kill.mode === 'SIGKILL' && e.dir === 'in' && e.method === 'session/update' && r.host.pid !== undefined && r.host.pid !== pid) {
                killAt = Date.now();
                process.kill(r.host.pid, 'SIGKILL');
                loading.dispose();
              }
            });
            await within(r.restartAgent(), 20_000, `${where}: restart whose load is killed`);
            loading.dispose();
            delete r.env.SCRIPTED_AGENT_CRASH_ON_LOAD;
            assert.equal(chat.readOnly, true, `${where}: the load failed (the kill landed during the replay)`);
            break;
          }
          case 'load (history)': {
            // The chat is closed; a new chat opens the session from the history list and the agent dies during the replay.
            await within(r.closeChat(chat), 5000, `${where}: close chat`);
            if (kill.mode === 'exit 1') {
              r.env.SCRIPTED_AGENT_CRASH_ON_LOAD = '1';
            }
            await within(r.host.restart(), 20_000, `${where}: restart`);
            target = r.createChat();
            watch(target);
            const newPid = r.host.pid;
            const loading = r.host.log.onDidAppend((e) => {
              if (kill.mode === 'SIGKILL' && e.dir === 'in' && e.method === 'session/update' && newPid !== undefined) {
                killAt = Date.now();
                process.kill(newPid, 'SIGKILL');
                loading.dispose();
              }
            });
            loadOk = await within(target.open(sessionId), 20_000, `${where}: open from history`);
            loading.dispose();
            delete r.env.SCRIPTED_AGENT_CRASH_ON_LOAD;
            assert.equal(loadOk, false, `${where}: the load failed (the kill landed during the replay)`);
            chat = target;
            break;
          }
        }

        // The failure is shown within 1 s, with the stderr tail.
        const exit = (await until(`${where}: agent exit`, () => r.exits.slice(exitsBefore).find((e) => !e.error.expected), 10_000)).error;
        assert.ok(exit !== undefined && AgentExitedError.is(exit) && !exit.expected, `${where}: an unexpected exit`);
        if (kill.mode === 'SIGKILL') {
          assert.equal(exit.signal, 'SIGKILL', `${where}: ${exit.message}`);
        } else {
          assert.equal(exit.exitCode, 1, `${where}: ${exit.message}`);
        }
        assert.ok(killAt > 0, `${where}: the kill time is known`);
        const shown = await until(`${where}: failure shown`, () => shownAt.get(target), 5000);
        const shownMs = shown - killAt;
        const notice = failureNotice(target, noticesBefore.get(target) ?? 0);
        assert.ok(notice !== undefined);
        assert.ok(exit.stderrTail !== '', `${where}: the agent left a stderr tail`);
        assert.equal(notice.log, exit.stderrTail, `${where}: the notice carries the stderr tail`);
        if (kill.point !== 'random-time' && kill.point !== 'permission') {
          assert.match(notice.log ?? '', /about to crash|scripted-agent/, `${where}: tail`);
        }
        assert.ok(shownMs <= 1000, `${where}: failure shown after ${shownMs} ms`);

        // Nothing stays pending: the turn settled (interrupted), permissions answered, the old connection closed.
        let settledMs = 0;
        if (turn !== undefined) {
          const result = await within(turn, Math.max(50, 1000 - (Date.now() - killAt)), `${where}: the prompt`);
          settledMs = Date.now() - killAt;
          assert.equal(result?.kind, 'interrupted', `${where}: turn result ${result?.kind}`);
        }
        assert.equal(r.unsettledPermissions.length, 0, `${where}: unanswered permission requests`);
        assert.equal(target.controller.pendingPermissions.length, 0);
        assert.equal(oldClient.isClosed, true, `${where}: old connection closed`);
        assert.equal(r.host.client?.isClosed ?? true, true, `${where}: the dead connection is closed`);
        assert.equal(target.controller.state.phase, 'exited');

        // Restart + load restores the conversation: nothing lost, nothing duplicated.
        const before = conversation(target);
        let lost = 0;
        let duplicated = 0;
        if (kill.point === 'load (history)') {
          sessionId = target.sessionId ?? sessionId;
          loadOk = await within(target.open(sessionId), 20_000, `${where}: open again`);
          assert.equal(loadOk, true, `${where}: the second open restores`);
          // Oracle: the same session loaded by a fresh client that never saw a crash.
          const oracle = await startStack(scriptedAgentCommand(ws, { SCRIPTED_AGENT_STATE_FILE: stateFile }));
          try {
            await within(oracle.controller.load(sessionId), 20_000, 'oracle load');
            const expected = conversation(oracle);
            const got = conversation(target);
            ({ lost, duplicated } = compareBySig(expected, got));
            assert.equal(lost, 0, `${where}: entries lost after the history reopened: expected ${expected.length} items, got ${got.length}:\n${got.map((g) => g.sig.slice(0, 60)).join('\n')}`);
            assert.equal(duplicated, 0, `${where}: entries duplicated after the history reopened`);
          } finally {
            await oracle.dispose();
          }
        } else {
          await within(r.restartAgent(), 20_000, `${where}: Restart Agent`);
          assert.equal(target.controller.state.phase, 'idle', `${where}: restored session is idle`);
          assert.equal(target.readOnly, false);
          const after = conversation(target);
          const diff = compare(before, after);
          lost = diff.lost.length;
          duplicated = diff.extra.length + repeatedUsers(target).length;
          assert.equal(lost, 0, `${where}: lost ${diff.lost.map((l) => l.sig.slice(0, 60)).join('; ')}`);
          assert.equal(duplicated, 0, `${where}: duplicated ${diff.extra.map((l) => l.sig.slice(0, 60)).join('; ')}`);
        }
        assert.equal(target.sessionId, sessionId, `${where}: the same session`);
        // And the restored session works.
        const next = await within(submit(`after kill ${i + 1}`), 15_000, `${where}: turn after restore`);
        assert.equal(next?.kind, 'ended', `${where}: a turn after the restore ends normally`);
        outcomes.push({ kill, shownMs, settledMs, lost, duplicated });
      } finally {
        stderrSub.dispose();
        for (const sub of subs) {
          sub.dispose();
        }
      }
    }

    const byMode = (m: Mode): number => outcomes.filter((o) => o.kill.mode === m).length;
    const byPoint = (p: Point): number => outcomes.filter((o) => o.kill.point === p).length;
    const loads = byPoint('load (restore)') + byPoint('load (history)');
    const maxShown = Math.max(...outcomes.map((o) => o.shownMs));
    const maxSettled = Math.max(...outcomes.map((o) => o.settledMs));
    const lost = outcomes.reduce((n, o) => n + o.lost, 0);
    const duplicated = outcomes.reduce((n, o) => n + o.duplicated, 0);
    summary(
      `R1: ${outcomes.length} kills (${byMode('SIGKILL')} SIGKILL, ${byMode('exit 1')} exit 1) at random points (seed ${seed}) incl. ${byPoint('permission')} with permission pending and ${loads} during load ` +
        `(${byPoint('start')} at turn start, ${byPoint('mid-stream')} mid-stream, ${byPoint('random-time')} at a random time); ` +
        `failure shown with stderr tail in ≤ ${maxShown} ms (max); prompts settled ≤ ${maxSettled} ms after the kill; 0 pending promises; ` +
        `${outcomes.length}/${total} restored, ${lost} lost, ${duplicated} duplicated`,
    );
    const users = userTexts(chat);
    assert.equal(new Set(users).size, users.length, 'every user message once');
    await within(r.dispose(), 10_000, 'dispose');
    rig = undefined;
    await until('no agent process left', () => taggedProcesses(tag).length === 0, 5000);
  });
});
