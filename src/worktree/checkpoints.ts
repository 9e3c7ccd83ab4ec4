import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hostSemantics, isInside, comparisonKey } from '../util/paths';
import { ObjectStore, scanFolder, type ScannedFile, type ScanLimits } from './checkpointScan';

/** A file of a checkpoint and its state before the run. */
export interface CheckpointFile {
  /** `/`-separated, relative to the checkpoint's folder. */
  readonly path: string;
  /** It existed before the run (false: the run created it; restoring removes it). */
  readonly existed: boolean;
  /** Its content before (object id); absent for a file that existed but was too large to keep. */
  readonly sha?: string;
}

type Before = { readonly existed: false } | { readonly existed: true; readonly sha?: string };

function fileOf(rel: string, b: Before): CheckpointFile {
  return b.existed && b.sha !== undefined ? { path: rel, existed: true, sha: b.sha } : { path: rel, existed: b.existed };
}

export interface CheckpointManifest {
  readonly id: string;
  /** The folder whose files it holds (the run's cwd). */
  readonly root: string;
  readonly createdAt: number;
  readonly files: readonly CheckpointFile[];
  /** The turn-start snapshot hit its limits: files past them could not be saved. */
  readonly truncated: boolean;
}

/**
 * Where checkpoints live, shared by the runner and the extension: `HERMES_ACP_CHECKPOINTS`, else the
 * user's state folder (`$XDG_STATE_HOME` or `~/.local/state` on Linux, `~/Library/Application
 * Support` on macOS, `%LOCALAPPDATA%` on Windows) + `hermes-acp/checkpoints`.
 */
export function checkpointHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = os.homedir()): string {
  const set = env.HERMES_ACP_CHECKPOINTS;
  if (set !== undefined && set !== '') {
    return set;
  }
  const base =
    platform === 'win32'
      ? (env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'))
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : (env.XDG_STATE_HOME ?? path.join(home, '.local', 'state'));
  return path.join(base, 'hermes-acp', 'checkpoints');
}

/**
 * File checkpoints of a folder (`--checkpoints`, issue 40): a turn-start snapshot of every file
 * (content-addressed under `objects/`), the targets of every allowed change saved before the
 * answer goes out, and at the end a manifest of the files that changed with their content before.
 * Manifests live under `projects/<hash of the folder>/<id>.json`, so a folder's checkpoints can be
 * listed (the Changes view) and restored by id.
 */
export class CheckpointStore {
  private readonly objects: ObjectStore;

  constructor(readonly home: string = checkpointHome()) {
    this.objects = new ObjectStore(path.join(home, 'objects'));
  }

  /** Starts a checkpoint of `root`: the turn-start snapshot. */
  async begin(root: string, limits?: ScanLimits): Promise<Checkpoint> {
    const real = await fs.realpath(root);
    const { files, truncated } = await scanFolder(real, this.objects, { save: true, ...(limits !== undefined ? { limits } : {}) });
    return new Checkpoint(this, this.objects, real, newId(), files, truncated);
  }

  async write(manifest: CheckpointManifest): Promise<void> {
    const folder = this.projectFolder(manifest.root);
    await fs.mkdir(folder, { recursive: true });
    const file = path.join(folder, `${manifest.id}.json`);
    await fs.writeFile(`${file}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
    await fs.rename(`${file}.tmp`, file);
  }

  /** The checkpoints of `root`, newest first. */
  async list(root: string): Promise<CheckpointManifest[]> {
    const folder = this.projectFolder(await fs.realpath(root));
    const names = await fs.readdir(folder).catch(() => [] as string[]);
    const out: CheckpointManifest[] = [];
    for (const n of names.filter((x) => x.endsWith('.json'))) {
      const m = await this.read(path.join(folder, n));
      if (m !== undefined) {
        out.push(m);
      }
    }
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  /**
   * Puts every file of checkpoint `id` of `root` back as it was: changed and deleted files get
   * their old content, created ones are removed. Unknown id: an error naming the ones there are.
   */
  async restore(root: string, id: string): Promise<{ restored: string[]; removed: string[]; unsaved: string[] }> {
    const real = await fs.realpath(root);
    const manifest = /^[A-Za-z0-9-]{1,80}$/.test(id) ? await this.read(path.join(this.projectFolder(real), `${id}.json`)) : undefined;
    if (manifest === undefined) {
      const known = (await this.list(real)).map((m) => m.id);
      throw new Error(`No checkpoint "${id}" for ${real}${known.length > 0 ? ` (its checkpoints: ${known.slice(0, 10).join(', ')})` : ' (it has none)'}; checkpoints are kept in ${this.home}.`);
    }
    const sem = hostSemantics();
    const restored: string[] = [];
    const removed: string[] = [];
    const unsaved: string[] = [];
    for (const f of manifest.files) {
      const target = path.join(real, ...f.path.split('/'));
      const parent = await realParent(target);
      if (!isInside(real, target, sem) || !isInside(real, parent, sem)) {
        throw new Error(`Checkpoint ${id} names ${f.path}, which is outside ${real}: not restored.`);
      }
      if (!f.existed) {
        await fs.rm(target, { force: true });
        removed.push(f.path);
      } else if (f.sha === undefined) {
        unsaved.push(f.path);
      } else {
        const content = await this.objects.get(f.sha);
        await fs.mkdir(path.dirname(target), { recursive: true });
        await fs.rm(target, { force: true }); // a link put there is replaced, not followed
        await fs.writeFile(target, content);
        restored.push(f.path);
      }
    }
    return { restored, removed, unsaved };
  }

  private projectFolder(realRoot: string): string {
    const key = createHash('sha256').update(comparisonKey(realRoot, hostSemantics())).digest('hex').slice(0, 20);
    return path.join(this.home, 'projects', key);
  }

  private async read(file: string): Promise<CheckpointManifest | undefined> {
    try {
      const m = JSON.parse(await fs.readFile(file, 'utf8')) as CheckpointManifest;
      return typeof m.id === 'string' && typeof m.root === 'string' && Array.isArray(m.files) ? m : undefined;
    } catch {
      return undefined;
    }
  }
}

/** One run's checkpoint in progress. */
export class Checkpoint {
  /** Files saved when a change to them was allowed, that the turn-start snapshot did not hold. */
  private readonly saved = new Map<string, Before>();

  constructor(
    private readonly store: CheckpointStore,
    private readonly objects: ObjectStore,
    readonly root: string,
    readonly id: string,
    private readonly start: ReadonlyMap<string, ScannedFile>,
    private readonly truncated: boolean,
  ) {}

  /**
   * Saves the current content of `paths` (absolute) before a change to them is allowed, for the
   * ones the turn-start snapshot does not hold (skipped folders, files created since). Paths
   * outside the checkpoint's folder are not its business.
   */
  async saveBefore(paths: readonly string[]): Promise<void> {
    for (const p of paths) {
      if (!isInside(this.root, p, hostSemantics())) {
        continue;
      }
      const rel = path.relative(this.root, p).split(path.sep).join('/');
      if (rel === '' || this.start.has(rel) || this.saved.has(rel)) {
        continue;
      }
      const stat = await fs.lstat(p).catch(() => undefined);
      if (stat === undefined) {
        this.saved.set(rel, { existed: false });
      } else if (stat.isFile()) {
        this.saved.set(rel, stat.size <= 64 * 1024 * 1024 ? { existed: true, sha: await this.objects.put(await fs.readFile(p)) } : { existed: true });
      }
    }
  }

  /** Compares the folder with the turn start, writes the manifest, and returns the id and the paths changed. */
  async finish(): Promise<{ id: string; files: string[] }> {
    const now = await scanFolder(this.root, this.objects, { save: false, previous: this.start });
    const files: CheckpointFile[] = [];
    for (const [rel, before] of this.start) {
      const after = now.files.get(rel);
      if (after === undefined || after.sha !== before.sha || (before.sha === undefined && (after.size !== before.size || after.mtimeMs !== before.mtimeMs))) {
        files.push(fileOf(rel, before.sha !== undefined ? { existed: true, sha: before.sha } : { existed: true }));
      }
    }
    for (const rel of now.files.keys()) {
      if (!this.start.has(rel) && !this.saved.has(rel)) {
        files.push({ path: rel, existed: false });
      }
    }
    for (const [rel, before] of this.saved) {
      const current = await fs.readFile(path.join(this.root, ...rel.split('/'))).catch(() => undefined);
      const same = !before.existed ? current === undefined : before.sha !== undefined && current !== undefined && createHash('sha256').update(current).digest('hex') === before.sha;
      if (!same) {
        files.push(fileOf(rel, before));
      }
    }
    files.sort((a, b) => a.path.localeCompare(b.path));
    await this.store.write({ id: this.id, root: this.root, createdAt: Date.now(), files, truncated: this.truncated || now.truncated });
    return { id: this.id, files: files.map((f) => f.path) };
  }
}

function newId(): string {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `cp-${t}-${randomBytes(3).toString('hex')}`;
}

async function realParent(target: string): Promise<string> {
  let dir = path.dirname(target);
  for (;;) {
    try {
      return await fs.realpath(dir);
    } catch {
      const up = path.dirname(dir);
      if (up === dir) {
        return dir;
      }
      dir = up;
    }
  }
}
