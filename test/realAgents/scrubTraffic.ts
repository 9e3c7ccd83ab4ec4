/**
 * Turns a rig run's traffic log into a fixture for test/fixtures/realAgents/: the run directory
 * becomes `<LAB>` (the replay agent's `--lab`, so the workspace is `<LAB>/ws`; other spellings get
 * `<LAB_NOSLASH>` / `<LAB_DASHED>`, for the replay agent's `--map`), the agents' install
 * and the Node binary become `<MODULES>` and `<NODE>`, loopback ports `<port>`, the rig's API key
 * `<key>`. An entry longer than 20,000 characters (Qwen's 268 KB `available_commands_update`) is
 * replaced by a `##` note naming what was dropped, to keep fixtures small. A line that is not JSON
 * after scrubbing, or that still names the run directory, is a bug and stops the script.
 *   node dist/realAgents/scrubTraffic.js <run dir> <modules dir> <node bin dir> [<file in run dir>] > fixture.jsonl
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { apiKey } from './agentProfiles';

function replaceAll(text: string, from: string, to: string): string {
  return from === '' ? text : text.split(from).join(to);
}

/**
 * Every spelling of a path an agent may log, each with its own placeholder so the quirk survives:
 * as is (`<X>`), without the leading slash (`<X_NOSLASH>`, opencode's titles) and Claude's
 * `-a-b-c` project-directory form (`<X_DASHED>`).
 */
function spellings(p: string, token: string): (readonly [string, string])[] {
  return [
    [p, `<${token}>`],
    [p.replace(/^\//, ''), `<${token}_NOSLASH>`],
    [p.replace(/\//g, '-'), `<${token}_DASHED>`],
  ];
}

export function scrubLine(line: string, runDir: string, modules: string, nodeBin: string): string {
  let out = line;
  for (const [from, token] of [
    [modules, 'MODULES'],
    [nodeBin, 'NODE'],
    [runDir, 'LAB'],
  ] as const) {
    for (const [variant, to] of spellings(from, token)) {
      out = replaceAll(out, variant, to);
    }
  }
  out = out.replace(/127\.0\.0\.1:\d{2,5}/g, '127.0.0.1:<port>');
  return replaceAll(out, apiKey, '<key>');
}

const maxEntry = 20_000;

/** A note standing in for an oversized entry: its time, direction, method and update kind. */
function dropped(line: string): string {
  const parsed: unknown = JSON.parse(line);
  const entry = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const what = /"(?:method|sessionUpdate)\\?":\\?"([\w/]+)/g;
  const names = [...line.slice(0, 2000).matchAll(what)].map((m) => m[1]).join(' ');
  return JSON.stringify({
    t: entry.t,
    dir: '##',
    msg: `rig: dropped a ${String(line.length)}-character ${String(entry.dir)} entry (${names}) to keep the fixture small`,
  });
}

function main(): void {
  const [runDir, modules, nodeBin, file] = process.argv.slice(2);
  if (runDir === undefined || modules === undefined || nodeBin === undefined) {
    console.error('usage: scrubTraffic.js <run dir> <modules dir> <node bin dir> [<file in run dir, default traffic.jsonl>]');
    process.exit(2);
  }
  const lines = readFileSync(path.join(runDir, file ?? 'traffic.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  for (const [i, line] of lines.entries()) {
    const scrubbed = line.length > maxEntry ? dropped(line) : scrubLine(line, path.resolve(runDir), path.resolve(modules), path.resolve(nodeBin));
    JSON.parse(scrubbed);
    if (scrubbed.includes(path.resolve(runDir))) {
      throw new Error(`line ${String(i + 1)} still names the run directory`);
    }
    process.stdout.write(`${scrubbed}\n`);
  }
}

main();
