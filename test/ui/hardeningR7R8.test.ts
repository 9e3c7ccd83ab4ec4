/**
 * R7 workspace trust and R8 big payloads, in code-server + Chromium with the scripted agent.
 *
 * R7: code-server in Restricted Mode (workspace trust on, the folder untrusted). The workspace's
 * `.vscode/settings.json` configures an agent of its own (a shell command that leaves a marker file
 * and would then run the scripted agent), makes it the default and allows every command; the
 * machine settings configure the scripted agent behind a preload that logs every start. The agent
 * must not start before the user says "Start Scripted" in the consent dialog — whatever the user
 * does first (open the chat, a new session, a prompt, the session list, restart, provider setup,
 * installation check) — and the workspace's agent, default agent and rules never apply, in an
 * untrusted and in a trusted workspace.
 *
 * R8: a 50 MB tool output and a 10 MB diff. While they arrive and after they are shown, keystrokes
 * in the composer are timed inside the chat's document (keydown timestamp → the frame after the
 * textarea changed) under a renderer trace (a keystroke over 100 ms fails when the chat's own work
 * in its window reaches 50 ms, half the bound: `blameSlowKey`); the output
 * is shown shortened with "Open full output", which opens the whole text in an editor; the diff
 * opens in a diff editor.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { agentRig, type AgentRig } from './hardeningAgents';
import { patientChat, sendAndWaitForTurn, sendPrompt, turnFooters } from './hardeningProbe';
import { scaled, summaryLine } from './hostileCorpus';
import { openVsCode, type UiSession } from './support';
import { blameSlowKey, chatShareMs, markChatClock, slowKeyMs, traceChatWork, type ChatWorkTrace, type Keystroke, type LongTask } from './rendererTrace';
import { conversation, paletteCommand, shotName, waitUntil } from './uiHelpers';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The modal VS Code shows for WorkspaceTrustConsent. */
function consentDialog(page: Page): Locator {
  return page.locator('.monaco-dialog-box').filter({ hasText: 'This workspace is not trusted' });
}

/** Waits up to `ms` for the consent dialog; true if it showed (it is left open). */
async function consentAsked(page: Page, ms: number): Promise<boolean> {
  return consentDialog(page)
    .waitFor({ timeout: ms })
    .then(() => true)
    .catch(() => false);
}

async function dismissDialogs(page: Page): Promise<void> {
  for (let i = 0; i < 3 && (await page.locator('.monaco-dialog-box').count()) > 0; i++) {
    await page.keyboard.press('Escape');
    await sleep(300);
  }
}

interface EntryPoint {
  readonly name: string;
  readonly asked: boolean;
  readonly acpSpawns: number;
  readonly otherRuns: number;
}

suite('R7 hardening: workspace trust (Restricted Mode) in code-server + Chromium', function () {
  this.timeout(scaled(600_000, 480_000));
  const rig: AgentRig = agentRig('r7');
  const started = Date.now();
  const before: EntryPoint[] = [];
  const bypass: EntryPoint[] = [];
  let consentSpawns = -1;
  let consentAgent = '';
  let workspaceRuleIgnored = false;
  let vs: UiSession | undefined;

  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };

  /** Runs `act`, waits for the consent dialog (dismissing it), and records what started meanwhile. */
  async function entryPoint(list: EntryPoint[], name: string, act: () => Promise<void>): Promise<EntryPoint> {
    const page = ui().page;
    const acp = rig.acpSpawns().length;
    const all = rig.spawns().length;
    // A command that opens a quick pick of its own (Show Sessions) makes the harness's "wait for
    // the command palette to close" time out: that is the command running, not a failure.
    await act().catch((e: unknown) => {
      if (!String(e).includes('quick-input-widget')) {
        throw e;
      }
    });
    const asked = await consentAsked(page, 4000);
    if (asked) {
      await ui().shot(`r7-consent-${name.replace(/\W+/g, '-')}`);
    }
    await dismissDialogs(page);
    await sleep(1500);
    if (await page.locator('.quick-input-widget').first().isVisible().catch(() => false)) {
      await page.keyboard.press('Escape');
    }
    const acpNow = rig.acpSpawns().length - acp;
    const e = { name, asked, acpSpawns: acpNow, otherRuns: rig.spawns().length - all - acpNow };
    list.push(e);
    return e;
  }

  suiteSetup(async () => {
    vs = await openVsCode({
      workspaceTrust: true,
      files: { 'hello.txt': 'hello world\n', '.vscode/settings.json': rig.workspaceSettings },
      settings: { 'security.workspace.trust.startupPrompt': 'never' },
      machineSettings: rig.machineSettings,
    });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-r7', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    const fmt = (list: EntryPoint[]): string =>
      list.map((e) => `${e.name}: ${e.asked ? 'asked' : 'not asked'}, ${e.acpSpawns} agent starts${e.otherRuns > 0 ? ` + ${e.otherRuns} --check/--version/--setup runs` : ''}`).join('; ');
    const spawnedBefore = before.reduce((n, e) => n + e.acpSpawns, 0);
    const spawnedBypass = bypass.reduce((n, e) => n + e.acpSpawns + e.otherRuns, 0);
    summaryLine(
      `R7 untrusted workspace: ${before.length + bypass.length} ways to start an agent tried before consent → ${spawnedBefore + spawnedBypass} agent processes started without consent ` +
        `(chat: ${fmt(before)} | commands after a reload: ${fmt(bypass)}); consent "Start Scripted" → ${consentSpawns} agent (${consentAgent}); ` +
        `workspace agent ran: ${fsExists(rig.evilMarker) ? 'YES' : 'no'}; workspace allow-all rule ignored: ${workspaceRuleIgnored ? 'yes' : 'NO'}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
      false,
    );
    await vs?.close();
    rig.cleanup();
  });

  test('in Restricted Mode the chat asks before the agent starts, and nothing starts until the user consents', async () => {
    const page = ui().page;
    await page.locator('.statusbar').getByText('Restricted Mode').first().waitFor({ timeout: 30_000 });
    let chat: FrameLocator | undefined;
    await entryPoint(before, 'open the chat', async () => {
      await ui().command('Hermes: Open Chat');
    });
    await entryPoint(before, 'new session', async () => {
      await ui().command('Hermes: New Session');
    });
    chat = await patientChat(page);
    await chat.getByRole('textbox', { name: 'Message', exact: true }).waitFor({ timeout: 30_000 });
    await entryPoint(before, 'send a prompt', async () => {
      await sendPrompt(chat ?? (await patientChat(page)), 'hello from an untrusted workspace');
    });
    await conversation(chat).getByText(/was not started: this workspace is not trusted/).last().waitFor({ timeout: 15_000 });
    await ui().shot('r7-not-started-notice');
    assert.deepEqual(rig.live(), [], 'no agent process is running');
    assert.equal(rig.spawns().length, 0, `nothing was started before consent: ${JSON.stringify(rig.spawns())}`);
    assert.ok(before.filter((e) => e.name === 'send a prompt').every((e) => e.asked), 'the prompt asked for consent');

    // Consent: the configured (machine) agent starts, once.
    const acp = rig.acpSpawns().length;
    chat = await patientChat(page);
    await sendPrompt(chat, 'hello after consent');
    await consentDialog(page).waitFor({ timeout: 15_000 });
    await ui().shot('r7-consent-dialog');
    await consentDialog(page).getByRole('button', { name: 'Start Scripted' }).click();
    await conversation(chat).getByText('You said: hello after consent').waitFor({ timeout: 30_000 });
    const mine = rig.acpSpawns().slice(acp);
    consentSpawns = mine.length;
    consentAgent = mine.map((s) => s.argv.map((a) => a.split('/').pop()).join(' ')).join(', ');
    assert.equal(mine.length, 1, 'one agent process after consent');
    assert.ok(rig.live().length >= 1, 'it is running');
    assert.equal(fsExists(rig.evilMarker), false, "the workspace's agent command never ran");

    // The workspace's allow-all rule does not apply: the dangerous command still asks.
    await sendPrompt(chat, '[command cmd=rm -rf r7-untrusted]');
    const deny = conversation(chat).getByRole('button', { name: /^Deny/ }).last();
    workspaceRuleIgnored = await deny
      .waitFor({ timeout: 30_000 })
      .then(() => true)
      .catch(() => false);
    await ui().shot('r7-untrusted-permission');
    if (workspaceRuleIgnored) {
      await conversation(chat).getByRole('button', { name: 'Deny', exact: true }).last().click();
    }
    assert.ok(workspaceRuleIgnored, 'the permission was asked (the workspace allow-all rule is ignored)');
  });

  test('after a reload (consent forgotten), no command starts the agent without asking', async () => {
    const page = ui().page;
    const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 60_000 });
    await ui().command('Developer: Reload Window').catch(() => undefined);
    await navigated;
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar').getByText('Restricted Mode').first().waitFor({ timeout: 60_000 });
    await waitUntil('the old agent to be gone', () => Promise.resolve(rig.live().length === 0), 20_000).catch(() => undefined);
    // The restored chat may ask at once; dismissing it starts nothing.
    await entryPoint(bypass, 'window restored', () => sleep(3000));
    await entryPoint(bypass, 'Show Sessions', () => ui().command('Hermes: Show Sessions'));
    await entryPoint(bypass, 'Restart Agent', () => ui().command('Hermes: Restart Agent'));
    await entryPoint(bypass, 'Set Up Provider', () => ui().command('Hermes: Set Up Provider'));
    await entryPoint(bypass, 'Check Installation', () => ui().command('Hermes: Check Installation'));
    await ui().shot('r7-after-commands');
    const unasked = bypass.filter((e) => e.acpSpawns + e.otherRuns > 0 && !e.asked);
    assert.equal(fsExists(rig.evilMarker), false, "the workspace's agent command never ran");
    assert.deepEqual(
      unasked.map((e) => `${e.name}: ${e.acpSpawns} agent start(s), ${e.otherRuns} other run(s) without the consent dialog`),
      [],
      'every way to start the agent asks first in an untrusted workspace',
    );
    // Every consent dialog above was dismissed: nothing may have started at all.
    assert.deepEqual(
      bypass.filter((e) => e.acpSpawns + e.otherRuns > 0).map((e) => `${e.name}: ${e.acpSpawns} agent start(s), ${e.otherRuns} other run(s) after the consent was dismissed`),
      [],
      'dismissing the consent starts nothing',
    );
    assert.ok(bypass.filter((e) => e.name !== 'window restored').every((e) => e.asked), `every command asked: ${bypass.map((e) => `${e.name} ${e.asked ? 'asked' : 'not asked'}`).join(', ')}`);
  });
});

suite('R7 hardening: a trusted workspace cannot choose the agent (machine-scoped settings)', function () {
  this.timeout(scaled(300_000, 240_000));
  const rig: AgentRig = agentRig('r7t');
  const started = Date.now();
  let listed: string[] = [];
  let ruleIgnored = false;
  let agentsStarted = 0;
  let vs: UiSession | undefined;

  suiteSetup(async () => {
    vs = await openVsCode({ files: { 'hello.txt': 'hello world\n', '.vscode/settings.json': rig.workspaceSettings }, machineSettings: rig.machineSettings });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-r7t', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    summaryLine(
      `R7 trusted workspace with its own hermes.agents/defaultAgent/permissions.rules: ${agentsStarted} agent started = the machine's (${rig.acpSpawns().length} via the machine command), ` +
        `workspace agent ran: ${fsExists(rig.evilMarker) ? 'YES' : 'no'}; Select Agent lists [${listed.join(', ')}]; allow-all rule ignored: ${ruleIgnored ? 'yes' : 'NO'}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
      false,
    );
    await vs?.close();
    rig.cleanup();
  });

  test("the machine's agent runs; the workspace's agent, default and rules are ignored", async () => {
    assert.ok(vs !== undefined);
    const page = vs.page;
    await vs.command('Hermes: New Session');
    const chat = await patientChat(page);
    await sendAndWaitForTurn(chat, 'hello from a trusted workspace');
    await conversation(chat).getByText('You said: hello from a trusted workspace').waitFor({ timeout: 15_000 });
    agentsStarted = rig.acpSpawns().length;
    assert.equal(agentsStarted, 1, 'the machine-configured agent started once');
    assert.match((await chat.locator('header.topbar').textContent()) ?? '', /Scripted/);
    assert.equal(fsExists(rig.evilMarker), false, "the workspace's agent command never ran");

    await sendPrompt(chat, '[command cmd=rm -rf r7-trusted]');
    ruleIgnored = await conversation(chat)
      .getByRole('button', { name: 'Deny', exact: true })
      .last()
      .waitFor({ timeout: 30_000 })
      .then(() => true)
      .catch(() => false);
    await vs.shot('r7-trusted-permission');
    if (ruleIgnored) {
      await conversation(chat).getByRole('button', { name: 'Deny', exact: true }).last().click();
    }
    await waitUntil('the turn to end', async () => (await turnFooters(chat).count()) >= 2, 30_000);

    // The agent picker offers the machine's agents and the built-in presets, never the workspace's.
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget .quick-input-box input').first();
    await input.fill('>Hermes: Select Agent');
    await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Hermes: Select Agent' }).first().click();
    await page.locator('.quick-input-widget').filter({ hasText: 'Chat with which agent?' }).waitFor({ timeout: 15_000 });
    listed = (await page.locator('.quick-input-list .monaco-list-row .label-name').allTextContents()).map((s) => s.trim());
    await vs.shot('r7-trusted-select-agent');
    await page.keyboard.press('Escape');
    assert.ok(ruleIgnored, 'the permission was asked (the workspace allow-all rule is ignored)');
    assert.ok(!listed.some((l) => /Workspace Agent|workspace override/.test(l)), `agents offered: ${listed.join(', ')}`);
    assert.ok(listed.includes('Scripted'), `agents offered: ${listed.join(', ')}`);
  });
});

suite('R7 hardening: Set Up Agent writes the machine scope, and a workspace value still never runs', function () {
  this.timeout(scaled(300_000, 240_000));
  const rig: AgentRig = agentRig('r7s');
  let vs: UiSession | undefined;
  // Stands in for an installed agent at a new path; the definition's args (`--require <spawn log>
  // scriptedAgent.js`) and env are kept by the setup, so its starts are logged like the machine agent's.
  const installed = path.join(rig.dir, 'bin', 'agent');

  suiteSetup(async () => {
    fs.mkdirSync(path.dirname(installed), { recursive: true });
    fs.writeFileSync(installed, `#!/bin/sh\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
    vs = await openVsCode({ files: { 'hello.txt': 'hello world\n', '.vscode/settings.json': rig.workspaceSettings }, machineSettings: rig.machineSettings });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-r7s', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
    rig.cleanup();
  });

  test("the executable goes to the machine's (Remote) settings, the workspace file is untouched, and only the machine's agent runs", async () => {
    assert.ok(vs !== undefined);
    const ui = vs;
    const machineFile = path.join(ui.server.runDir, 'ud', 'Machine', 'settings.json');
    const workspaceFile = path.join(ui.workspace, '.vscode', 'settings.json');
    const workspaceBefore = fs.readFileSync(workspaceFile, 'utf8');
    await paletteCommand(ui.page, 'Hermes: Set Up Agent…');
    const pick = ui.page.locator('.quick-input-widget').filter({ hasText: 'Set Up Scripted' });
    await pick.waitFor({ timeout: 30_000 });
    await pick.locator('.monaco-list-row').filter({ hasText: 'Enter the path…' }).click();
    const input = ui.page.locator('.quick-input-widget .quick-input-box input').first();
    await input.fill(installed);
    await input.press('Enter');
    const saved = await waitUntil('the machine settings to name the new executable', () => {
      const agents = (JSON.parse(fs.readFileSync(machineFile, 'utf8')) as { 'hermes.agents'?: { id: string; command: string }[] })['hermes.agents'];
      return Promise.resolve(agents?.find((a) => a.id === 'scripted' && a.command === installed));
    }, 15_000);
    assert.ok(saved !== undefined);
    assert.equal(fs.readFileSync(workspaceFile, 'utf8'), workspaceBefore, 'the workspace settings file is untouched');

    const chat = await patientChat(ui.page);
    await sendAndWaitForTurn(chat, 'hello after the setup');
    await conversation(chat).getByText('You said: hello after the setup').waitFor({ timeout: 15_000 });
    assert.match((await chat.locator('header.topbar').textContent()) ?? '', /Scripted/);
    assert.doesNotMatch((await chat.locator('header.topbar').textContent()) ?? '', /workspace override|Workspace Agent/);
    assert.equal(rig.acpSpawns().length, 1, 'the agent started once, through the new executable');
    assert.equal(fsExists(rig.evilMarker), false, "the workspace's agent command never ran");
    await ui.shot('r7-setup-agent-machine-scope');
    summaryLine(`R7 Set Up Agent in a trusted workspace with its own agents: wrote ${path.basename(installed)} to Machine/settings.json, .vscode/settings.json untouched, workspace agent ran: no`, false);
  });
});

/** One line of the scripted agent's `sizedText` (test/agents/toolScenarios.ts), to know what 50 MB looks like. */
function sizedTextShape(bytes: number, label: string): { length: number; lines: number; lastLine: string } {
  let size = 0;
  let i = 0;
  let lastLine = '';
  while (size < bytes) {
    i++;
    lastLine = `${label} ${String(i).padStart(6, '0')}: lorem ipsum dolor sit amet, consectetur adipiscing elit`;
    size += lastLine.length + 1;
  }
  return { length: size, lines: i, lastLine };
}

interface LatencyState {
  keys: Keystroke[];
  longTasks: LongTask[];
  eventDurations: number[];
  biggestMessage: number;
  messages: number;
}

/** Installs the in-page keystroke timer on the composer and the long-task / event-timing / message-size observers. */
async function installLatencyProbe(chat: FrameLocator): Promise<void> {
  await chat.locator('textarea').first().evaluate((box) => {
    interface Target {
      addEventListener(type: string, cb: (e: { timeStamp: number; data?: unknown }) => void, capture?: boolean): void;
    }
    const g = globalThis as unknown as {
      __r8?: LatencyState & { pending: number[] };
      performance: { now(): number };
      requestAnimationFrame(cb: () => void): number;
      addEventListener: Target['addEventListener'];
      PerformanceObserver: new (cb: (list: { getEntries(): { name: string; duration: number; startTime: number }[] }) => void) => { observe(o: Record<string, unknown>): void };
    };
    if (g.__r8 !== undefined) {
      return;
    }
    const st = { keys: [] as Keystroke[], longTasks: [] as LongTask[], eventDurations: [] as number[], biggestMessage: 0, messages: 0, pending: [] as number[] };
    g.__r8 = st;
    const t = box as unknown as Target;
    t.addEventListener('keydown', (e) => st.pending.push(e.timeStamp), true);
    t.addEventListener(
      'input',
      () => {
        const t0 = st.pending.shift();
        if (t0 !== undefined) {
          g.requestAnimationFrame(() => st.keys.push({ at: t0, ms: g.performance.now() - t0 }));
        }
      },
      true,
    );
    g.addEventListener('message', (e) => {
      st.messages++;
      try {
        st.biggestMessage = Math.max(st.biggestMessage, JSON.stringify(e.data).length);
      } catch {
        // not JSON-serialisable: not ours
      }
    });
    try {
      new g.PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          st.longTasks.push({ ms: e.duration, from: e.name, start: e.startTime });
        }
      }).observe({ type: 'longtask' });
      new g.PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (e.name === 'keydown' || e.name === 'keypress' || e.name === 'input' || e.name === 'keyup') {
            st.eventDurations.push(e.duration);
          }
        }
      }).observe({ type: 'event', durationThreshold: 16 });
    } catch {
      // observers missing: the keystroke samples still count
    }
  });
}

async function readLatency(chat: FrameLocator, reset: boolean): Promise<LatencyState> {
  return chat.locator('textarea').first().evaluate((_box, r) => {
    const g = globalThis as unknown as { __r8?: LatencyState & { pending: number[] } };
    const st = g.__r8;
    const out = { keys: [...(st?.keys ?? [])], longTasks: [...(st?.longTasks ?? [])], eventDurations: [...(st?.eventDurations ?? [])], biggestMessage: st?.biggestMessage ?? 0, messages: st?.messages ?? 0 };
    if (r && st !== undefined) {
      st.keys = [];
      st.longTasks = [];
      st.eventDurations = [];
      st.pending = [];
    }
    return out;
  }, reset);
}

function stats(xs: readonly number[]): { n: number; worst: number; p95: number; median: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { n: s.length, worst: s[s.length - 1] ?? 0, p95: at(0.95), median: at(0.5) };
}

suite('R8 hardening: a 50 MB tool output and a 10 MB diff in code-server + Chromium', function () {
  this.timeout(scaled(900_000, 600_000));
  const outputKb = 51_200;
  const diffKb = 10_240;
  const intervalMs = scaled(120, 250);
  const afterSamples = scaled(25, 10);
  const started = Date.now();
  /** `workbench`: VS Code's own editor loads the text meanwhile (its renderer thread is the chat's too). */
  interface Phase {
    name: string;
    workbench: boolean;
    samples: number[];
    slowKeys: Keystroke[];
    longTasks: LongTask[];
    events: number[];
    ms: number;
    trace: ChatWorkTrace;
  }
  const phases: Phase[] = [];
  let biggestMessage = 0;
  let outputShown = '';
  let editorCheck = '';
  let diffCheck = '';
  let heldByWorkbench: string[] = [];
  let vs: UiSession | undefined;
  let chat: FrameLocator;

  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };

  suiteSetup(async () => {
    vs = await openVsCode({ settings: { 'hermes.review.openDiffs': 'onClick' } });
    await vs.command('Hermes: New Session');
    chat = await patientChat(vs.page);
    await chat.getByRole('textbox', { name: 'Message', exact: true }).waitFor({ timeout: 30_000 });
    await installLatencyProbe(chat);
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-r8', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    const chatPhases = phases.filter((p) => !p.workbench);
    const s = stats(chatPhases.flatMap((p) => p.samples));
    const w = stats(phases.filter((p) => p.workbench).flatMap((p) => p.samples));
    const longest = (from: (t: LongTask) => boolean): number => Math.round(Math.max(0, ...phases.flatMap((p) => p.longTasks.filter(from).map((t) => t.ms))));
    // The same attribution on the workbench's phases, where slow keystrokes are the rule: how many it
    // clears shows the trace's clock lines up with the keystrokes'.
    const workbenchSlow = phases.filter((p) => p.workbench).flatMap((p) => p.slowKeys.map((k) => ({ ms: k.ms, ...blameSlowKey(k, p.trace) })));
    const workbenchWorst = workbenchSlow.reduce<(typeof workbenchSlow)[number] | undefined>((a, v) => (a === undefined || v.ms > a.ms ? v : a), undefined);
    const ownTasks = phases.flatMap((p) => p.trace.tasks);
    const ownLongest = ownTasks.reduce((a, t) => (t.ms > a.ms ? t : a), { ms: 0, wallMs: 0, gcMs: 0 });
    const ownLongestWall = Math.max(0, ...ownTasks.map((t) => t.wallMs));
    const phaseLine = (p: (typeof phases)[number]): string => {
      const ps = stats(p.samples);
      const tasks = [...p.longTasks].sort((x, y) => y.ms - x.ms).slice(0, 3).map((t) => `${Math.round(t.ms)} ms ${t.from}`);
      return `${p.name}: ${ps.n} keys, max ${Math.round(ps.worst)} ms, p95 ${Math.round(ps.p95)} ms${tasks.length > 0 ? `, long tasks ${tasks.join(', ')}` : ''}`;
    };
    summaryLine(
      `R8: ${outputKb / 1024} MB tool output + ${diffKb / 1024} MB diff; keystrokes timed in the browser (keydown → next frame after the input): ` +
        `while the payloads arrive and are shown ${s.n} keys, max ${Math.round(s.worst)} ms, p95 ${Math.round(s.p95)} ms, median ${Math.round(s.median)} ms (bound < 100 ms; over it with the chat's own work under ${chatShareMs} ms: ${heldByWorkbench.length === 0 ? 'none' : heldByWorkbench.join(', ')}) [${chatPhases.map(phaseLine).join('; ')}]; ` +
        `while VS Code's editor loads the full text (not bounded: the workbench's thread) ${w.n} keys, max ${Math.round(w.worst)} ms, p95 ${Math.round(w.p95)} ms, ${workbenchSlow.filter((v) => !v.chat).length} of ${workbenchSlow.length} over 100 ms with the chat's own work under ${chatShareMs} ms${workbenchWorst === undefined ? '' : ` (the slowest, ${Math.round(workbenchWorst.ms)} ms: ${workbenchWorst.why})`} [${phases.filter((p) => p.workbench).map(phaseLine).join('; ')}]; ` +
        `the chat's own work (script, style, layout; renderer trace): ${ownTasks.length} tasks in ${Math.max(0, ...phases.map((p) => p.trace.chatFrames))} frame(s), longest ${ownLongest.ms.toFixed(1)} ms of CPU (${ownLongest.wallMs.toFixed(0)} ms wall, GC inside it ${ownLongest.gcMs.toFixed(0)} ms), ${ownTasks.filter((t) => t.ms >= 50).length} of 50 ms CPU or more; longest by the wall clock ${ownLongestWall.toFixed(0)} ms (preemption on a busy machine included); ` +
        `the shared thread's longest task ${Math.round(Math.max(0, ...phases.map((p) => p.trace.longestTaskMs)))} ms (long-task API: "self" ${longest((t) => t.from === 'self')} ms, other contexts ${longest((t) => t.from !== 'self')} ms); largest message to the webview ${(biggestMessage / 1024).toFixed(0)} KB; ${outputShown}; ${editorCheck}; ${diffCheck}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    await vs?.close();
  });

  /**
   * `begin()`, then types one character every `intervalMs` into the composer until `until()` holds,
   * then `extra` more; all of it under a renderer trace that measures the chat's own work. The
   * phase joins the suite's figures unless it is a `probe` of the measure itself.
   */
  async function typeWhile(name: string, begin: () => Promise<unknown>, until: () => Promise<boolean>, extra: number, maxMs: number, kind: 'chat' | 'workbench' | 'probe' = 'chat'): Promise<Phase> {
    const box = chat.getByRole('textbox', { name: 'Message', exact: true });
    const t0 = Date.now();
    let done = false;
    const { trace } = await traceChatWork(ui().page, async () => {
      await begin();
      await box.click();
      await readLatency(chat, true);
      await markChatClock(chat);
      let after = 0;
      while (after < extra && Date.now() - t0 < maxMs) {
        await ui().page.keyboard.press('x');
        await sleep(intervalMs);
        if (!done) {
          done = await until();
        } else {
          after++;
        }
      }
    });
    const st = await readLatency(chat, true);
    const phase: Phase = { name, workbench: kind === 'workbench', samples: st.keys.map((k) => k.ms), slowKeys: st.keys.filter((k) => k.ms >= slowKeyMs), longTasks: st.longTasks, events: st.eventDurations, ms: Date.now() - t0, trace };
    if (kind !== 'probe') {
      biggestMessage = Math.max(biggestMessage, st.biggestMessage);
      phases.push(phase);
    }
    await box.fill('');
    assert.ok(done, `${name}: did not happen within ${maxMs / 1000} s`);
    return phase;
  }

  test(`a ${outputKb / 1024} MB tool output is shown shortened; the composer keeps answering; "Open full output" opens all of it`, async () => {
    const page = ui().page;
    const shape = sizedTextShape(outputKb * 1024, 'output line');
    const notes = turnFooters(chat);
    const before = await notes.count();
    await typeWhile('50 MB output arriving', () => sendPrompt(chat, `[big-output kb=${outputKb}]`), async () => (await notes.count()) > before, afterSamples, 300_000);
    const card = conversation(chat).getByRole('article', { name: 'terminal: cat big.log' }).last();
    const note = card.locator('.truncated');
    await note.waitFor({ timeout: 30_000 });
    const noteText = (await note.textContent()) ?? '';
    // The box's first 4,000 characters come at once, the rest when the page is next idle (toolContent.ts).
    const cardText = await waitUntil('the tail of the shortened output shown', async () => {
      const text = (await card.textContent()) ?? '';
      return text.includes(shape.lastLine) ? text : undefined;
    }, 10_000);
    const shownLength = await card.locator('.tool-text').first().evaluate((e: { textContent: string | null }) => (e.textContent ?? '').length);
    outputShown = `output: ${shownLength.toLocaleString('en-US')} of ${shape.length.toLocaleString('en-US')} characters shown ("${noteText.trim()}")`;
    await ui().shot('r8-big-output');
    assert.equal(noteText.replace(/\D/g, '').includes(String(shape.length)), true, `the note gives the full length ${shape.length}: ${noteText}`);
    assert.ok(shownLength < 20_000, `the card holds a shortened text (${shownLength} characters)`);
    assert.ok(cardText.includes('output line 000001:'), 'the head is shown');

    // Open full output: an editor with every line.
    const tabs = page.locator('.tabs-container .tab');
    const tabsBefore = await tabs.count();
    const openFull = card.getByRole('button', { name: 'Open full output' });
    await typeWhile('opening the full output in an editor', () => openFull.click(), async () => (await tabs.count()) > tabsBefore, afterSamples, 180_000, 'workbench');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.waitFor({ timeout: 60_000 });
    await editor.click({ position: { x: 200, y: 40 } });
    const status = page.locator('.statusbar-item[id*="status.editor.selection"], .statusbar-item.editor-status-selection').first();
    // Ctrl+End, then the status bar's line number (it may show the old position for a moment).
    let ln = 0;
    await waitUntil(
      'the cursor at the end of the full output',
      async () => {
        await page.keyboard.press('Control+End');
        await sleep(300);
        ln = Number(/Ln\s*([\d,]+)/.exec((await status.textContent()) ?? '')?.[1]?.replace(/,/g, '') ?? '0');
        return ln > 1 && ln - 1 === shape.lines;
      },
      30_000,
      500,
    ).catch(() => undefined);
    await page.locator('.editor-instance .view-lines').first().getByText(shape.lastLine).waitFor({ timeout: 30_000 });
    await ui().shot('r8-full-output-editor');
    editorCheck = `"Open full output" → editor with ${ln - 1} lines (expected ${shape.lines}), last line "${shape.lastLine.slice(0, 18)}…" on screen`;
    assert.equal(ln - 1, shape.lines, 'the editor holds every line of the output');
    // Typing in the chat with the 50 MB editor open.
    await typeWhile('50 MB editor open', () => Promise.resolve(), () => Promise.resolve(true), afterSamples, 120_000);
    for (const p of phases) {
      const s = stats(p.samples);
      assert.ok(s.n >= 3, `${p.name}: keystrokes were timed (${s.n})`);
    }
  });

  test(`a ${diffKb / 1024} MB diff is shown as a summary that opens the diff editor; the composer keeps answering`, async () => {
    const page = ui().page;
    const notes = turnFooters(chat);
    const before = await notes.count();
    await typeWhile('10 MB diff arriving', () => sendPrompt(chat, `[big-diff kb=${diffKb}]`), async () => (await notes.count()) > before, afterSamples, 300_000);
    const summary = conversation(chat).locator('.diff-summary').last();
    await summary.waitFor({ timeout: 30_000 });
    const label = ((await summary.textContent()) ?? '').trim();
    await ui().shot('r8-big-diff-card');
    const tabs = page.locator('.tabs-container .tab');
    const tabsBefore = await tabs.count();
    await typeWhile('opening the 10 MB diff editor', () => summary.click(), async () => (await tabs.count()) > tabsBefore, afterSamples, 180_000, 'workbench');
    const diffEditor = page.locator('.monaco-diff-editor').first();
    await diffEditor.waitFor({ timeout: 60_000 });
    await diffEditor.locator('.view-lines').first().getByText(/row\s000001/).first().waitFor({ timeout: 60_000 });
    await ui().shot('r8-big-diff-editor');
    diffCheck = `diff: card "${label.slice(0, 60)}" → diff editor "${((await tabs.last().textContent()) ?? '').trim().slice(0, 60)}"`;
    await typeWhile('10 MB diff editor open', () => Promise.resolve(), () => Promise.resolve(true), afterSamples, 120_000);
    assert.ok(biggestMessage < 1024 * 1024, `no message to the webview carries the big payloads (largest ${biggestMessage} characters)`);
  });

  test('every keystroke timed in the browser while the payloads arrive and are shown showed within 100 ms, or the chat\'s own work in it stayed under 50 ms (the shared thread was held)', () => {
    const chatPhases = phases.filter((p) => !p.workbench);
    const all = stats(chatPhases.flatMap((p) => p.samples));
    assert.ok(chatPhases.length >= 4, `the arriving and shown phases ran (${chatPhases.map((p) => p.name).join(', ')})`);
    assert.ok(all.n >= 10, `keystrokes were timed (${all.n})`);
    // code-server serves webviews from the workbench's origin, so they share its renderer thread (a
    // desktop VS Code webview runs in a process of its own), and on a busy machine other processes
    // preempt that thread. A keystroke over the bound is the chat's when the renderer trace shows
    // the chat's own work (script, style, layout) in its window reaching half the bound; below
    // that it is reported with what the thread did meanwhile. Each trace must carry the mark that
    // lines its clock up with the keystrokes'.
    for (const p of chatPhases) {
      assert.ok(p.trace.clockMs !== undefined, `${p.name}: the trace carries the chat's clock mark`);
    }
    const verdicts = chatPhases.flatMap((p) => p.slowKeys.map((k) => ({ phase: p.name, ms: Math.round(k.ms), ...blameSlowKey(k, p.trace) })));
    heldByWorkbench = verdicts.filter((v) => !v.chat).map((v) => `${v.phase}: ${v.ms} ms (${v.why})`);
    const chats = verdicts.filter((v) => v.chat).map((v) => `${v.phase}: ${v.ms} ms (${v.why})`);
    assert.deepEqual(chats, [], `worst ${all.worst.toFixed(0)} ms, p95 ${all.p95.toFixed(0)} ms over ${all.n} keystrokes; the chat's keystrokes of 100 ms or more`);
    // While VS Code's editor loads 50 MB / 10 MB the shared renderer thread is the workbench's: the
    // chat's own work must still never hold it for 100 ms. The long-task API blames the chat for
    // any frame update in which only the chat ran a callback, so the measure is the renderer trace,
    // in CPU time: the wall clock also counts the time other processes (the extension host busy
    // with the same 50 MB) preempted the renderer.
    for (const p of phases) {
      assert.ok(p.trace.chatFrames > 0 && p.trace.tasks.length > 0, `${p.name}: the trace saw the chat's script run (${p.trace.tasks.length} tasks in ${p.trace.chatFrames} frames)`);
    }
    const own = phases.flatMap((p) => p.trace.tasks.filter((t) => t.ms >= 100).map((t) => `${p.name}: ${Math.round(t.ms)} ms`));
    assert.deepEqual(own, [], "no task of the chat's own work (script, style, layout) took 100 ms of CPU or more");
  });

  test('the same measure blames a chat made slow on purpose: a 120 ms input handler in its document fails every keystroke', async () => {
    // The test above clears a slow keystroke when the chat did little in it. This shows the trace
    // sees the chat's work when there is some, on the real page: the handler runs in the chat's
    // document like the chat's own script, and each keystroke it delays is put on the chat.
    const box = chat.getByRole('textbox', { name: 'Message', exact: true });
    const slowHandler = (on: boolean): Promise<void> =>
      box.evaluate((box, add) => {
        const b = box as unknown as { addEventListener(type: string, cb: () => void): void; removeEventListener(type: string, cb: () => void): void };
        const g = globalThis as unknown as { __r8slow?: () => void; performance: { now(): number } };
        g.__r8slow ??= (): void => {
          const until = g.performance.now() + 120;
          while (g.performance.now() < until) {
            // busy: the chat's thread is held
          }
        };
        if (add) {
          b.addEventListener('input', g.__r8slow);
        } else {
          b.removeEventListener('input', g.__r8slow);
        }
      }, on);
    await slowHandler(true);
    let phase: Phase;
    try {
      phase = await typeWhile('a chat made slow on purpose', () => Promise.resolve(), () => Promise.resolve(true), 5, 60_000, 'probe');
    } finally {
      await slowHandler(false);
    }
    const verdicts = phase.slowKeys.map((k) => ({ ms: Math.round(k.ms), ...blameSlowKey(k, phase.trace) }));
    summaryLine(`R8 probe: a 120 ms input handler in the chat's document: ${phase.samples.length} keys, ${verdicts.length} over 100 ms, ${verdicts.filter((v) => v.chat).length} put on the chat (${verdicts.slice(0, 2).map((v) => `${v.ms} ms: ${v.why}`).join('; ')})`);
    assert.ok(phase.samples.length >= 3 && verdicts.length === phase.samples.length, `every keystroke was slow (${verdicts.length} of ${phase.samples.length})`);
    assert.deepEqual(verdicts.filter((v) => !v.chat), [], 'every slow keystroke is put on the chat');
  });
});

function fsExists(p: string): boolean {
  return fs.existsSync(p);
}
