import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { registryLayout, type RegistryLayout } from '../../../src/registry/installPaths';
import { chooseDistribution, platformKey, type DistributionChoice } from '../../../src/registry/launch';
import { probeInitialize, type ProbeResult } from '../../../src/registry/probe';
import { parseAgentEntry, type PlatformKey, type RegistryAgent } from '../../../src/registry/registryFormat';
import type { AgentDefinition } from '../../../src/host/agentHost';
import { LoopbackServer } from '../../support/loopbackServer';

/** This machine's registry platform (the tests serve binaries for it). */
export function thisPlatform(): PlatformKey {
  const p = platformKey();
  if (p === undefined) {
    throw new Error(`no registry platform for ${process.platform}-${process.arch}`);
  }
  return p;
}

/** A temp global-storage folder, a loopback server, and helpers; `dispose` removes both. */
export interface RegistryRig {
  readonly server: LoopbackServer;
  readonly storage: string;
  readonly layout: RegistryLayout;
  readonly cwd: string;
  agent(raw: unknown): RegistryAgent;
  choice(agent: RegistryAgent): DistributionChoice;
  probe(def: AgentDefinition, env?: Record<string, string>): Promise<ProbeResult>;
  /** Files left below the staging folder (must be none after any install, good or refused). */
  leftovers(): string[];
  dispose(): Promise<void>;
}

export async function registryRig(): Promise<RegistryRig> {
  const server = await LoopbackServer.start();
  const storage = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-registry-')));
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-registry-ws-'));
  const layout = registryLayout(storage);
  return {
    server,
    storage,
    layout,
    cwd,
    agent: (raw) => {
      const r = parseAgentEntry(raw, server.url('/registry.json'));
      if ('reason' in r) {
        throw new Error(`fixture entry invalid: ${r.reason}`);
      }
      return r.agent;
    },
    choice: (agent) => {
      const c = chooseDistribution(agent, thisPlatform(), { npx: true, uvx: true });
      if (c === undefined) {
        throw new Error('no distribution for this platform');
      }
      return c;
    },
    probe: (def, env) => probeInitialize(def, { cwd, clientVersion: '0.0.0-test', timeoutMs: 60_000, ...(env !== undefined ? { env } : {}) }),
    leftovers: () => (fs.existsSync(layout.tmpDir) ? fs.readdirSync(layout.tmpDir) : []),
    dispose: async () => {
      await server.close();
      fs.rmSync(storage, { recursive: true, force: true });
      fs.rmSync(cwd, { recursive: true, force: true });
    },
  };
}

/** A fresh rig per test (mocha `setup`/`teardown`); call the returned function inside a test. */
export function useRegistryRig(): () => RegistryRig {
  let rig: RegistryRig | undefined;
  setup(async () => {
    rig = await registryRig();
  });
  teardown(async () => {
    await rig?.dispose();
    rig = undefined;
  });
  return () => {
    if (rig === undefined) {
      throw new Error('no registry rig outside a test');
    }
    return rig;
  };
}
