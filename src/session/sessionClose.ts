import type { AgentConnection } from '../agentPort/agentConnection';

/**
 * ACP `session/close` (advertised as `sessionCapabilities.close`): the agent frees what it holds for
 * the session (and cancels its work) instead of keeping it until it exits; the session stays
 * loadable where the agent stores it. Sent when a chat closes and by the runner before it stops the
 * agent. Never throws and never waits long: a close that fails or takes over `timeoutMs` is given up
 * (the agent's exit frees it anyway). True when the agent answered.
 */
export async function closeSessionIfSupported(connection: AgentConnection | undefined, sessionId: string | undefined, timeoutMs = 5000): Promise<boolean> {
  const cap = connection?.agent?.agentCapabilities?.sessionCapabilities?.close;
  if (connection === undefined || sessionId === undefined || cap === undefined || cap === null || connection.isClosed) {
    return false;
  }
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([connection.closeSession(sessionId).then(() => true), deadline]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
