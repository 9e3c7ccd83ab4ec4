import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../test/support/paths';

/**
 * P4 — footprint: `activate()` in a real extension host (code-server, the test harness), and the
 * bundle sizes esbuild's metafile reports for the production build (`dist/sizes.json`).
 */
export interface P4Options {
  /** The extension to activate: a copy of the production build (scripts/bench.mjs makes it). */
  readonly extensionDir: string;
  /** `dist/sizes.json` of the production build. */
  readonly sizesFile: string;
  /** Extension hosts to start; the fastest activation counts (noise only ever adds). */
  readonly runs: number;
}

export interface P4Result {
  /** What `activate()` itself took (its own measurement, returned in the API): the target. */
  readonly activationMs: number;
  /** `require()` of the bundle: parsing it and running its top-level code (VS Code does it first). */
  readonly loadMs: number;
  /** `await extension.activate()` once loaded: VS Code's part (context, storage) plus `activate()`. */
  readonly activateCallMs: number;
  readonly runsActivationMs: readonly number[];
  /** Whether activating loaded the chat core already (it should not: it loads on first use). */
  readonly coreLoadedAtActivation: boolean;
  /** Loading the chat core (`dist/extensionCore.js`) and building it, on its first use after activation. */
  readonly coreLoadMs: number;
  /** The activation shell (`dist/extension.js`): what activation loads. */
  readonly extensionBytes: number;
  /** The chat core chunk, loaded on first use. */
  readonly coreBytes: number;
  /** The initial webview bundle (main.js), its stylesheet, and the scripts loaded later (cards.js, dist/webview/hljs/). */
  readonly webviewJsBytes: number;
  readonly webviewCssBytes: number;
  readonly lazyScripts: number;
  readonly lazyBytes: number;
  readonly lazyCoreBytes: number;
  /** The cards chunk (dist/webview/cards.js), fetched when the page is idle after its first paint. */
  readonly cardsBytes: number;
}

interface HarnessResult {
  readonly exitCode: number;
  readonly output: string;
}

interface HarnessModule {
  runExtensionTests(
    this: void,
    options: {
      extensionDevelopmentPath: string;
      extensionTestsPath: string;
      workspace: string;
      timeoutMs?: number;
      echo?: boolean;
    },
  ): Promise<HarnessResult>;
}

interface InstallModule {
  ensureHarness(this: void, options?: { quiet?: boolean }): Promise<unknown>;
}

interface Activation {
  readonly activationMs: number;
  readonly loadMs: number;
  readonly activateCallMs: number;
  readonly wasActive: boolean;
  readonly coreLoadedAtActivation: boolean;
  readonly coreLoadMs: number;
}

function sizeOf(sizes: Record<string, number>, file: string): number {
  const bytes = sizes[file];
  if (bytes === undefined) {
    throw new Error(`${file} is not in the production build's sizes.json`);
  }
  return bytes;
}

export async function runP4(options: P4Options): Promise<P4Result> {
  const sizes = JSON.parse(fs.readFileSync(options.sizesFile, 'utf8')) as Record<string, number>;
  const lazy = Object.entries(sizes).filter(([file]) => file.startsWith('dist/webview/hljs/') && file.endsWith('.js'));
  const harness = path.join(repoRoot, 'test', 'harness');
  const { ensureHarness } = (await import(pathToFileURL(path.join(harness, 'install.mjs')).href)) as InstallModule;
  await ensureHarness({ quiet: true });
  const { runExtensionTests } = (await import(pathToFileURL(path.join(harness, 'runExtensionTests.mjs')).href)) as HarnessModule;
  const runs: Activation[] = [];
  for (let i = 0; i < options.runs; i++) {
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-ws-')));
    try {
      const r = await runExtensionTests({
        extensionDevelopmentPath: options.extensionDir,
        extensionTestsPath: path.join(repoRoot, 'out', 'bench', 'p4ActivateRunner.js'),
        workspace,
        timeoutMs: 120_000,
        echo: false,
      });
      const line = /HERMES_BENCH_P4 (\{.*\})/.exec(r.output)?.[1];
      if (r.exitCode !== 0 || line === undefined) {
        throw new Error(`the extension host run failed (exit ${r.exitCode}):\n${r.output.split('\n').slice(-20).join('\n')}`);
      }
      const a = JSON.parse(line) as Activation;
      if (a.wasActive) {
        throw new Error('the extension was already active when the benchmark asked: nothing was measured');
      }
      runs.push(a);
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }
  const best = [...runs].sort((a, b) => a.activationMs - b.activationMs)[0];
  if (best === undefined) {
    throw new Error('no P4 run');
  }
  return {
    activationMs: best.activationMs,
    loadMs: Math.min(...runs.map((r) => r.loadMs)),
    activateCallMs: Math.min(...runs.map((r) => r.activateCallMs)),
    runsActivationMs: runs.map((r) => r.activationMs),
    coreLoadedAtActivation: runs.some((r) => r.coreLoadedAtActivation),
    coreLoadMs: Math.min(...runs.map((r) => r.coreLoadMs)),
    extensionBytes: sizeOf(sizes, 'dist/extension.js'),
    coreBytes: sizeOf(sizes, 'dist/extensionCore.js'),
    webviewJsBytes: sizeOf(sizes, 'dist/webview/main.js'),
    webviewCssBytes: sizeOf(sizes, 'dist/webview/main.css'),
    lazyScripts: lazy.length,
    lazyBytes: lazy.reduce((sum, [, bytes]) => sum + bytes, 0),
    lazyCoreBytes: sizeOf(sizes, 'dist/webview/hljs/core.js'),
    cardsBytes: sizeOf(sizes, 'dist/webview/cards.js'),
  };
}
