// `npm start`: build and package the extension, then open it in VS Code.
//   - desktop VS Code when a `code` CLI is on PATH (--extensionDevelopmentPath);
//   - otherwise a local code-server (the test harness's, on 127.0.0.1) whose URL is printed.
// When `hermes` is not installed it says so and starts with the built-in scripted demo agent,
// labelled "Demo" wherever it shows.
//   npm start [-- <folder to open>] [--port N]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const folderArg = argv.find((a) => !a.startsWith('--'));

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

console.log('Building (production bundles)…');
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production'], { stdio: 'inherit', cwd: root });
const vsix = join(root, '.cache', 'hermes-acp.vsix');
mkdirSync(dirname(vsix), { recursive: true });
console.log('Packaging hermes-acp.vsix…');
execFileSync(join(root, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--skip-license', '--no-rewrite-relative-links', '-o', vsix], { stdio: 'inherit', cwd: root });

const hermesInstalled = onPath('hermes');
const env = {};
if (hermesInstalled) {
  console.log('Using `hermes acp` from PATH.');
} else {
  console.log('\n`hermes` was not found on PATH. Install Hermes Agent (https://github.com/NousResearch/hermes-agent) to chat with it.');
  console.log('Starting with the built-in scripted DEMO agent instead, so the UI can be tried (it is labelled "Demo").\n');
  env.HERMES_ACP_DEFAULT_AGENT = 'demo';
}

const folder = folderArg !== undefined ? resolve(folderArg) : demoWorkspace();

if (onPath('code')) {
  console.log(`Opening desktop VS Code on ${folder}`);
  const child = spawn('code', ['--extensionDevelopmentPath', root, '--new-window', folder], { stdio: 'inherit', env: { ...process.env, ...env } });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  const { ensureHarness } = await import('../test/harness/install.mjs');
  await ensureHarness();
  const { startCodeServer } = await import('../test/harness/codeServer.mjs');
  const server = await startCodeServer({ workspace: folder, vsixPath: vsix, env, logName: 'npm-start' });
  console.log(`\nVS Code (code-server) with Hermes ACP is running:\n\n  ${server.baseUrl(folder)}\n\nOpen it in a browser on this machine. Press Ctrl-C to stop.`);
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
  return dir;
}
