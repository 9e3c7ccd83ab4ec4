import { AgentHost, type AgentDefinition } from '../host/agentHost';
import { AgentExitedError, describeError } from '../agentPort/agentErrors';

export type ProbeResult =
  | { readonly ok: true; readonly agentName: string; readonly agentVersion: string | undefined }
  | { readonly ok: false; readonly reason: string };

export interface ProbeOptions {
  readonly cwd: string;
  readonly clientVersion: string;
  /** `initialize` deadline: an `npx`/`uvx` first start downloads the package before it answers. */
  readonly timeoutMs?: number;
  /** Extra environment for the process (tests: an npm cache folder, an offline registry). */
  readonly env?: Readonly<Record<string, string>>;
  /** Stops the agent (the user cancelled the install). */
  readonly signal?: AbortSignal;
}

/**
 * Starts `def` as the extension would, waits for its `initialize` answer, and stops it: the check
 * that an installed or updated agent really starts. The reason of a failure carries the agent's
 * last stderr lines.
 */
export async function probeInitialize(def: AgentDefinition, o: ProbeOptions): Promise<ProbeResult> {
  const host = new AgentHost(def, {
    cwd: o.cwd,
    clientInfo: { name: 'hermes-acp', title: 'Hermes ACP for VS Code', version: o.clientVersion },
    // Nothing is prompted during a probe; an agent asking anyway is told no.
    ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
    timeouts: { initialize: o.timeoutMs ?? 120_000 },
    ...(o.env !== undefined ? { env: o.env } : {}),
  });
  const stop = (): void => void host.dispose();
  o.signal?.addEventListener('abort', stop, { once: true });
  try {
    const client = await host.start();
    const info = client.agent?.agentInfo;
    return { ok: true, agentName: info?.name ?? def.name, agentVersion: info?.version ?? undefined };
  } catch (e) {
    const tail = AgentExitedError.is(e) ? e.stderrTail.trim() : '';
    return { ok: false, reason: tail !== '' ? `${describeError(e)} Its last output: ${tail.split('\n').slice(-5).join(' | ')}` : describeError(e) };
  } finally {
    o.signal?.removeEventListener('abort', stop);
    await host.dispose();
  }
}
