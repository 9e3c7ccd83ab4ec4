/**
 * The real Hermes v0.19.0 of `../shared/hermes-lab/` (built by its `build-lab.sh`), driven by the
 * lab tier (`npm run test:hermes`) and by recordWire.ts. `HERMES_LAB` names the built lab. A
 * {@link LabRun} owns everything it starts: a scratch folder, the scripted model server
 * (labModel.ts) on a free port, HERMES_HOME copies whose `config.yaml` names that port, and the
 * Hermes servers (`hermes serve`, `hermes gateway run` with the API Server) each in a process
 * group of its own, all tagged with an environment marker so nothing is left behind unseen.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { startLabModel, type LabModel } from './labModel';
import { tempDir } from '../support/tempDirs';

/** The environment variable that names the built lab. */
export const labVariable = 'HERMES_LAB';
/** Every process a lab run starts carries this variable (value: the run's id). */
export const labMarkerVariable = 'HERMES_LAB_RUN';

/** The built lab named by `HERMES_LAB`, or why there is none. */
export function findLab(env: NodeJS.ProcessEnv = process.env): { readonly root: string } | { readonly missing: string } {
  const root = env[labVariable];
  if (root === undefined || root === '') {
    return { missing: `${labVariable} is not set (it names a lab built by ../shared/hermes-lab/build-lab.sh, e.g. ${labVariable}=/work/lab)` };
  }
  for (const needed of ['bin/hermes', 'bin/python', 'hermes-agent/tui_gateway/entry.py']) {
    if (!fs.existsSync(path.join(root, needed))) {
      return { missing: `${labVariable}=${root} is not a built lab (no ${needed})` };
    }
  }
  return { root: path.resolve(root) };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status < 500;
  } catch {
    return false;
  }
}

/** A Hermes server the run started (its own process group). */
export interface LabServer {
  readonly child: ChildProcess;
  readonly port: number;
  /** Its stdout and stderr, for a failure's message. */
  readonly logFile: string;
}

export interface HomeOptions {
  /** false: a `config.yaml` with no provider, so the agent cannot be built. */
  readonly provider?: boolean;
  /** Skills to install: name → the `required_environment_variables` of its frontmatter. */
  readonly skills?: Readonly<Record<string, readonly string[]>>;
}

export class LabRun {
  readonly id = `lab-${randomBytes(6).toString('hex')}`;
  private readonly servers: LabServer[] = [];
  private homes = 0;

  private constructor(
    readonly lab: string,
    readonly dir: string,
    readonly model: LabModel,
  ) {}

  static async open(lab: string, name: string): Promise<LabRun> {
    const dir = tempDir(`hermes-lab-${name}-`);
    return new LabRun(lab, dir, await startLabModel());
  }

  /** The lab's interpreter (what `--python` names) and Hermes' source root (`--hermes-root`). */
  get python(): string {
    return path.join(this.lab, 'bin', 'python');
  }

  get hermesRoot(): string {
    return path.join(this.lab, 'hermes-agent');
  }

  /** A fresh HERMES_HOME with a config.yaml naming this run's model server. */
  home(options: HomeOptions = {}): string {
    const home = path.join(this.dir, `home-${++this.homes}`);
    fs.mkdirSync(home, { recursive: true });
    const config =
      options.provider === false
        ? 'model:\n  default: fake-model\n'
        : `model:\n  default: fake-model\n  provider: custom\n  base_url: ${this.model.baseUrl}\n  api_key: sk-fake-local\n  context_length: 131072\n`;
    fs.writeFileSync(path.join(home, 'config.yaml'), config);
    for (const [skill, variables] of Object.entries(options.skills ?? {})) {
      const skillDir = path.join(home, 'skills', skill);
      fs.mkdirSync(skillDir, { recursive: true });
      const required = variables.map((v) => `  - name: ${v}\n    prompt: Paste the ${v}\n`).join('');
      fs.writeFileSync(path.join(skillDir, 'SKILL.md'), `---\nname: ${skill}\ndescription: A lab skill that needs a key.\nrequired_environment_variables:\n${required}---\n\n# ${skill}\n\nSay hello.\n`);
    }
    return home;
  }

  /** A fresh workspace folder. */
  workspace(name: string): string {
    const ws = path.join(this.dir, `ws-${name}`);
    fs.rmSync(ws, { recursive: true, force: true });
    fs.mkdirSync(ws, { recursive: true });
    return ws;
  }

  /** What every Hermes process of the run gets (the caller's environment is the base). */
  env(home: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) {
      // A provider key in the caller's environment would make a no-provider home work after all.
      if (v !== undefined && !k.endsWith('_API_KEY')) {
        env[k] = v;
      }
    }
    return { ...env, HERMES_HOME: home, HERMES_DISABLE_LAZY_INSTALLS: '1', [labMarkerVariable]: this.id, ...extra };
  }

  /** `hermes serve` on a free loopback port with a known session token; resolves once it answers. */
  async serve(home: string, token: string): Promise<LabServer & { readonly url: string }> {
    const port = await freePort();
    const server = await this.start('serve', ['serve', '--host', '127.0.0.1', '--port', String(port)], this.env(home, { HERMES_DASHBOARD_SESSION_TOKEN: token }), port, `http://127.0.0.1:${port}/`);
    return { ...server, url: `ws://127.0.0.1:${port}/api/ws` };
  }

  /** The API Server (`hermes gateway run`, API_SERVER_ENABLED) on a free loopback port; resolves once /health answers. */
  async apiServer(home: string, key: string): Promise<LabServer & { readonly baseUrl: string }> {
    const port = await freePort();
    const env = this.env(home, { API_SERVER_ENABLED: 'true', API_SERVER_KEY: key, API_SERVER_HOST: '127.0.0.1', API_SERVER_PORT: String(port) });
    const server = await this.start('api', ['gateway', 'run'], env, port, `http://127.0.0.1:${port}/health`);
    return { ...server, baseUrl: `http://127.0.0.1:${port}` };
  }

  /** Kills a server's whole process group at once (the server dying). */
  kill(server: LabServer): void {
    signalGroup(server.child, 'SIGKILL');
  }

  /** Stops every server (SIGTERM, then SIGKILL), the model server, and removes the folder. */
  async dispose(): Promise<void> {
    await Promise.all(this.servers.splice(0).map((s) => stopGroup(s.child)));
    await this.model.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async start(name: string, args: readonly string[], env: Record<string, string>, port: number, probe: string): Promise<LabServer> {
    const logFile = path.join(this.dir, `${name}-${port}.log`);
    const out = fs.openSync(logFile, 'w');
    const child = spawn(path.join(this.lab, 'bin', 'hermes'), args, { cwd: this.dir, env, detached: true, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    const server = { child, port, logFile };
    this.servers.push(server);
    const deadline = Date.now() + 120_000;
    while (!(await answers(probe))) {
      if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
        throw new Error(`hermes ${args.join(' ')} did not come up on port ${port}:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    return server;
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) {
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
  // Children that left the group's leader behind still get the group's signal.
  signalGroup(child, 'SIGKILL');
}

/** Pids of live processes whose environment carries this run's marker (none after a clean stop). */
export function markedProcesses(runId: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) {
      continue;
    }
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (environ.split('\0').includes(`${labMarkerVariable}=${runId}`)) {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (!stat.includes(') Z ')) {
          found.push(Number(entry));
        }
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
