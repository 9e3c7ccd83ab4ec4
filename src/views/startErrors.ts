import type { AgentDefinition } from '../acp/agentHost';
import { AgentExitedError, AgentNotFoundError, AgentProtocolError, AgentSpawnError, AgentTimeoutError, describeError, describeRpcError, isRpcError, RpcCode } from '../acp/errors';
import type { NoticeAction } from '../session/sessionState';
import { scopeName, type AgentSettingsScope } from './settingsScope';

export interface StartErrorNotice {
  readonly title: string;
  readonly detail?: string;
  readonly actions: readonly NoticeAction[];
}

/**
 * What to tell the user when an agent or a session could not start: what happened, where to look
 * (the traffic log) and the next step — never a stack trace. `scope` is where this window reads the
 * agent commands: a remote window ignores the local User settings, so naming "the user setting"
 * there would send the user to a value that is never read (issue 22).
 */
export function describeStartError(e: unknown, agent: AgentDefinition, scope: AgentSettingsScope = { kind: 'user' }): StartErrorNotice {
  const name = agent.name;
  const openScope: NoticeAction = scope.kind === 'remote' ? 'openRemoteSettings' : 'openSettings';
  // First what the user must know (which settings count), then what to do: the detail box is short.
  const where =
    scope.kind === 'remote'
      ? `This remote window reads agent commands ("hermes.agents") from ${scopeName(scope)}, not from your local User settings.`
      : `Agent commands ("hermes.agents") are read from ${scopeName(scope)}.`;
  if (AgentNotFoundError.is(e)) {
    const what = name === 'Hermes' ? 'Hermes Agent (https://github.com/NousResearch/hermes-agent)' : name;
    return {
      title: `\`${e.command}\` was not found on PATH${scope.kind === 'remote' ? ` of the remote machine (${scope.label})` : ''}.`,
      detail: `${where} Use "Set Up Agent…" to choose its executable${scope.kind === 'remote' ? ' there' : ''}, or install ${what}${scope.kind === 'remote' ? ' on that machine' : ''}.`,
      actions: ['setupAgent', openScope, 'checkInstallation', 'useDemoAgent'],
    };
  }
  if (AgentSpawnError.is(e)) {
    return { title: e.message, detail: `${where} Check the command of "${agent.id}" there, or use "Set Up Agent…".`, actions: ['setupAgent', openScope, 'showTraffic'] };
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
