/**
 * The scripted agent's ACP method handlers (everything except the prompt turn itself).
 * Behaviour follows Hermes 0.19.0 where Hermes is spec-conformant, and the spec where it is not;
 * each deviation is named in test/agents/README.md.
 */
import * as acp from '@agentclientprotocol/sdk';
import type {
  AgentContext,
  AuthMethod,
  InitializeResponse,
  JsonRpcId,
  ListSessionsResponse,
  NewSessionResponse,
  SessionCapabilities,
  SessionConfigOption,
  SessionModeState,
} from '@agentclientprotocol/sdk';
import { log } from './agentLog';
import { noteSetupValues } from './continuityScenarios';
import { runPrompt } from './promptTurn';
import { exitAfterFlush, type AgentRuntime, type LiveSession } from './runtime';
import {
  configOptions,
  defaultModelId,
  initialCommands,
  isModeId,
  isModelId,
  legacyModels,
  modeDefaults,
  modeState,
  models,
  modes,
  type LegacyModelState,
} from './sessionConfig';
import { displayTitle, type StoredSession } from './sessionStore';
import { contextWindow } from './textScenarios';

export const agentInfo = { name: 'scripted-agent', title: 'Scripted test agent', version: '1.0.0' };

/** Stands in for Hermes' `hermes-setup` terminal method: the client re-runs the agent with `--setup`. */
const setupMethod: AuthMethod = {
  id: 'scripted-setup',
  name: 'Configure scripted agent',
  description: 'Runs the scripted agent with --setup in a terminal (stands in for `hermes acp --setup`).',
  type: 'terminal',
  args: ['--setup'],
};

/**
 * With SCRIPTED_AGENT_AUTH: agent-type methods (no `type`: the agent signs in by itself when asked)
 * and an env-var method (unstable in v1; Codex sends one), as Hermes', Codex's and Cline's lists mix them.
 */
function authMethodsOf(runtime: AgentRuntime): unknown[] {
  if (runtime.knobs.auth === 'none') {
    return [setupMethod];
  }
  const login = { id: 'scripted-login', name: 'Log in with the stored scripted credentials', description: 'The agent signs in by itself.' };
  const token = { id: 'scripted-token', name: 'Use a scripted token', description: 'The agent signs in with a token.' };
  const envVar = { id: 'scripted-api-key', name: 'Use SCRIPTED_API_KEY', type: 'env_var', varName: 'SCRIPTED_API_KEY' };
  return runtime.knobs.auth === 'required' ? [login, setupMethod, envVar] : [login, token, setupMethod, envVar];
}

/** SCRIPTED_AGENT_AUTH: session setup answers `auth_required` until signed in (authenticate, or SCRIPTED_API_KEY). */
function requireSignedIn(runtime: AgentRuntime, method: string): void {
  if (runtime.knobs.auth !== 'none' && !runtime.signedIn) {
    log(`${method} refused: auth_required (SCRIPTED_AGENT_AUTH)`);
    throw acp.RequestError.authRequired(undefined, 'Sign in first: no stored credentials for the scripted agent.');
  }
}

/** What new/load/resume/fork answer besides the id: Hermes' `modes` + legacy `models`, or `configOptions`. */
type SessionSetup = {
  modes?: SessionModeState;
  models?: LegacyModelState;
  configOptions?: SessionConfigOption[];
};

function clientSupportsBoolean(runtime: AgentRuntime): boolean {
  return runtime.clientCapabilities.session?.configOptions?.boolean != null;
}

function setupOf(runtime: AgentRuntime, stored: StoredSession): SessionSetup {
  if (runtime.knobs.configOptions) {
    return { configOptions: configOptions(stored, clientSupportsBoolean(runtime)) };
  }
  return { ...(modes.length > 0 ? { modes: modeState(stored) } : {}), models: legacyModels(stored) };
}

function open(runtime: AgentRuntime, stored: StoredSession): LiveSession {
  const existing = runtime.live.get(stored.sessionId);
  if (existing !== undefined) {
    return existing;
  }
  const live: LiveSession = { stored, turn: undefined, sessionAllowedCommands: new Set() };
  runtime.live.set(stored.sessionId, live);
  return live;
}

function requireLive(runtime: AgentRuntime, sessionId: string): LiveSession {
  const live = runtime.live.get(sessionId);
  if (live === undefined) {
    throw acp.RequestError.sessionNotFound(sessionId);
  }
  return live;
}

function requireStored(runtime: AgentRuntime, sessionId: string): StoredSession {
  const stored = runtime.store.get(sessionId);
  if (stored === undefined) {
    log(`unknown session ${sessionId}`);
    throw acp.RequestError.sessionNotFound(sessionId);
  }
  return stored;
}

/**
 * Hermes schedules `available_commands_update` (and after `session/new` a `usage_update`) just
 * AFTER the response; waiting for the response frame keeps that order deterministic.
 */
function afterSetupResponse(
  runtime: AgentRuntime,
  client: AgentContext,
  requestId: JsonRpcId,
  stored: StoredSession,
  withUsage: boolean,
): void {
  if (requestId === null) {
    return;
  }
  void runtime.stdout.afterResponse(requestId).then(async (ok) => {
    if (!ok) {
      return;
    }
    const sessionId = stored.sessionId;
    try {
      await client.notify('session/update', {
        sessionId,
        update: { sessionUpdate: 'available_commands_update', availableCommands: initialCommands },
      });
      if (withUsage && !runtime.knobs.noStartUsage) {
        await client.notify('session/update', {
          sessionId,
          update: { sessionUpdate: 'usage_update', used: 10_000, size: contextWindow },
        });
      }
    } catch (err) {
      log(`post-response updates for ${sessionId} failed: ${String(err)}`);
    }
  });
}

/** Replays history as `session/update`s; the caller answers the request only afterwards (ACP load). */
async function replay(runtime: AgentRuntime, client: AgentContext, stored: StoredSession): Promise<void> {
  const updates = stored.turns.flatMap((t) => t.updates);
  const crashAt = runtime.knobs.crashOnLoad ? Math.max(1, Math.floor(updates.length / 2)) : -1;
  log(`replaying ${updates.length} updates of ${stored.turns.length} turns for ${stored.sessionId}`);
  for (const [i, update] of updates.entries()) {
    if (i === crashAt) {
      log('about to crash (SCRIPTED_AGENT_CRASH_ON_LOAD) in the middle of the replay');
      await exitAfterFlush(runtime, 1);
    }
    await client.notify('session/update', { sessionId: stored.sessionId, update });
  }
  if (crashAt >= 0 && updates.length <= crashAt) {
    log('about to crash (SCRIPTED_AGENT_CRASH_ON_LOAD) after a replay too short to interrupt');
    await exitAfterFlush(runtime, 1);
  }
}

// ---- parsers for the non-stable methods registered through onRequest(method, parser, handler) ----

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface ForkParams {
  sessionId: string;
  cwd: string;
}

function parseFork(raw: unknown): ForkParams {
  if (!isRecord(raw) || typeof raw.sessionId !== 'string' || typeof raw.cwd !== 'string') {
    throw acp.RequestError.invalidParams(raw, 'session/fork needs {sessionId, cwd, mcpServers?}');
  }
  return { sessionId: raw.sessionId, cwd: raw.cwd };
}

interface SetModelParams {
  sessionId: string;
  modelId: string;
}

function parseSetModel(raw: unknown): SetModelParams {
  if (!isRecord(raw) || typeof raw.sessionId !== 'string' || typeof raw.modelId !== 'string') {
    throw acp.RequestError.invalidParams(raw, 'session/set_model needs {sessionId, modelId}');
  }
  return { sessionId: raw.sessionId, modelId: raw.modelId };
}

function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  const m = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m?.[1] === undefined ? undefined : Number.parseInt(m[1], 10);
}

export function buildAgent(runtime: AgentRuntime): acp.AgentApp {
  return acp
    .agent({ name: 'scripted-agent' })
    .onRequest('initialize', async ({ params }): Promise<InitializeResponse> => {
      runtime.clientCapabilities = params.clientCapabilities ?? {};
      const caps = runtime.clientCapabilities;
      log(
        `initialize from ${params.clientInfo?.name ?? 'unknown client'} (protocol ${params.protocolVersion}); ` +
          `fs.read=${caps.fs?.readTextFile === true} fs.write=${caps.fs?.writeTextFile === true} ` +
          `terminal=${caps.terminal === true} boolean-config=${clientSupportsBoolean(runtime)}`,
      );
      if (runtime.knobs.initDelayMs > 0) {
        await new Promise((r) => setTimeout(r, runtime.knobs.initDelayMs));
      }
      // `fork` is unstable in v1, so the stable type lacks it; a non-literal object passes it through.
      const sessionCapabilities: SessionCapabilities = {
        list: {},
        ...(runtime.knobs.noResume ? {} : { resume: {} }),
        ...(runtime.knobs.noClose ? {} : { close: {} }),
        ...{ fork: {} },
        ...(runtime.knobs.additionalDirs ? { additionalDirectories: {} } : {}),
      };
      // Like Hermes, always answer version 1 (the only one this agent speaks).
      const name = runtime.knobs.infoName;
      return {
        protocolVersion: 1,
        ...(name === null ? {} : { agentInfo: { ...agentInfo, name } }),
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: !runtime.knobs.noEmbedded },
          mcpCapabilities: runtime.knobs.mcp,
          sessionCapabilities,
        },
        authMethods: authMethodsOf(runtime) as AuthMethod[],
      };
    })
    .onRequest('authenticate', ({ params }) => {
      if (runtime.knobs.auth !== 'none') {
        const agentMethods = authMethodsOf(runtime).filter((m): m is { id: string } => typeof m === 'object' && m !== null && !('type' in m));
        if (!agentMethods.some((m) => m.id === params.methodId)) {
          log(`authenticate ${params.methodId} refused: not an agent method`);
          throw acp.RequestError.invalidParams({ methodId: params.methodId }, `cannot authenticate with '${params.methodId}' here`);
        }
        const fail = runtime.knobs.authFail;
        if (fail?.methodId === params.methodId && runtime.counters.authFailures < fail.times) {
          runtime.counters.authFailures++;
          log(`authenticate ${params.methodId} failed (SCRIPTED_AGENT_AUTH_FAIL, ${runtime.counters.authFailures})`);
          throw new acp.RequestError(-32603, 'Internal error', { details: 'Login failed: the scripted credentials have expired.' });
        }
        runtime.signedIn = true;
      }
      // Hermes answers `{}` to every authenticate; terminal methods should never be sent here.
      log(`authenticate ${params.methodId} (answered {})`);
      return {};
    })
    .onRequest('session/new', ({ params, client, requestId }): NewSessionResponse & SessionSetup => {
      if (runtime.knobs.noProvider) {
        log('session/new refused: no provider configured (SCRIPTED_AGENT_NO_PROVIDER)');
        throw new acp.RequestError(-32603, 'Internal error', {
          details:
            'No LLM provider configured. Run `hermes model` to select a provider, or run `hermes setup` for first-time configuration.',
        });
      }
      requireSignedIn(runtime, 'session/new');
      const stored = runtime.store.create(params.cwd, { modeId: modeDefaults.initial, modelId: defaultModelId });
      open(runtime, stored);
      log(`session/new ${stored.sessionId} in ${params.cwd}`);
      // The whole list, secrets included, as a careless agent would log it: the client must redact it.
      log(`session/new mcpServers ${JSON.stringify(params.mcpServers)}`);
      noteSetupValues(params.mcpServers);
      if (params.additionalDirectories !== undefined) {
        log(`session/new additionalDirectories ${JSON.stringify(params.additionalDirectories)}`);
      }
      afterSetupResponse(runtime, client, requestId, stored, true);
      return { sessionId: stored.sessionId, ...setupOf(runtime, stored) };
    })
    .onRequest('session/load', async ({ params, client, requestId }): Promise<SessionSetup> => {
      requireSignedIn(runtime, 'session/load');
      const stored = requireStored(runtime, params.sessionId);
      stored.cwd = params.cwd;
      const live = open(runtime, stored);
      live.turn?.cancel('session/load of a running session');
      log(`session/load ${stored.sessionId}`);
      noteSetupValues(params.mcpServers);
      await replay(runtime, client, stored);
      afterSetupResponse(runtime, client, requestId, stored, true);
      return setupOf(runtime, stored);
    })
    .onRequest('session/resume', async ({ params, client, requestId }): Promise<SessionSetup> => {
      requireSignedIn(runtime, 'session/resume');
      const stored = requireStored(runtime, params.sessionId);
      stored.cwd = params.cwd;
      open(runtime, stored);
      noteSetupValues(params.mcpServers);
      // ACP: resume MUST NOT replay; Hermes 0.19 does (observed), hence the knob.
      log(`session/resume ${stored.sessionId} (${runtime.knobs.resumeReplays ? 'replaying, Hermes style' : 'no replay'})`);
      if (runtime.knobs.resumeReplays) {
        await replay(runtime, client, stored);
      }
      afterSetupResponse(runtime, client, requestId, stored, false);
      return setupOf(runtime, stored);
    })
    .onRequest('session/list', ({ params }): ListSessionsResponse => {
      const matching = runtime.store.all().filter((s) => params.cwd == null || s.cwd === params.cwd);
      const offset = params.cursor == null ? 0 : decodeCursor(params.cursor);
      if (offset === undefined) {
        // Hermes answers an unknown cursor with an empty page.
        log(`session/list with unknown cursor ${params.cursor ?? ''}: empty page`);
        return { sessions: [] };
      }
      const size = runtime.knobs.listPageSize;
      const page = matching.slice(offset, offset + size);
      const next = offset + size < matching.length ? encodeCursor(offset + size) : undefined;
      log(`session/list cwd=${params.cwd ?? '*'} offset=${offset}: ${page.length} of ${matching.length}`);
      return {
        sessions: page.map((s) => ({ sessionId: s.sessionId, cwd: s.cwd, title: displayTitle(s), updatedAt: s.updatedAt })),
        ...(next === undefined ? {} : { nextCursor: next }),
      };
    })
    .onRequest('session/close', ({ params }) => {
      const live = runtime.live.get(params.sessionId);
      if (live === undefined) {
        requireStored(runtime, params.sessionId);
        return {};
      }
      // ACP: close cancels ongoing work as if session/cancel had been sent, then frees the session.
      live.turn?.cancel('session/close');
      runtime.live.delete(params.sessionId);
      log(`session/close ${params.sessionId}`);
      return {};
    })
    .onRequest('session/set_mode', ({ params }) => {
      const live = requireLive(runtime, params.sessionId);
      if (!isModeId(params.modeId)) {
        throw acp.RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode '${params.modeId}'; available: ${modes.map((m) => m.id).join(', ')}`,
        );
      }
      live.stored.modeId = params.modeId;
      runtime.store.touch(live.stored);
      log(`session/set_mode ${params.sessionId} ${params.modeId}`);
      return {};
    })
    .onRequest('session/set_config_option', ({ params }) => {
      const live = requireLive(runtime, params.sessionId);
      if (!runtime.knobs.configOptions) {
        throw acp.RequestError.invalidParams(
          { configId: params.configId },
          'this session has no config options (start the agent with SCRIPTED_AGENT_CONFIG_OPTIONS=1)',
        );
      }
      const s = live.stored;
      const value = params.value;
      if (params.configId === 'mode' && typeof value === 'string' && isModeId(value)) {
        s.modeId = value;
      } else if (params.configId === 'model' && typeof value === 'string' && isModelId(value)) {
        s.modelId = value;
      } else if (params.configId === 'fast' && typeof value === 'boolean' && clientSupportsBoolean(runtime)) {
        s.fast = value;
      } else {
        throw acp.RequestError.invalidParams(
          { configId: params.configId, value },
          `invalid value ${JSON.stringify(value)} for config option '${params.configId}'`,
        );
      }
      runtime.store.touch(s);
      log(`session/set_config_option ${params.sessionId} ${params.configId}=${JSON.stringify(value)}`);
      return { configOptions: configOptions(s, clientSupportsBoolean(runtime)) };
    })
    .onRequest('session/prompt', (ctx) => runPrompt(runtime, ctx))
    .onNotification('session/cancel', ({ params }) => {
      const turn = runtime.live.get(params.sessionId)?.turn;
      if (turn === undefined) {
        log(`session/cancel for ${params.sessionId} with no running turn (ignored)`);
        return;
      }
      turn.cancel('session/cancel');
    })
    // Unstable in v1 (SDK `/unstable` only), registered with a parser like any extension method.
    .onRequest('session/fork', parseFork, ({ params, client, requestId }) => {
      const source = requireStored(runtime, params.sessionId);
      const forked = runtime.store.fork(source, params.cwd);
      open(runtime, forked);
      log(`session/fork ${source.sessionId} -> ${forked.sessionId}`);
      afterSetupResponse(runtime, client, requestId, forked, false);
      return { sessionId: forked.sessionId, ...setupOf(runtime, forked) };
    })
    // Removed from the protocol in 0.13.5 but still implemented by Hermes 0.19.
    .onRequest('session/set_model', parseSetModel, ({ params }) => {
      const live = requireLive(runtime, params.sessionId);
      if (!isModelId(params.modelId)) {
        throw acp.RequestError.invalidParams(
          { modelId: params.modelId },
          `unknown model id '${params.modelId}'; available: ${models.map((m) => m.modelId).join(', ')}`,
        );
      }
      live.stored.modelId = params.modelId;
      runtime.store.touch(live.stored);
      log(`session/set_model ${params.sessionId} ${params.modelId}`);
      return {};
    });
}
