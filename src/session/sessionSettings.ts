import type * as acp from '@agentclientprotocol/sdk';
import type { AgentConnection } from '../agentPort/agentConnection';
import type { SessionAction } from './sessionActions';
import type { SessionState } from './sessionState';

/** What changing a session's mode, model or config options needs of its controller. */
export interface SettingsTarget {
  readonly state: SessionState;
  readonly connection: AgentConnection;
  dispatch(action: SessionAction): void;
}

function requireSession(c: SettingsTarget): string {
  const id = c.state.sessionId;
  if (id === undefined) {
    throw new Error('The session has not started.');
  }
  return id;
}

/** `session/set_mode`; the state follows once the agent agreed. */
export async function setMode(c: SettingsTarget, modeId: string): Promise<void> {
  await c.connection.setMode(requireSession(c), modeId);
  c.dispatch({ type: 'modeChanged', modeId });
}

/** Legacy `session/set_model` (Hermes 0.19). */
export async function setModel(c: SettingsTarget, modelId: string): Promise<void> {
  await c.connection.setModel(requireSession(c), modelId);
  c.dispatch({ type: 'modelChanged', modelId });
}

/** `session/set_config_option`; its answer is the complete option list (ACP session-config-options), so the state is replaced wholesale. */
export async function setConfigOption(c: SettingsTarget, configId: string, value: string | boolean): Promise<void> {
  const sessionId = requireSession(c);
  const params: acp.SetSessionConfigOptionRequest =
    typeof value === 'boolean' ? { sessionId, configId, type: 'boolean', value } : { sessionId, configId, value };
  const res = await c.connection.setConfigOption(params);
  if (Array.isArray(res.configOptions)) {
    c.dispatch({ type: 'configOptionsChanged', configOptions: res.configOptions });
  }
}
