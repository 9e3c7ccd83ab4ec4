import type { AgentDefinition } from '../host/agentHost';
import { AgentExitedError, AgentNotFoundError, AgentProtocolError, AgentSpawnError, AgentTimeoutError, describeError, describeRpcError, isRpcError, RpcCode } from '../agentPort/agentErrors';
import type { NoticeAction } from '../session/sessionState';
import { formatMessage, type Localize } from '../util/l10n';
import { scopeName, type AgentSettingsScope } from './settingsScope';
import { lastLines, recogniseStderr } from './stderrCauses';

export interface StartErrorNotice {
  readonly title: string;
  /** Prose: what to do. */
  readonly detail?: string;
  /** The agent's last stderr lines. */
  readonly log?: string;
  readonly actions: readonly NoticeAction[];
}

/** Prose and log from what the agent wrote: the cause recognised in it, else `fallback`. */
function withStderr(stderr: string, fallback: string | undefined, t: Localize): Pick<StartErrorNotice, 'detail' | 'log'> {
  const cause = recogniseStderr(stderr, t);
  const log = lastLines(stderr);
  const detail = cause !== undefined ? t('Likely cause: {0} {1}', cause.summary, cause.advice) : fallback;
  return { ...(detail !== undefined ? { detail } : {}), ...(log !== '' ? { log } : {}) };
}

/**
 * What to tell the user when an agent or a session could not start: what happened, where to look
 * (the traffic log) and the next step — never a stack trace. `scope` is where this window reads the
 * agent commands: a remote window ignores the local User settings, so naming "the user setting"
 * there would send the user to a value that is never read (issue 22). `stderr` is what the agent
 * wrote since its last message (the exit's own tail when it exited): its last lines are shown,
 * and a cause recognised in them (root, credentials, a missing package; stderrCauses.ts) is named.
 */
export function describeStartError(
  e: unknown,
  agent: AgentDefinition,
  scope: AgentSettingsScope = { kind: 'user' },
  t: Localize = formatMessage,
  stderr = '',
): StartErrorNotice {
  const name = agent.name;
  const openScope: NoticeAction = scope.kind === 'remote' ? 'openRemoteSettings' : 'openSettings';
  // First what the user must know (which settings count), then what to do: the detail box is short.
  const where =
    scope.kind === 'remote'
      ? t('This remote window reads agent commands ("hermes.agents") from {0}, not from your local User settings.', scopeName(scope, t))
      : t('Agent commands ("hermes.agents") are read from {0}.', scopeName(scope, t));
  if (AgentNotFoundError.is(e)) {
    const what = name === 'Hermes' ? 'Hermes Agent (https://github.com/NousResearch/hermes-agent)' : name;
    const remote = scope.kind === 'remote';
    return {
      title: remote ? t('`{0}` was not found on PATH of the remote machine ({1}).', e.command, scope.label) : t('`{0}` was not found on PATH.', e.command),
      detail: remote
        ? t('{0} Use "Set Up Agent…" to choose its executable there, or install {1} on that machine.', where, what)
        : t('{0} Use "Set Up Agent…" to choose its executable, or install {1}.', where, what),
      actions: ['setupAgent', openScope, 'checkInstallation', 'useDemoAgent'],
    };
  }
  if (AgentSpawnError.is(e)) {
    return { title: e.message, detail: t('{0} Check the command of "{1}" there, or use "Set Up Agent…".', where, agent.id), actions: ['setupAgent', openScope, 'showTraffic'] };
  }
  if (AgentTimeoutError.is(e)) {
    return {
      title: t('{0} did not answer `{1}` within {2} s.', name, e.method, Math.round(e.timeoutMs / 1000)),
      ...withStderr(stderr, stderr.trim() !== '' ? t('Its last lines of output are below; the traffic log has everything it sent.') : t('It wrote nothing to stderr; the traffic log shows what it sent.'), t),
      actions: ['showTraffic', 'restartAgent'],
    };
  }
  if (AgentExitedError.is(e)) {
    return {
      title: e.signal !== null ? t('{0} exited while starting (signal {1}).', name, e.signal) : t('{0} exited while starting (code {1}).', name, String(e.exitCode)),
      ...withStderr(e.stderrTail, e.stderrTail.trim() === '' ? t('It wrote nothing to stderr; the traffic log shows what it sent.') : undefined, t),
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
        title: t('{0} has no LLM provider configured.', name),
        detail: `${text}\n${t('Run "Set Up Provider" to configure one in a terminal; the chat reconnects afterwards.')}`,
        actions: ['setupProvider', 'showTraffic'],
      };
    }
    const cause = recogniseStderr(stderr, t);
    return {
      title: t('{0} could not start a session.', name),
      detail: cause !== undefined ? `${text} (JSON-RPC ${e.code})\n${t('Likely cause: {0} {1}', cause.summary, cause.advice)}` : `${text} (JSON-RPC ${e.code})`,
      ...(stderr.trim() !== '' ? { log: lastLines(stderr) } : {}),
      actions: ['showTraffic', 'restartAgent'],
    };
  }
  const cause = recogniseStderr(stderr, t);
  return {
    title: t('{0} could not start.', name),
    detail: cause !== undefined ? `${describeError(e)}\n${t('Likely cause: {0} {1}', cause.summary, cause.advice)}` : describeError(e),
    ...(stderr.trim() !== '' ? { log: lastLines(stderr) } : {}),
    actions: ['showTraffic', 'restartAgent'],
  };
}

/** How the chat says an exit nobody asked for (AgentExitedError's message, localized). */
export function exitTitle(exit: AgentExitedError, t: Localize): string {
  return exit.signal !== null ? t('The agent was killed by {0}.', exit.signal) : t('The agent exited with code {0}.', String(exit.exitCode));
}
