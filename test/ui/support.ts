import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BrowserContext, FrameLocator, Page } from 'playwright-core';
import { repoRoot, scriptedAgentPath } from '../support/paths';
import { DeadlineError, within } from '../unit/hardening/support';
import { tempDir } from '../support/tempDirs';

/** The harness modules are plain ESM (test/harness); these are the parts the UI tests use. */
interface CodeServer {
  readonly url: string;
  readonly runDir: string;
  /** code-server's main process, also the id of its process group (the extension host is in the group). */
  readonly pid: number;
  baseUrl(folder?: string): string;
  stop(): Promise<void>;
}
interface CodeServerModule {
  startCodeServer(o: {
    workspace: string;
    vsixPath?: string;
    extensionsDir?: string;
    userSettings?: Record<string, unknown>;
    machineSettings?: Record<string, unknown>; env?: Record<string, string>; logName?: string; workspaceTrust?: boolean }): Promise<CodeServer>;
}
interface BrowserModule {
  launchBrowser(o?: { artifactsDir?: string; viewport?: { width: number; height: number } }): Promise<{ context: BrowserContext; page: Page; artifactsDir: string; close(): Promise<void> }>;
  openWorkbench(page: Page, url: string): Promise<void>;
  runCommand(page: Page, title: string): Promise<void>;
  webviewFrame(page: Page, o?: { title?: string; index?: number; timeoutMs?: number }): Promise<FrameLocator>;
  screenshot(page: Page, name: string, o?: { fullPage?: boolean }): Promise<string>;
  collectNonLoopbackRequests(page: Page): string[];
}

async function harness<T>(file: string): Promise<T> {
  const specifier = path.join(repoRoot, 'test', 'harness', file);
  return (await import(specifier)) as T;
}

let packaged: string | undefined;

/**
 * The packaged extension, installed into code-server the way a user installs it: the .vsix
 * `npm test` built once for this run (HERMES_TEST_VSIX, from scripts/package.mjs), else packaged
 * here once per process the same way (a production build of what ships, staged, packed by vsce).
 */
export function packageExtension(): string {
  if (packaged !== undefined) {
    return packaged;
  }
  const given = process.env.HERMES_TEST_VSIX;
  if (given !== undefined && given !== '' && fs.existsSync(given)) {
    packaged = given;
    return given;
  }
  const out = path.join(repoRoot, '.package', 'ui', 'hermes-acp.vsix');
  execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'package.mjs'), '--out', out], { cwd: repoRoot, stdio: 'pipe' });
  packaged = out;
  return out;
}

export interface UiSession {
  readonly page: Page;
  readonly server: CodeServer;
  readonly workspace: string;
  readonly nonLoopback: string[];
  /** The chat webview's content frame. */
  chat(): Promise<FrameLocator>;
  command(title: string): Promise<void>;
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface UiOptions {
  readonly agentEnv?: Record<string, string>;
  readonly settings?: Record<string, unknown>;
  /** Extra machine-scoped settings (code-server reads those from the machine settings file). */
  readonly machineSettings?: Record<string, unknown>;
  readonly workspaceTrust?: boolean;
  readonly files?: Record<string, string>;
  /** The browser window (default 1440 × 900). */
  readonly viewport?: { readonly width: number; readonly height: number };
  /** Environment of code-server itself, hence of the extension host (what `npm start` sets). */
  readonly serverEnv?: Record<string, string>;
  /** Runs on the workspace folder once its files are written, before VS Code opens it (a `git init`). */
  readonly prepare?: (workspace: string) => void;
}

/** code-server with the packaged extension, configured for the scripted agent; Chromium on its workbench. */
export async function openVsCode(options: UiOptions = {}): Promise<UiSession> {
  const vsix = packageExtension();
  const workspace = tempDir('hermes-ui-ws-');
  for (const [name, content] of Object.entries(options.files ?? { 'hello.txt': 'hello world\n' })) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), content);
  }
  options.prepare?.(workspace);
  const cs = await harness<CodeServerModule>('codeServer.mjs');
  const br = await harness<BrowserModule>('browser.mjs');
  const server = await cs.startCodeServer({
    workspace,
    vsixPath: vsix,
    logName: 'ui',
    ...(options.workspaceTrust === true ? { workspaceTrust: true } : {}),
    ...(options.serverEnv !== undefined ? { env: options.serverEnv } : {}),
    // code-server is a remote: machine-scoped settings (which agent to spawn) live in the machine settings.
    machineSettings: {
      'hermes.agents': [{ id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: options.agentEnv ?? {} }],
      'hermes.defaultAgent': 'scripted',
      ...options.machineSettings,
    },
    userSettings: { 'workbench.colorTheme': 'Default Dark Modern', ...options.settings },
  });
  const browser = await br.launchBrowser(options.viewport !== undefined ? { viewport: { ...options.viewport } } : {});
  const page = browser.page;
  const nonLoopback = br.collectNonLoopbackRequests(page);
  await br.openWorkbench(page, server.baseUrl(workspace));
  return {
    page,
    server,
    workspace,
    nonLoopback,
    chat: () => br.webviewFrame(page, { title: 'Hermes', timeoutMs: 30_000 }),
    command: (title) => br.runCommand(page, title),
    shot: (name) => br.screenshot(page, name),
    close: async () => {
      await browser.close();
      await server.stop();
    },
  };
}

export interface SuiteVsCode {
  /** The running code-server session (throws before suiteSetup). */
  ui(): UiSession;
  /** The chat opened by "Hermes: New Session" in suiteSetup. */
  chat(): FrameLocator;
}

/**
 * The screenshot of a failed test, which never fails the hook (that would skip the suite's other
 * tests). A screenshot waits for the page's next frame, so the page is first asked whether it runs a
 * script at all, and a hung renderer is said as such (seen on CI: a test timed out after 20 minutes
 * of a page that did not answer, then the hook's screenshot after 30 s more).
 */
export async function failureShot(session: UiSession, name: string): Promise<void> {
  const state = await pageAnswers(session.page, 5000);
  process.stderr.write(`      after the failure, the workbench page: ${state}\n`);
  if (state.startsWith('answered')) {
    await session.shot(name).catch((e: unknown) => process.stderr.write(`      no screenshot: ${String(e).split('\n')[0]}\n`));
  }
}

/** Whether `page` runs a script within `ms`, and if so whether it is visible and has the focus. */
export async function pageAnswers(page: Page, ms: number): Promise<string> {
  const asked = page.evaluate(() => {
    const d = (globalThis as unknown as { document: { visibilityState: string; hasFocus(): boolean } }).document;
    return `answered: ${d.visibilityState}, ${d.hasFocus() ? 'focused' : 'not focused'}`;
  });
  try {
    return await within(asked, ms, 'a script in the page');
  } catch (e) {
    return e instanceof DeadlineError ? `no answer to a script in ${ms} ms (its renderer is busy or hung)` : `no answer: ${String(e).split('\n')[0]}`;
  }
}

/**
 * One code-server for the whole suite: opened in suiteSetup with a new session whose chat is ready,
 * a screenshot `FAILED-<prefix>-<test>` of every failed test, closed in suiteTeardown.
 */
export function vsCodeForSuite(shotPrefix: string, options: UiOptions = {}): SuiteVsCode {
  let session: UiSession | undefined;
  let chatFrame: FrameLocator | undefined;
  suiteSetup(async () => {
    session = await openVsCode(options);
    await session.command('Hermes: New Session');
    chatFrame = await session.chat();
    await chatFrame.getByRole('textbox', { name: 'Message', exact: true }).waitFor({ timeout: 30_000 });
  });
  teardown(async function () {
    if (this.currentTest?.state === 'failed' && session !== undefined) {
      await failureShot(session, `FAILED-${shotPrefix}-${this.currentTest.title.replace(/\W+/g, '-')}`.slice(0, 120));
    }
  });
  suiteTeardown(async () => {
    await session?.close();
  });
  return {
    ui: () => {
      if (session === undefined) {
        throw new Error('code-server is not running (suiteSetup failed?)');
      }
      return session;
    },
    chat: () => {
      if (chatFrame === undefined) {
        throw new Error('no chat yet (suiteSetup failed?)');
      }
      return chatFrame;
    },
  };
}
