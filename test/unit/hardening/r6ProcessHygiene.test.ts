/**
 * R6 — process hygiene. 50 (CI: 25; HERMES_SOAK=1: 100) start/stop/restart cycles of the agent: 0 orphan processes
 * (checked by pid, by process group, and by an environment tag across /proc), and no growth in
 * open handles (`process.getActiveResourcesInfo()`) or heap beyond the stated bounds.
 *
 * One AgentHost for all cycles (as the extension keeps one per agent) with chats on it; the cycles
 * rotate through: start → stop, start → restart → stop, stop while `initialize` is in flight, stop
 * mid-turn, restart with a permission pending, the agent crashing and starting again, and (every
 * kind once per round) an agent under agentTap.js, i.e. a two-process group whose child must die
 * with its leader. Window reloads are in test/ui/hardening.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TrafficLog } from '../../../src/wire/trafficLog';
import { tempWorkspace } from '../../support/agentStack';
import { ChatRig } from './chatRig';
import {
  activeResources,
  formatResources,
  groupMembers,
  heapAfterGc,
  isAlive,
  killTagged,
  mb,
  MiB,
  newTag,
  scaled,
  settle,
  sleep,
  summary,
  taggedProcesses,
  totalResources,
  within,
} from './support';
import { readTap, tapChild } from './tapFile';

type Kind = 'start → stop' | 'start → restart → stop' | 'stop during initialize' | 'stop mid-turn' | 'restart with permission pending' | 'crash → start → stop' | 'two-process group';
const kinds: readonly Kind[] = ['start → stop', 'start → restart → stop', 'stop during initialize', 'stop mid-turn', 'restart with permission pending', 'crash → start → stop', 'two-process group'];

/** Heap growth allowed over all cycles, after GC (the traffic log ring and JIT'd code settle well below). */
const HEAP_BOUND = 8 * MiB;
/** Active handles allowed above the baseline after all cycles (none expected; 1 for a timer in flight). */
const HANDLE_BOUND = 1;

suite('R6 hardening: process hygiene over start/stop/restart cycles', function () {
  const cycles = scaled(50, 25, 100);
  this.timeout(scaled(400_000, 200_000));
  const tag = newTag('r6');
  const ws = tempWorkspace('hermes-r6-');
  const tapFile = path.join(ws, '.agent-tap.jsonl');
  let rig: ChatRig | undefined;
  let tapRig: ChatRig | undefined;

  suiteTeardown(async () => {
    await rig?.dispose();
    await tapRig?.dispose();
    killTagged(tag);
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test(`${cycles} start/stop/restart cycles: 0 orphans by pid, group and tag; handles and heap bounded`, async () => {
    // A small traffic log: the default ring (5000 entries) would still be filling up over the
    // cycles and hide a real leak in its growth.
    const r = new ChatRig({ cwd: ws, tag, timeouts: { initialize: 10_000, session: 10_000, other: 5000 }, log: new TrafficLog({ maxEntries: 200 }) });
    rig = r;
    const tr = new ChatRig({ cwd: ws, tag, tapFile });
    tapRig = tr;
    const pids = new Set<number>();
    const lingered: number[] = [];
    const orphans: string[] = [];
    const counts = new Map<Kind, number>();

    /** Every process of the cycle is gone: by pid, by group, and nothing tagged is left. */
    async function assertGone(cyclePids: readonly number[], where: string): Promise<void> {
      const started = Date.now();
      const alive = (): string[] => [
        ...cyclePids.filter(isAlive).map((p) => `pid ${p}`),
        ...cyclePids.flatMap((p) => groupMembers(p).map((m) => `group ${p}: ${m.pid} ${m.cmdline.slice(0, 60)}`)),
        ...taggedProcesses(tag).map((m) => `tagged ${m.pid} ${m.cmdline.slice(0, 60)}`),
      ];
      let left = alive();
      const wasLeft = left.length > 0;
      while (left.length > 0 && Date.now() - started < 2000) {
        await sleep(20);
        left = alive();
      }
      if (wasLeft && left.length === 0) {
        lingered.push(Date.now() - started);
      }
      if (left.length > 0) {
        orphans.push(`${where}: ${[...new Set(left)].join('; ')}`);
        killTagged(tag);
      }
    }

    async function cycle(kind: Kind, i: number): Promise<void> {
      try {
        await runCycle(kind, i);
      } catch (e) {
        throw new Error(`cycle ${i + 1} (${kind}): ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, { cause: e });
      }
    }

    async function runCycle(kind: Kind, i: number): Promise<void> {
      const where = `cycle ${i + 1} (${kind})`;
      const seen: number[] = [];
      const note = (): void => {
        const p = r.host.pid;
        if (p !== undefined) {
          seen.push(p);
          pids.add(p);
        }
      };
      switch (kind) {
        case 'start → stop':
          await within(r.host.start(), 15_000, where);
          note();
          await within(r.host.stop(), 10_000, where);
          break;
        case 'start → restart → stop':
          await within(r.host.start(), 15_000, where);
          note();
          await within(r.host.restart(), 15_000, where);
          note();
          await within(r.host.stop(), 10_000, where);
          break;
        case 'stop during initialize': {
          r.env.SCRIPTED_AGENT_INIT_DELAY_MS = '400';
          const starting = settle(r.host.start());
          await sleep(30 + (i % 5) * 40);
          note();
          await within(r.host.stop(), 10_000, where);
          const res = await within(starting, 10_000, `${where}: the start settles`);
          delete r.env.SCRIPTED_AGENT_INIT_DELAY_MS;
          assert.equal(res.ok, false, `${where}: a start stopped before initialize completed fails`);
          break;
        }
        case 'stop mid-turn': {
          const chat = r.createChat();
          assert.equal(await within(chat.ensureStarted(), 15_000, where), true);
          note();
          const turn = chat.submit([{ type: 'text', text: '[slow n=40 ms=20]' }]);
          await sleep(60);
          await within(r.host.stop(), 10_000, where);
          const result = await within(turn, 5000, `${where}: the turn settles`);
          assert.equal(result?.kind, 'interrupted');
          await r.closeChat(chat);
          break;
        }
        case 'restart with permission pending': {
          const chat = r.createChat();
          assert.equal(await within(chat.ensureStarted(), 15_000, where), true);
          note();
          const asked = new Promise<void>((resolve) => chat.controller.onPermissionRequested(() => resolve()));
          const turn = chat.submit([{ type: 'text', text: '[command cmd=rm -rf build]' }]);
          await within(asked, 10_000, `${where}: permission`);
          await within(r.restartAgent(), 20_000, `${where}: restart`);
          note();
          await within(turn, 5000, `${where}: the turn settles`);
          assert.equal(chat.controller.pendingPermissions.length, 0);
          await r.closeChat(chat);
          await within(r.host.stop(), 10_000, where);
          break;
        }
        case 'crash → start → stop': {
          await within(r.host.start(), 15_000, where);
          note();
          const pid = r.host.pid;
          assert.ok(pid !== undefined);
          let sub: { dispose(): void } | undefined;
          const exited = new Promise<void>((resolve) => {
            sub = r.host.onDidExit(() => resolve());
          });
          process.kill(pid, 'SIGKILL');
          await within(exited, 5000, `${where}: exit`);
          sub?.dispose();
          await within(r.host.start(), 15_000, where);
          note();
          await within(r.host.stop(), 10_000, where);
          break;
        }
        case 'two-process group': {
          await within(tr.host.start(), 15_000, where);
          const leader = tr.host.pid;
          assert.ok(leader !== undefined);
          const child = tapChild(readTap(tapFile), leader);
          assert.ok(child !== undefined && isAlive(child), `${where}: the agent runs as the wrapper's child`);
          seen.push(leader, child);
          pids.add(leader);
          pids.add(child);
          await within(tr.host.stop(), 10_000, where);
          break;
        }
      }
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      await assertGone(seen, where);
      // The rigs' own bookkeeping is not the product's memory.
      for (const x of [r, tr]) {
        x.exits.length = 0;
        x.permissionCalls.length = 0;
      }
    }

    // Warm-up (modules, JIT, first spawn) before the baseline.
    for (const [i, kind] of kinds.entries()) {
      await cycle(kind, -1 - i);
    }
    counts.clear();
    pids.clear();
    lingered.length = 0;
    await sleep(300);
    const heapBefore = heapAfterGc();
    const handlesBefore = activeResources();
    const exitListenersBefore = process.listenerCount('exit');
    const started = Date.now();

    let heapHalf = 0;
    for (let i = 0; i < cycles; i++) {
      await cycle(kinds[i % kinds.length] ?? 'start → stop', i);
      if (i + 1 === Math.floor(cycles / 2)) {
        heapHalf = heapAfterGc() - heapBefore;
      }
    }

    const ms = Date.now() - started;
    await sleep(300);
    const heapAfter = heapAfterGc();
    const handlesAfter = activeResources();
    const heapGrowth = heapAfter - heapBefore;
    const handleGrowth = totalResources(handlesAfter) - totalResources(handlesBefore);
    const exitListenerGrowth = process.listenerCount('exit') - exitListenersBefore;
    const leftTagged = taggedProcesses(tag);
    summary(
      `R6: ${cycles} start/stop/restart cycles in ${(ms / 1000).toFixed(1)} s (${kinds.map((k) => `${counts.get(k) ?? 0} ${k}`).join(', ')}); ` +
        `${pids.size} agent processes checked by pid + process group + env tag: ${orphans.length} orphans (${lingered.length > 0 ? `${lingered.length} cycles had a process still exiting when stop() resolved, gone ≤ ${Math.max(...lingered)} ms later` : 'all gone when stop() resolved'}); ` +
        `handles ${totalResources(handlesBefore)} → ${totalResources(handlesAfter)} (bound +${HANDLE_BOUND}; ${formatResources(handlesAfter) || 'none'}), ` +
        `process 'exit' listeners +${exitListenerGrowth}, heap after GC +${mb(heapHalf)} at ${Math.floor(cycles / 2)} cycles, ${heapGrowth >= 0 ? '+' : ''}${mb(heapGrowth)} at ${cycles} (bound +${mb(HEAP_BOUND)}), traffic log capped at 200 entries for the measurement`,
    );
    assert.deepEqual(orphans, []);
    assert.deepEqual(leftTagged, []);
    assert.ok(handleGrowth <= HANDLE_BOUND, `handles grew: ${formatResources(handlesBefore)} → ${formatResources(handlesAfter)}`);
    assert.equal(exitListenerGrowth, 0);
    assert.ok(heapGrowth <= HEAP_BOUND, `heap grew ${mb(heapGrowth)}`);
    await within(r.dispose(), 10_000, 'dispose');
    await within(tr.dispose(), 10_000, 'dispose');
    rig = undefined;
    tapRig = undefined;
  });
});
