import type { AgentDefinition } from '../acp/agentHost';
import { AgentExitedError, AgentNotFoundError, AgentProtocolError, AgentSpawnError, AgentTimeoutError, describeError, describeRpcError, isRpcError, RpcCode } from '../acp/errors';
import type { NoticeAction } from '../session/sessionState';

export interface StartErrorNotice {
  readonly title: string;
  readonly detail?: string;
  readonly actions: readonly NoticeAction[];
}

/**
 * What to tell the user when an agent or a session could not start: what happened, where to look
 * (the traffic log) and the next step — never a stack trace.
 */
export function describeStartError(e: unknown, agent: AgentDefinition): StartErrorNotice {
  const name = agent.name;
  if (AgentNotFoundError.is(e)) {
    return {
      title: `\`${e.command}\` was not found on PATH.`,
      detail: `Install ${name === 'Hermes' ? 'Hermes Agent (https://github.com/NousResearch/hermes-agent)' : name}, or set the full path of its executable in the "hermes.agents" user setting. You can also try the demo agent to look around.`,
      actions: ['checkInstallation', 'openSettings', 'useDemoAgent'],
    };
  }
  if (AgentSpawnError.is(e)) {
    return { title: e.message, detail: 'Check the command in the "hermes.agents" setting.', actions: ['openSettings', 'showTraffic'] };
  }
  if (AgentTimeoutError.is(e)) {
    return {
      title: `${name} did not answer \`${e.method}\` within ${Math.round(e.timeoutMs / 1000)} s.`,
      detail: 'The traffic log shows what the agent sent and its stderr output.',
      actions: ['showTraffic', 'restartAgent'],
    };
  }
  if (AgentExitedError.is(e)) {
    return {
      title: `${name} exited while starting (${e.signal !== null ? `signal ${e.signal}` : `code ${String(e.exitCode)}`}).`,
      ...(e.stderrTail !== '' ? { detail: e.stderrTail } : {}),
      actions: ['showTraffic', 'checkInstallation', 'restartAgent'],
    };
  }
  if (AgentProtocolError.is(e)) {
    return { title: e.message, actions: ['showTraffic'] };
  }
  if (isRpcError(e)) {
    const text = describeRpcError(e);
    if (e.code === RpcCode.authRequired || /no llm provider configured/i.test(text)) {
      return {
        title: `${name} has no LLM provider configured.`,
        detail: `${text}\nRun "Set Up Provider" to configure one in a terminal; the chat reconnects afterwards.`,
        actions: ['setupProvider', 'showTraffic'],
      };
    }
    return { title: `${name} could not start a session.`, detail: `${text} (JSON-RPC ${e.code})`, actions: ['showTraffic', 'restartAgent'] };
  }
  return { title: `${name} could not start.`, detail: describeError(e), actions: ['showTraffic', 'restartAgent'] };
}
