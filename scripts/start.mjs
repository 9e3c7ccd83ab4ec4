// `npm start`: build and package the extension, then open it in VS Code with its chat showing.
//   - desktop VS Code when a `code` CLI is on PATH (the packaged build, as a development extension);
//   - otherwise a local code-server (the test harness's, on 127.0.0.1) with the .vsix installed the
//     way a user installs it (`--install-extension`); its URL is printed.
// When `hermes` is not installed it says so and starts with the built-in scripted demo agent,
// labelled "Demo" wherever it shows. Every step is printed with the time since the start.
//   npm start [-- <folder to open>]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const folderArg = argv.find((a) => !a.startsWith('--'));
const t0 = Date.now();
/** A step, stamped with the time since `npm start` began. */
const step = (what) => console.log(`[start ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${what}`);

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

step('building and packaging the extension (production bundles, then vsce) …');
const { packageExtension } = await import('./package.mjs');
const { vsix, stage } = await packageExtension({ out: join(root, '.package', 'start', 'hermes-acp.vsix'), log: (line) => step(line) });

const hermesInstalled = onPath('hermes');
// HERMES_ACP_OPEN_CHAT: the extension reveals its chat once it activates (the Demo workspace's
// marker file activates it; another folder activates it when the Hermes view is opened).
const env = { HERMES_ACP_OPEN_CHAT: '1' };
if (hermesInstalled) {
  step('using `hermes acp` from PATH');
} else {
  step('`hermes` was not found on PATH: starting with the built-in scripted DEMO agent (labelled "Demo")');
  console.log('             To chat with Hermes, install Hermes Agent (https://github.com/NousResearch/hermes-agent),');
  console.log('             then run "Hermes: Select Agent" (or "Hermes: Set Up Agent…" if it is not on PATH).');
  env.HERMES_ACP_DEFAULT_AGENT = 'demo';
}

const folder = folderArg !== undefined ? resolve(folderArg) : demoWorkspace();

if (onPath('code')) {
  step(`opening desktop VS Code on ${folder} (the packaged build, from ${stage})`);
  const child = spawn('code', ['--extensionDevelopmentPath', stage, '--new-window', folder], { stdio: 'inherit', env: { ...process.env, ...env } });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const { ensureHarness, harnessPaths } = await import('../test/harness/install.mjs');
  if (!existsSync(harnessPaths().codeServerBin)) {
    step('first run: installing the local VS Code (code-server 4.139.1 and Node 24) into .cache/harness');
    console.log('             This takes a few minutes once (progress below); later starts take seconds.');
  }
  // No Chromium needed here: you open the URL in your own browser.
  await ensureHarness({ browser: false });
  step('starting code-server and installing the .vsix (code-server --install-extension) …');
  const { startCodeServer } = await import('../test/harness/codeServer.mjs');
  const server = await startCodeServer({ workspace: folder, vsixPath: vsix, env, logName: 'npm-start' });
  step('ready');
  console.log(`\nVS Code (code-server) with Hermes ACP is running:\n\n  ${server.baseUrl(folder)}\n`);
  console.log(`Open it in a browser on this machine; the Hermes chat opens by itself${folderArg !== undefined ? ' (in another folder: click the Hermes icon in the activity bar)' : ''}.`);
  console.log(`code-server's log: ${server.logFile}. Press Ctrl-C to stop.`);
  // The server runs in its own process group; keep this process (and its cleanup hooks) alive
  // until Ctrl-C or until the server ends.
  const keepAlive = setInterval(() => undefined, 60_000);
  const stop = async () => {
    clearInterval(keepAlive);
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  await server.exited;
  clearInterval(keepAlive);
}

function demoWorkspace() {
  const dir = join(root, '.cache', 'demo-workspace');
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'README.md'), '# Demo workspace\n\nTry the chat: ask anything, or type `[tools]`, `[plan]`, `[command cmd=rm -r build]`, `[edit path=hello.txt text=hi]`.\n');
    writeFileSync(join(dir, 'hello.txt'), 'hello world\n');
  }
  // The extension activates on this file (package.json activationEvents) and opens its chat.
  writeFileSync(join(dir, '.hermes-demo'), 'npm start\'s Demo workspace: Hermes ACP opens its chat here.\n');
  return dir;
}
