/**
 * Window reloads ("Developer: Reload Window" in code-server + Chromium), which only the UI can do.
 *
 * - R3: before a reload, 1–5 permission requests are pending (the sidebar chat and chats in editor
 *   tabs, one `[command]` each: the scripted agent asks one question per session at a time). After
 *   the reload, every request must have been answered on the agent's stdin — agents run under
 *   agentTap.js, which logs the agent's permission requests and every line the client wrote.
 * - R6: 10 (CI: 5; HERMES_SOAK=1: 20) reloads in all; after each, no process of the agents that ran before it is left
 *   (by pid, by process group, and by an environment tag across /proc), and code-server's process
 *   group holds its own processes plus one of each process a window forks (extension host, file
 *   watcher): no earlier window's extension host is left behind.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { scriptedAgentPath } from '../support/paths';
import { agentTapPath, descendsFromWindow, groupMembers, isAlive, killTagged, newTag, repeatedRoles, role, roleCounts, scaled, sleep, summary, TAG_VAR, taggedProcesses, until, type ProcInfo } from '../unit/hardening/support';
import { readTap, tapResponses } from '../unit/hardening/tapFile';
import { openVsCode, type UiSession } from './support';
import { pinnedWebview, send } from './uiHelpers';

interface ReloadFigures {
  reloads: number;
  agentsBefore: number;
  orphans: string[];
  slowestGoneMs: number;
}

/** The inner document of the n-th webview iframe (DOM order now), pinned to that iframe. */
function webview(page: Page, index: number): Promise<FrameLocator> {
  return pinnedWebview(page, page.locator('iframe.webview.ready').nth(index));
}

/** Requests the agent under tap `pid` sent, and whether the client answered each on the agent's stdin. */
function wireAnswers(tapFile: string, pid: number): { requests: number; answered: number; invalid: string[] } {
  const records = readTap(tapFile);
  const responses = tapResponses(records, pid);
  let requests = 0;
  let answered = 0;
  const invalid: string[] = [];
  for (const r of records) {
    if (r.pid !== pid || r.kind !== 'out') {
      continue;
    }
    const msg = JSON.parse(r.text) as { id?: string | number; method?: string; params?: { options?: { optionId: string }[] } };
    if (msg.method !== 'session/request_permission' || msg.id === undefined) {
      continue;
    }
    requests++;
    const resp = responses.get(msg.id);
    if (resp === undefined) {
      continue;
    }
    answered++;
    const offered = (msg.params?.options ?? []).map((o) => o.optionId);
    const o = resp.outcome;
    if (o === undefined || (o.outcome !== 'cancelled' && !(o.optionId !== undefined && offered.includes(o.optionId)))) {
      invalid.push(JSON.stringify(resp));
    }
  }
  return { requests, answered, invalid };
}

suite('R3/R6 hardening: window reloads in code-server + Chromium', function () {
  // 10 reloads in `npm test` (each ~8 s here), 20 at soak length.
  const reloads = scaled(10, 5, 20);
  const pendingRounds = reloads >= 10 ? [1, 2, 3, 4, 5] : [1, 2];
  this.timeout(scaled(1_200_000, 600_000));
  const tag = newTag('ui');
  const tapFile = path.join(fs.realpathSync(os.tmpdir()), `hermes-ui-tap-${tag}.jsonl`);
  const figures: ReloadFigures = { reloads: 0, agentsBefore: 0, orphans: [], slowestGoneMs: 0 };
  let vs: UiSession | undefined;
  let serverGroupBeforeList: ProcInfo[] = [];

  const serverPid = (): number => {
    const pid = (vs?.server as unknown as { pid?: number } | undefined)?.pid;
    assert.ok(pid !== undefined, 'the harness reports code-server\'s pid');
    return pid;
  };

  suiteSetup(async () => {
    vs = await openVsCode({
      machineSettings: {
        'hermes.agents': [{ id: 'scripted', name: 'Scripted', command: process.execPath, args: [agentTapPath, tapFile, scriptedAgentPath], env: { [TAG_VAR]: tag } }],
        'hermes.defaultAgent': 'scripted',
      },
    });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(`FAILED-${this.currentTest.title.replace(/\W+/g, '-')}`);
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
    killTagged(tag);
    fs.rmSync(tapFile, { force: true });
  });

  /** Runs "Developer: Reload Window", waits for the new workbench, and checks the old agents are gone. */
  async function reloadWindow(ui: UiSession): Promise<ProcInfo[]> {
    const before = taggedProcesses(tag);
    figures.agentsBefore += before.length;
    const navigated = ui.page.waitForEvent('framenavigated', { predicate: (f) => f === ui.page.mainFrame(), timeout: 60_000 });
    await ui.command('Developer: Reload Window').catch(() => undefined); // the palette goes away with the page
    await navigated;
    // The side bar comes back with whatever view it showed (the Hermes chat), not the Explorer.
    await ui.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await ui.page.locator('.part.statusbar').first().waitFor({ timeout: 60_000 });
    figures.reloads++;
    const started = Date.now();
    const gone = (): boolean => before.every((p) => !isAlive(p.pid) && groupMembers(p.pid).length === 0);
    await until('the agents of the old window are gone', gone, 15_000).catch(() => undefined);
    figures.slowestGoneMs = Math.max(figures.slowestGoneMs, Date.now() - started);
    for (const p of before) {
      if (isAlive(p.pid) || groupMembers(p.pid).length > 0) {
        figures.orphans.push(`reload ${figures.reloads}: ${p.pid} ${p.cmdline.slice(0, 80)} (group: ${groupMembers(p.pid).map((m) => m.pid).join(', ')})`);
      }
    }
    return before;
  }

  test(`R3: window reload with ${pendingRounds.join(', ')} permission requests pending: 0 left unanswered`, async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    serverGroupBeforeList = groupMembers(serverPid());
    let requests = 0;
    let answered = 0;
    const invalid: string[] = [];
    const endings = new Map<string, number>();
    for (const k of pendingRounds) {
      await ui.command('Hermes: New Session');
      const sidebar = await ui.chat();
      await send(sidebar, `[command cmd=rm -rf reload-${k}-0]`);
      // After a reload the new extension host starts the agent anew: allow a slow (contended) machine time.
      await sidebar.getByRole('button', { name: /^Deny always/ }).last().waitFor({ timeout: 60_000 });
      for (let j = 1; j < k; j++) {
        const frames = ui.page.locator('iframe.webview.ready');
        const count = await frames.count();
        await ui.command('Hermes: Open Chat in Editor');
        for (let tries = 0; (await frames.count()) <= count && tries < 150; tries++) {
          await sleep(100);
        }
        const panel = await webview(ui.page, (await frames.count()) - 1);
        await send(panel, `[command cmd=rm -rf reload-${k}-${j}]`);
        await panel.getByRole('button', { name: /^Deny always/ }).last().waitFor({ timeout: 60_000 });
      }
      const agents = taggedProcesses(tag);
      const leaders = agents.filter((p) => p.pgid === p.pid);
      assert.equal(leaders.length, 1, 'one agent process (its tap) serves every chat of the window');
      const tapPid = leaders[0]?.pid ?? 0;
      const pendingNow = wireAnswers(tapFile, tapPid);
      assert.equal(pendingNow.requests - pendingNow.answered, k, `${k} requests pending before the reload`);
      await reloadWindow(ui);
      await sleep(200);
      const w = wireAnswers(tapFile, tapPid);
      // How the old window let go of its agent: deactivate() ends stdin, then SIGTERM; a killed host leaves neither.
      const kinds = new Set(readTap(tapFile).filter((r) => r.pid === tapPid).map((r) => r.kind));
      const ending = kinds.has('sigterm') ? (kinds.has('stdin-end') ? 'stdin closed + SIGTERM' : 'SIGTERM') : kinds.has('stdin-end') ? 'stdin closed' : 'killed without notice';
      endings.set(ending, (endings.get(ending) ?? 0) + 1);
      requests += w.requests;
      answered += w.answered;
      invalid.push(...w.invalid);
    }
    summary(
      `R3 window reload: ${requests} permission requests pending across ${pendingRounds.length} reloads (${pendingRounds.join(', ')} at once); ` +
        `${requests - answered} never answered on the agent's stdin before the old window's agent was stopped (${[...endings].map(([e, n]) => `${n}× ${e}`).join(', ')}); ${invalid.length} answers outside the offered optionIds`,
    );
    assert.deepEqual(invalid, []);
    assert.equal(answered, requests, `${requests - answered} of ${requests} pending requests were never answered: the reload runs deactivate() → ChatManager.dispose(), which settles them and ends the agent's stdin in the same tick`);
  });

  test(`R6: ${reloads} window reloads in all: 0 orphan agent processes (pid, process group, env tag); code-server keeps one extension host, none left behind`, async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    if (serverGroupBeforeList.length === 0) {
      serverGroupBeforeList = groupMembers(serverPid());
    }
    while (figures.reloads < reloads) {
      // An agent is running (and talking) when the window goes away.
      await ui.command('Hermes: New Session');
      const chat = await ui.chat();
      await send(chat, `reload ${figures.reloads + 1} [slow n=40 ms=100]`);
      await until('an agent runs', () => taggedProcesses(tag).length > 0, 30_000);
      await sleep(300);
      await reloadWindow(ui);
    }
    // The last window's extension host starts a while after its workbench shows: wait until it runs
    // (a chat answers), then until the old window's processes are gone (no role twice), then count.
    // The group is code-server's own processes plus one of each role the live window forks
    // (extensionHost, fileWatcher, …); a reload that leaked its window would leave a role twice.
    await ui.command('Hermes: New Session');
    await send(await ui.chat(), 'settled?');
    const settleStart = Date.now();
    await until('no role twice in code-server\'s process group', () => repeatedRoles(groupMembers(serverPid())).length === 0, 20_000).catch(() => undefined);
    const settleMs = Date.now() - settleStart;
    const serverGroupAfterList = groupMembers(serverPid());
    const known = new Set(serverGroupBeforeList.map((p) => p.pid));
    const added = serverGroupAfterList.filter((p) => !known.has(p.pid));
    const describe = (list: ProcInfo[]): string => list.map((p) => `${p.pid} (ppid ${p.ppid}) …${p.cmdline.slice(-120)}`).join('; ');
    const live = taggedProcesses(tag);
    const liveLeaders = live.filter((p) => p.pgid === p.pid).length;
    summary(
      `R6 window reloads: ${figures.reloads} reloads with ${figures.agentsBefore} agent processes running before them; ${figures.orphans.length} orphans by pid + process group + env tag ` +
        `(old agents gone ≤ ${figures.slowestGoneMs} ms after the new workbench showed); code-server process group ${serverGroupBeforeList.length} → ${serverGroupAfterList.length} processes ` +
        `(${roleCounts(serverGroupAfterList)}; settled in ${settleMs} ms); ${liveLeaders} agent(s) of the current window running`,
    );
    assert.deepEqual(figures.orphans, []);
    assert.deepEqual(repeatedRoles(serverGroupAfterList), [], `a reload left a window's process behind: ${describe(serverGroupAfterList)}`);
    // A process the live window's extension host started (git, a language server) is its business;
    // anything else new (an earlier window's child, now an orphan) is a leak.
    const strangers = added.filter((p) => role(p) === 'server' && !descendsFromWindow(p, serverGroupAfterList));
    assert.deepEqual(strangers, [], `code-server's process group gained processes outside the live window after ${figures.reloads} reloads: ${describe(strangers)}`);
    assert.ok(liveLeaders <= 1, 'at most the current window\'s agent runs');
  });
});
