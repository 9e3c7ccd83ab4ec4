// Performance benchmarks (not part of npm test): `npm run bench`. See bench/README.md.
//   npm run bench                       build, run P1–P9, print the table, write bench/results.json
//   npm run bench -- --check            … and exit 1 when a target is missed (manual and release checks)
//   npm run bench -- --only p2,p3       run some of them
//   npm run bench -- --wait-load 1.5    before each benchmark, wait (≤ 20 min) for a 1-minute load average below 1.5
//   npm run bench -- --no-build         use the current out/ and dist/ (P4 still needs the production build)
// Every figure is a ratio measured within one run (or an absolute size/time next to its budget).
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    only: { type: 'string' },
    'wait-load': { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});
const selected = new Set((values.only ?? 'p1,p2,p3,p4,p5,p6,p7,p8,p9').split(',').map((s) => s.trim().toLowerCase()));
const maxLoad = values['wait-load'] !== undefined ? Number(values['wait-load']) : undefined;

/** Runs a command; resolves with its stdout (stderr goes through; its first error line names a failure). */
function run(cmd, args, { capture = true } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      process.stderr.write(d);
      err = (err + d).slice(-20_000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const why = err.split('\n').find((l) => /^\w*Error\b/.test(l.trim()))?.trim();
      return code === 0 ? resolve(out) : reject(new Error(`${args.at(-1) ?? cmd} exited with ${code}${why !== undefined ? `: ${why}` : ''}`));
    });
  });
}

async function waitForLoad() {
  if (maxLoad === undefined) {
    return;
  }
  const deadline = Date.now() + 20 * 60_000;
  while (loadavg()[0] >= maxLoad && Date.now() < deadline) {
    console.log(`[bench] load average ${loadavg()[0].toFixed(2)} ≥ ${maxLoad}: waiting 30 s`);
    await new Promise((r) => setTimeout(r, 30_000));
  }
  if (loadavg()[0] >= maxLoad) {
    console.log(`[bench] load average still ${loadavg()[0].toFixed(2)} after 20 minutes: measuring anyway`);
  }
}

/** One benchmark in its own process; its last stdout line is its JSON result. */
async function bench(name, args = []) {
  await waitForLoad();
  const load = loadavg()[0];
  const started = Date.now();
  console.log(`[bench] ${name} (load average ${load.toFixed(2)})`);
  const out = await run(process.execPath, [join(root, 'out', 'bench', 'runBench.js'), name, ...args]);
  const last = out.trim().split('\n').at(-1) ?? '';
  return { ...JSON.parse(last), loadAverage: load, seconds: (Date.now() - started) / 1000 };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (v) => `${v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US')} ms`;
const x = (v) => `${v.toFixed(2)}×`;
const n = (v) => Math.round(v).toLocaleString('en-US');

const results = {};
/**
 * One benchmark's rows. A benchmark that fails (its process exits non-zero, a check inside it
 * throws) is a failed gated row with its error, and the others still run and report.
 */
async function section(name, fn) {
  if (!selected.has(name)) {
    return;
  }
  try {
    await fn();
  } catch (e) {
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    results[name] = { failed: message };
    row(`${name.toUpperCase()} did not finish`, message, 'finishes', false);
  }
}
const rows = [];
/**
 * A table row; `ok` undefined = reported only, no target. `gate` false: the target is shown with
 * ✓/✗ but does not fail `--check` (figures the issue asks to report, not to gate).
 */
function row(bench, measured, target, ok, gate = true) {
  rows.push({ bench, measured, target, ok, gate });
}
const p95max = (p95, max) => `p95 ${ms(p95)}, max ${ms(max)}`;
/** P9: how long the slowest key waited before its page dispatched it (the rest: handling it and the next frame). */
const waitOfSlowest = (round) => {
  const slowest = round.typingMs.indexOf(Math.max(...round.typingMs));
  const wait = round.typingWaitMs?.[slowest];
  return wait === undefined ? 'not measured' : `${ms(wait)} of the slowest key`;
};

// Builds: the production build first (P4 measures what ships: sizes, and activate() of a copy of
// it), then the normal build plus out/ (the benchmark programs), which also puts dist/ back.
let productionDir;
if (!values['no-build']) {
  if (selected.has('p4')) {
    console.log('[bench] node scripts/build.mjs --production');
    await run(process.execPath, ['scripts/build.mjs', '--production'], { capture: false });
    productionDir = mkdtempSync(join(tmpdir(), 'hermes-bench-ext-'));
    for (const f of ['package.json', 'package.nls.json', 'LICENSE', 'l10n', 'media', 'dist']) {
      if (existsSync(join(root, f))) {
        cpSync(join(root, f), join(productionDir, f), { recursive: true, filter: (src) => !src.endsWith('.map') });
      }
    }
  }
  console.log('[bench] node scripts/build.mjs --tests');
  await run(process.execPath, ['scripts/build.mjs', '--tests'], { capture: false });
}

try {
  await section('p1', async () => {
    const r = (results.p1 = await bench('p1'));
    row(
      'P1 host pipeline (agent → SDK framing → reducer → patches)',
      `${x(r.ratio)} of JSON.parse: ${n(r.frames)} frames in ${ms(r.pipelineMs)} vs ${ms(r.baselineMs)} (${n(r.framesPerSecond)} frames/s, ${n(r.patches)} patches); CPU ${ms(r.pipelineCpuMs)} vs ${ms(r.baselineCpuMs)} = ${x(r.cpuRatio)}, ${r.cpuUsPerFrame.toFixed(1)} µs/frame`,
      '≥ 0.5×',
      r.ratio >= 0.5,
    );
    row(
      'P1 host event-loop delay while the pipeline runs',
      `p99 ${ms(r.loopDelayP99Ms)} (p50 ${ms(r.loopDelayP50Ms)}, max ${ms(r.loopDelayMaxMs)}; monitorEventLoopDelay, 1 ms resolution); an idle Node process meanwhile: p99 ${ms(r.idleLoopDelayP99Ms)} (p50 ${ms(r.idleLoopDelayP50Ms)}, max ${ms(r.idleLoopDelayMaxMs)})`,
      'p99 < 20 ms',
      r.loopDelayP99Ms < 20,
    );
  });
  await section('p2', async () => {
    // Three runs (each a process of its own), gated on the median: one run cannot tell 2× from the
    // noise on a 2-core VM (issue 43: 1.84–2.88× for the same code). The median run's figures are shown.
    const runs = [];
    for (let i = 0; i < 3; i++) {
      runs.push(await bench('p2'));
    }
    const byRatio = [...runs].sort((a, b) => a.ratio - b.ratio);
    const r = (results.p2 = { ...byRatio[1], runs });
    row(
      'P2 streaming render (webview, one message), median of 3 runs',
      `${x(r.ratio)} of rendering it once (runs: ${runs.map((run) => x(run.ratio)).join(', ')}; spread ${x(byRatio[0].ratio)}–${x(byRatio[2].ratio)}): ${n(r.chunks)} chunks (${n(r.chars)} chars) at ${n(r.chunksPerSecond)}/s in ${n(r.patches)} patches, main-thread CPU ${ms(r.stream.cpuMs)} vs ${ms(r.once.cpuMs)} (wall-clock TaskDuration ${x(r.ratioWall)})`,
      '≤ 2×',
      r.ratio <= 2,
    );
    row(
      'P2 linearity: CPU per character shown, last quarter of the stream vs the first',
      `${x(r.growth)}: main-thread CPU ${ms(r.lastQuarterCpuMs)} for ${n(r.lastQuarterChars)} characters vs ${ms(r.firstQuarterCpuMs)} for ${n(r.firstQuarterChars)}, the message 4× longer by then (CPU alone ${x(r.growthCpu)})`,
      '≤ 1.2×',
      r.growth <= 1.2,
    );
    const worstLong = Math.max(...runs.map((run) => run.longTasksCpu ?? 0));
    if (r.longTasksCpu !== undefined) {
      row(
        'P2 webview long tasks while streaming (renderer main thread, CDP trace; the median run, gated on all three)',
        `${n(r.longTasksCpu)} of ${n(r.tasks)} tasks over 50 ms of CPU (longest ${ms(r.longestTaskCpuMs)} CPU, ${ms(r.longestTaskWallMs)} wall; ${n(r.longTasksWall)} over 50 ms wall-clock, which a busy machine inflates)${(r.longestTasks ?? []).length > 0 ? `; longest by CPU: ${r.longestTasks.map((t) => `${ms(t.cpuMs)} (${t.parts.slice(0, 3).join(', ')})`).join('; ')}` : ''}`,
        '0 over 50 ms',
        worstLong === 0,
      );
    }
    if (r.frameP95Ms !== undefined) {
      row(
        'P2 frame time while streaming 1,000 chunks/s',
        `p95 ${ms(r.frameP95Ms)} main-thread CPU (wall ${ms(r.frameP95WallMs)}), max ${ms(r.frameMaxMs)}, ${n(r.framesOverBudget)} of ${n(r.frames)} frames over 16.7 ms`,
        'report',
        undefined,
      );
    }
  });
  await section('p3', async () => {
    const r = (results.p3 = await bench('p3'));
    row(
      'P3 one chunk in a long session',
      `${x(r.ratio)}: ${n(r.long.entries)} entries ${r.long.totalUs.toFixed(0)} µs vs ${n(r.short.entries)} entries ${r.short.totalUs.toFixed(0)} µs per chunk (host ${r.long.hostUs.toFixed(1)} vs ${r.short.hostUs.toFixed(1)} µs = ${x(r.hostRatio)}; webview ${r.long.webviewUs.toFixed(0)} vs ${r.short.webviewUs.toFixed(0)} µs = ${x(r.webviewRatio)})`,
      '≤ 1.2×',
      r.ratio <= 1.2,
    );
    row(
      'P3 webview at 2,000 entries',
      `JS heap ${r.long.webviewHeapMB.toFixed(1)} MB, ${n(r.long.webviewNodes)} DOM nodes, snapshot ${(r.long.snapshotBytes / 1048576).toFixed(1)} MB rendered in ${ms(r.long.snapshotRenderMs)}`,
      'report',
      undefined,
    );
  });
  await section('p5', async () => {
    const r = (results.p5 = await bench('p5'));
    row(
      'P5 100,000-chunk reply (~400 KB of Markdown) at 1,000 chunks/s',
      `${x(r.ratio)} of rendering it once (CPU ${ms(r.streamCpuMs)} vs ${ms(r.onceCpuMs)}, typing and scrolling probes included); linearity ${x(r.growth)}; ${n(r.longTasksCpu)} tasks over 50 ms of CPU (longest ${ms(r.longestTaskCpuMs)}); frames ${p95max(r.frameP95CpuMs, r.frameMaxCpuMs)} CPU; ${r.heapMB.toFixed(1)} MB heap, ${n(r.nodes)} DOM nodes at the end`,
      'linear (≤ 1.2×)',
      r.growth <= 1.2,
      false,
    );
    row(
      'P5 interactive while it streams (wall clock)',
      `typing: key → frame ${p95max(r.typingP95Ms, r.typingMaxMs)} (${n(r.typingSamples)} keys); scrolling: frame gaps ${p95max(r.scrollGapP95Ms, r.scrollGapMaxMs)} (${n(r.scrollFrames)} frames)`,
      '< 50 ms per frame',
      r.typingP95Ms < 50 && r.scrollGapP95Ms < 50,
      false,
    );
  });
  await section('p6', async () => {
    const r = (results.p6 = await bench('p6'));
    row(
      'P6 one chunk in a session of 5,000 entries with 50 MB of tool output',
      `${x(r.ratio)} (webview: the median of ${r.big.webviewRunsUs.length} runs each, ${r.big.webviewRunsUs.map((u) => u.toFixed(0)).join(' / ')} vs ${r.small.webviewRunsUs.map((u) => u.toFixed(0)).join(' / ')} µs): ${n(r.big.entries)} entries ${(r.big.hostUs + r.big.webviewUs).toFixed(0)} µs vs ${n(r.small.entries)} entries ${(r.small.hostUs + r.small.webviewUs).toFixed(0)} µs per chunk (host ${x(r.hostRatio)}, webview ${x(r.webviewRatio)}; a reply streamed while the user types and scrolls: ${x(r.probedRatio)}, ${r.big.webviewProbedUs.toFixed(0)} vs ${r.small.webviewProbedUs.toFixed(0)} µs in the webview); ${(r.toolOutputBytes / 1048576).toFixed(1)} MB of tool output; snapshot ${(r.big.snapshotBytes / 1048576).toFixed(1)} MB projected in ${ms(r.big.snapshotProjectMs)}, rendered in ${ms(r.big.snapshotRenderCpuMs)} CPU; ${r.big.heapMB.toFixed(1)} MB heap, ${n(r.big.nodes)} DOM nodes`,
      '≤ 1.2×, also while the user types and scrolls',
      r.ratio <= 1.2 && r.probedRatio <= 1.2,
    );
    row(
      'P6 interactive at 5,000 entries while a reply streams (wall clock)',
      `typing: key → frame ${p95max(r.typingP95Ms, r.typingMaxMs)}; scrolling: frame gaps ${p95max(r.scrollGapP95Ms, r.scrollGapMaxMs)}`,
      '< 50 ms per frame',
      r.typingP95Ms < 50 && r.scrollGapP95Ms < 50,
      false,
    );
  });
  await section('p7', async () => {
    const r = (results.p7 = await bench('p7'));
    const worst = r.longTasks.slice(0, 3).map((t) => `${ms(t.cpuMs)} CPU / ${ms(t.ms)} wall (${t.parts.slice(0, 2).join(', ')})`).join('; ');
    row(
      'P7 code-server: workbench timers while a 20,000-chunk reply streams at 1,000/s',
      `longest gap between 10 ms ticks ${ms(r.timerMaxGapMs)}, ${n(r.timerGapsOver50)} of ${n(r.timerTicks)} over 50 ms; renderer tasks over 50 ms: ${n(r.longTaskCount)} by wall clock, ${n(r.longTaskCpuCount)} by CPU time${worst !== '' ? `; longest by CPU: ${worst}` : ''}; reply done ${ms(r.streamWallMs)} after sending`,
      'no gap over 50 ms',
      r.timerGapsOver50 === 0,
      false,
    );
  });
  await section('p8', async () => {
    const r = (results.p8 = await bench('p8'));
    for (const side of r.sides) {
      row(
        `P8 open a session of ${n(side.entries)} entries (${n((side.turns * 50_000) / 1e6)} MB of tool output)`,
        `${ms(side.openCpuMs)} of webview main-thread CPU from the snapshot to its frames (wall ${ms(side.openWallMs)}); ${n(side.transcriptNodes)} DOM nodes in the transcript (${n(side.rows)} rows); heap ${side.heapMB.toFixed(1)} MB; snapshot ${(side.snapshotBytes / 1048576).toFixed(2)} MB (${n(side.sentEntries)} entries whole, the rest outlined; projected in ${ms(side.projectMs)})`,
        '≤ 300 ms, ≤ 5,000 nodes, heap ≤ 20 MB',
        side.openCpuMs <= 300 && side.transcriptNodes <= 5_000 && side.heapMB <= 20,
      );
      row(
        `P8 long tasks while opening ${n(side.entries)} entries (CDP trace)`,
        `${n(side.longTasksCpu)} of ${n(side.tasks)} tasks over 50 ms of CPU (longest ${ms(side.longestTaskCpuMs)})${side.longestTasks.length > 0 ? `: ${side.longestTasks.map((t) => `${ms(t.cpuMs)} (${t.parts.slice(0, 3).join(', ')})`).join('; ')}` : ''}`,
        '0 over 50 ms',
        side.longTasksCpu === 0,
      );
    }
    row('P8 opening 20,001 entries vs 5,001 (CPU)', `${x(r.growth)}`, 'report (what is shown is the same)', undefined);
  });
  await section('p9', async () => {
    const r = (results.p9 = await bench('p9'));
    for (const round of r.rounds) {
      row(
        `P9 ${n(r.chats)} chats side by side in code-server, each streaming (${round.mode === 'paced' ? '10 chunks/s for 20 s' : 'a burst of 20,000 chunks'}): the last chat's end`,
        `${ms(round.lastEndLagMs)} after the agent's last chunk (each chat: ${round.endLagsMs.map((v) => ms(v)).join(', ')}); the agents took ${ms(round.agentMs)}, at most ${n(round.agentsAtOnce ?? 0)} streaming at once; Enter in ${n(r.chats)} composers ${ms(round.sendAllMs)}`,
        '≤ 500 ms',
        round.lastEndLagMs <= 500,
      );
      row(
        `P9 typing in the focused chat while ${n(r.chats)} chats stream (${round.mode})`,
        `key → frame ${p95max(round.typingP95Ms, round.typingMaxMs)} (${n(round.typingMs.length)} keys; of it, waiting to be dispatched: ${waitOfSlowest(round)})`,
        'p95 < 50 ms, max < 100 ms',
        round.typingP95Ms < 50 && round.typingMaxMs < 100,
      );
    }
    row(
      `P9 extension host memory 60 s after closing ${n(r.chats)} chats`,
      `${r.memoryAfterMB.toFixed(0)} MB resident vs ${r.memoryBeforeMB.toFixed(0)} MB before they opened (${x(r.memoryRatio)}; ${r.memoryOpenMB.toFixed(0)} MB with them open)`,
      'within 20%',
      r.memoryRatio <= 1.2,
    );
  });
  await section('p4', async () => {
    if (productionDir === undefined) {
      throw new Error('P4 needs the production build: run without --no-build');
    }
    const r = (results.p4 = await bench('p4', [productionDir, join(productionDir, 'dist', 'sizes.json')]));
    // Issue 43: what a user waits for is loading the bundle (require: parse + top-level code) plus activate().
    row(
      'P4 loading the extension bundle + activate() in the extension host',
      `${ms(r.loadMs + r.activationMs)} (loading the bundle ${ms(r.loadMs)}, activate() ${ms(r.activationMs)}); VS Code's activate() call in all ${ms(r.activateCallMs)}${r.coreLoadedAtActivation ? '; the chat core loaded at activation (it should wait for its first use)' : ''}`,
      '≤ 30 ms',
      r.loadMs + r.activationMs <= 30 && !r.coreLoadedAtActivation,
    );
    row('P4 initial extension bundle (production)', `${kb(r.extensionBytes)} (the activation shell; the chat core ${kb(r.coreBytes)} loads on first use)`, '≤ 350 KB', r.extensionBytes <= 350 * 1024);
    // Reported: what the first command, or the chat view, pays once (loading and building the core).
    row('P4 the chat core on its first use (loading dist/extensionCore.js + building it)', ms(r.coreLoadMs), '', undefined);
    row(
      'P4 webview bundle (production, minified)',
      `${kb(r.webviewJsBytes)} JS initially (+ ${kb(r.webviewCssBytes)} CSS); the cards chunk ${kb(r.cardsBytes)} when idle; highlight.js loaded on demand: ${n(r.lazyScripts)} scripts, ${kb(r.lazyBytes)} in all, engine ${kb(r.lazyCoreBytes)}`,
      '≤ 150 KB',
      r.webviewJsBytes <= 150 * 1024,
    );
  });
} finally {
  if (productionDir !== undefined) {
    rmSync(productionDir, { recursive: true, force: true });
  }
}

const checked = rows.filter((r) => r.ok !== undefined && r.gate);
const missed = checked.filter((r) => r.ok === false);
const missedReported = rows.filter((r) => r.ok === false && !r.gate);
const table = [
  '| bench | measured | target | ok |',
  '| --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.bench} | ${r.measured} | ${r.target} | ${r.ok === undefined ? '–' : r.ok ? '✓' : '✗'} |`),
].join('\n');
console.log(`\n${table}\n`);
console.log(`${checked.length - missed.length} of ${checked.length} targets met${missed.length > 0 ? `; missed: ${missed.map((r) => r.bench).join(', ')}` : ''}`);
if (missedReported.length > 0) {
  console.log(`reported (not gated), over their target: ${missedReported.map((r) => r.bench).join(', ')}`);
}

let commit = '';
try {
  commit = (await run('git', ['rev-parse', 'HEAD'])).trim();
} catch {
  // not a git checkout
}
mkdirSync(join(root, 'bench'), { recursive: true });
writeFileSync(
  join(root, 'bench', 'results.json'),
  `${JSON.stringify({ date: new Date().toISOString(), commit, machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version }, rows, results }, null, 2)}\n`,
);
console.log('[bench] wrote bench/results.json');
if (values.check && missed.length > 0) {
  process.exitCode = 1;
}
