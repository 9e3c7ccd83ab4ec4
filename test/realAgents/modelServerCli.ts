/**
 * The model server on its own, for trying an agent by hand:
 *   node dist/realAgents/modelServer.js --scenario edit --cwd DIR [--prompt TEXT] [--port N] [--log FILE] [--bodies DIR]
 * prints `MODEL_SERVER_READY {"port":N}` and serves until killed.
 */
import * as path from 'node:path';
import { defaultTarget, startModelServer } from './modelServer';
import { isScenarioName, scenarioNames } from './scenarioScript';

function argValue(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const scenario = argValue(args, '--scenario') ?? 'text';
  if (!isScenarioName(scenario)) {
    console.error(`unknown scenario ${scenario}; one of ${scenarioNames.join(', ')}`);
    process.exit(2);
  }
  const cwd = path.resolve(argValue(args, '--cwd') ?? process.cwd());
  const port = Number(argValue(args, '--port') ?? '0');
  const logFile = argValue(args, '--log');
  const bodiesDir = argValue(args, '--bodies');
  const prompt = argValue(args, '--prompt');
  const server = await startModelServer({
    scenario,
    target: defaultTarget(cwd),
    port,
    ...(logFile !== undefined ? { logFile } : {}),
    ...(bodiesDir !== undefined ? { bodiesDir } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
  });
  console.log(`MODEL_SERVER_READY ${JSON.stringify({ port: server.port })}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
