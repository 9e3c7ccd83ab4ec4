/**
 * What the lab tier's suites share: the lab (or a skip), one LabRun per suite, a fresh workspace
 * and marker per test, and the check that nothing a test started outlives it.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findLab, LabRun, labMarkerVariable, markedProcesses } from './lab';

/** The lab named by HERMES_LAB; scripts/testHermes.mjs runs these suites only when it exists. */
export function labRoot(): string {
  const lab = findLab();
  if ('missing' in lab) {
    throw new Error(lab.missing);
  }
  return lab.root;
}

export interface TestScope {
  /** The suite's LabRun (its model server, homes and servers). */
  readonly run: LabRun;
  /** This test's workspace. */
  readonly ws: string;
  /** This test's marker: give it to what the test starts; checked for leftovers after the test. */
  readonly marker: Record<string, string>;
}

/**
 * One LabRun for the calling suite; a workspace and marker per test; no leftover process after
 * each — checked after `closeTest` (what the test opened) has run.
 */
export function labScope(name: string, closeTest?: () => Promise<void>): TestScope {
  const scope: { run?: LabRun; ws: string; marker: Record<string, string>; id: string } = { ws: '', marker: {}, id: '' };
  suiteSetup(async function () {
    this.timeout(120_000);
    scope.run = await LabRun.open(labRoot(), name);
  });
  setup(function () {
    const run = scope.run;
    assert.ok(run !== undefined);
    scope.id = `${run.id}-${randomBytes(3).toString('hex')}`;
    scope.marker = { [labMarkerVariable]: scope.id };
    scope.ws = fs.realpathSync(fs.mkdtempSync(path.join(run.dir, 'ws-')));
  });
  teardown(async function () {
    this.timeout(30_000);
    await closeTest?.();
    const deadline = Date.now() + 15_000;
    let left = markedProcesses(scope.id);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      left = markedProcesses(scope.id);
    }
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    assert.deepEqual(left, [], `processes this test started are still running: ${left.join(', ')}`);
  });
  suiteTeardown(async function () {
    this.timeout(60_000);
    await scope.run?.dispose();
  });
  return {
    get run(): LabRun {
      if (scope.run === undefined) {
        throw new Error('the lab run is not open');
      }
      return scope.run;
    },
    get ws(): string {
      return scope.ws;
    },
    get marker(): Record<string, string> {
      return scope.marker;
    },
  };
}

/** A directory to delete, made inside the workspace. */
export function victim(ws: string, name = 'victim'): string {
  const dir = path.join(ws, name);
  fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'sub', 'keep.txt'), 'keep\n');
  return dir;
}

/** Pids of live processes whose command line contains `needle` and whose environment has `marker`. */
export function markedWith(marker: Record<string, string>, needle: string): number[] {
  const [entry] = Object.entries(marker);
  if (entry === undefined) {
    return [];
  }
  return markedProcesses(entry[1]).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(needle);
    } catch {
      return false;
    }
  });
}
