import { createHash } from 'node:crypto';

/** What would run when an agent starts. */
export interface AgentToStart {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * What the user consented to in an untrusted workspace: a SHA-256 of the exact executable,
 * arguments and environment (its order does not matter), not the display name. A settings change
 * that keeps the name but runs something else is a new agent and is asked about again.
 */
export function consentKey(agent: AgentToStart): string {
  const env = Object.entries(agent.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify([agent.command, agent.args, env])).digest('hex');
}
