/**
 * The lab tier's five ways to reach the real Hermes (lab.ts): ACP (`hermes acp`), the TUI Gateway
 * on stdio (started by the client from `--hermes-root`) and over WebSocket (`hermes serve`), and
 * the API Server in chat and runs mode. Each says how the runner reaches it (flags, environment)
 * and how the extension's session layer does (an agent definition for AgentHost), with a
 * HERMES_HOME of its own; servers are started per home and stopped by the LabRun.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type { AgentDefinition } from '../../src/host/agentHost';
import { labMarkerVariable, type LabRun, type LabServer } from './lab';

export type ProtocolName = 'acp' | 'gateway-stdio' | 'gateway-ws' | 'api-chat' | 'api-runs';

export interface Reached {
  /** Runner flags after `-q … --format stream-json`. */
  readonly flags: readonly string[];
  /** The runner's environment (HERMES_HOME for what it starts, tokens, the run's marker). */
  readonly env: Record<string, string>;
  /** The same Hermes as an agent definition (AgentHost), and the secret it needs. */
  readonly definition: AgentDefinition;
  readonly secret?: string;
  /** The environment AgentHost gives what it starts. */
  readonly hostEnv: Record<string, string>;
  /** The Hermes server this reaches, when it is a server the run started (to kill it). */
  readonly server?: LabServer;
}

export interface Protocol {
  readonly name: ProtocolName;
  readonly label: string;
  /** Hermes asks clarifying questions only over the TUI Gateway (ACP and the API Server have no channel). */
  readonly clarify: boolean;
  reach(run: LabRun, home: string): Promise<Reached>;
}

function base(run: LabRun, home: string): Record<string, string> {
  return { HERMES_HOME: home, HERMES_DISABLE_LAZY_INSTALLS: '1', [labMarkerVariable]: run.id };
}

const acp: Protocol = {
  name: 'acp',
  label: 'ACP (hermes acp)',
  clarify: false,
  reach: (run, home) => {
    const hermes = path.join(run.lab, 'bin', 'hermes');
    const env = base(run, home);
    return Promise.resolve({ flags: ['--', hermes, 'acp'], env, hostEnv: env, definition: { id: 'lab-acp', name: 'Hermes (lab, ACP)', command: hermes, args: ['acp'], env: {} } });
  },
};

const gatewayStdio: Protocol = {
  name: 'gateway-stdio',
  label: 'TUI Gateway over stdio (--hermes-root)',
  clarify: true,
  reach: (run, home) => {
    const env = base(run, home);
    return Promise.resolve({
      flags: ['--transport', 'tui-gateway', '--hermes-root', run.hermesRoot, '--python', run.python],
      env,
      hostEnv: env,
      definition: { id: 'lab-gw', name: 'Hermes (lab, gateway)', command: '', args: [], env: {}, transport: { kind: 'tui-gateway', hermesRoot: run.hermesRoot, python: run.python } },
    });
  },
};

const gatewayWs: Protocol = {
  name: 'gateway-ws',
  label: 'TUI Gateway over WebSocket (hermes serve)',
  clarify: true,
  reach: async (run, home) => {
    const token = `tok-${randomBytes(12).toString('hex')}`;
    const server = await run.serve(home, token);
    const env = { ...base(run, home), HERMES_GATEWAY_TOKEN: token };
    return {
      flags: ['--transport', 'tui-gateway', '--gateway-url', server.url],
      env,
      hostEnv: env,
      definition: { id: 'lab-ws', name: 'Hermes (lab, serve)', command: '', args: [], env: {}, transport: { kind: 'tui-gateway', url: server.url } },
      secret: token,
      server,
    };
  },
};

function apiServer(mode: 'chat' | 'runs'): Protocol {
  return {
    name: mode === 'chat' ? 'api-chat' : 'api-runs',
    label: `API Server, ${mode} mode`,
    clarify: false,
    reach: async (run, home) => {
      const key = `lab-key-${randomBytes(16).toString('hex')}`;
      const server = await run.apiServer(home, key);
      const env = { ...base(run, home), HERMES_API_KEY: key };
      return {
        flags: ['--transport', 'api-server', '--base-url', server.baseUrl, ...(mode === 'runs' ? ['--api-mode', 'runs'] : [])],
        env,
        hostEnv: env,
        definition: { id: `lab-api-${mode}`, name: `Hermes (lab, API ${mode})`, command: '', args: [], env: {}, transport: { kind: 'api-server', baseUrl: server.baseUrl, mode } },
        secret: key,
        server,
      };
    },
  };
}

export const protocols: readonly Protocol[] = [acp, gatewayStdio, gatewayWs, apiServer('chat'), apiServer('runs')];
