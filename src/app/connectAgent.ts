import type { AgentHost, HostConnection } from '../host/agentHost';
import type { AgentToStart } from '../permissions/consentKey';
import type { McpServersView } from '../protocol/sessionView';
import { quirksFor } from '../session/agentQuirks';
import type { SessionController } from '../session/sessionController';
import type { AgentQuirks } from '../session/sessionState';
import type { Localize } from '../util/l10n';
import { prepareSessionSetup, type SessionSetupSource } from './sessionSetup';

/** Asks before an agent process is started (untrusted workspaces); keyed by what would run, not its name. */
export interface SpawnConsent {
  allow(agent: AgentToStart): Promise<boolean>;
}

export interface ConnectContext {
  readonly host: AgentHost;
  readonly controller: SessionController;
  readonly consent: SpawnConsent;
  readonly agentName: string;
  readonly t: Localize;
  readonly cwd: string;
  readonly quirks?: Partial<AgentQuirks> | undefined;
  readonly setup?: SessionSetupSource | undefined;
}

/** Whether the agent may run (it already does, or the user consents); a notice says why not. */
export async function mayConnect(ctx: ConnectContext): Promise<boolean> {
  if (ctx.host.state.kind === 'ready' || (await ctx.consent.allow(ctx.host.definition))) {
    return true;
  }
  ctx.controller.addNotice(
    'warning',
    ctx.t('{0} was not started: this workspace is not trusted.', ctx.agentName),
    ctx.t('Agents can read and change files and run commands. Trust the workspace, or allow this agent when asked.'),
  );
  return false;
}

/** Starts the agent (if needed), binds the controller to it and prepares the session setup (MCP servers, folders) for it. */
export async function connectAgent(ctx: ConnectContext): Promise<{ client: HostConnection; mcpView: McpServersView | undefined }> {
  const client = await ctx.host.start();
  ctx.controller.useConnection(client, { ...quirksFor(client.agent?.agentInfo), ...ctx.quirks });
  const setup = await prepareSessionSetup(ctx.setup, client.agent, ctx.agentName, ctx.cwd, ctx.host.log);
  ctx.controller.useSetup(setup.params);
  return { client, mcpView: setup.view };
}
