/** Environment knobs of the scripted agent, read once at start-up. See test/agents/README.md. */

export interface Knobs {
  /** `SCRIPTED_AGENT_NO_PROVIDER=1`: `session/new` fails like Hermes without a provider. */
  readonly noProvider: boolean;
  /** `SCRIPTED_AGENT_INIT_DELAY_MS`: delay before answering `initialize`. */
  readonly initDelayMs: number;
  /** `SCRIPTED_AGENT_CONFIG_OPTIONS=1`: sessions carry `configOptions` instead of `modes`/`models`. */
  readonly configOptions: boolean;
  /** `SCRIPTED_AGENT_STATE_FILE`: absolute path of the JSON file that persists sessions. */
  readonly stateFile: string | undefined;
  /** `SCRIPTED_AGENT_RESUME_REPLAYS=1`: `session/resume` replays history (as Hermes does). */
  readonly resumeReplays: boolean;
  /** `SCRIPTED_AGENT_LIST_PAGE_SIZE`: page size of `session/list` (default 50, as Hermes). */
  readonly listPageSize: number;
  /** `SCRIPTED_AGENT_CRASH_ON_LOAD=1`: exit in the middle of a `session/load` replay. */
  readonly crashOnLoad: boolean;
  /** `SCRIPTED_AGENT_CHUNK_DELAY_MS`: pause between streamed chunks (default 5). */
  readonly chunkDelayMs: number;
  /** `SCRIPTED_AGENT_MODES`: `hermes` (default), `auto-first` (Qwen Code's modes, starting in `auto`), `none`. */
  readonly modes: 'hermes' | 'auto-first' | 'none';
  /** `SCRIPTED_AGENT_INFO_NAME`: `agentInfo.name` to answer (impersonating a real agent's profile); `none` omits `agentInfo`. */
  readonly infoName: string | null;
  /** `SCRIPTED_AGENT_AUTH`: `required` (one agent sign-in method), `required-two` (two), else none needed. */
  readonly auth: 'none' | 'required' | 'required-two';
  /** `SCRIPTED_AGENT_MCP=http,sse`: the MCP transports advertised in `mcpCapabilities` (stdio is implied). */
  readonly mcp: { readonly http: boolean; readonly sse: boolean };
  /** `SCRIPTED_AGENT_API_KEY`: the value `SCRIPTED_API_KEY` must have for the env-var method to sign in (default `sk-scripted`). */
  readonly apiKey: string;
  /** `SCRIPTED_AGENT_AUTH_FAIL=ID[:N]`: `authenticate` with method ID fails (the first N times; always without N). */
  readonly authFail: { readonly methodId: string; readonly times: number } | undefined;
  /** `SCRIPTED_AGENT_ADDITIONAL_DIRS=1`: advertises `sessionCapabilities.additionalDirectories`. */
  readonly additionalDirs: boolean;
  /** `SCRIPTED_AGENT_NO_CLOSE=1`: `sessionCapabilities.close` is not advertised (`session/close` still works). */
  readonly noClose: boolean;
  /** `SCRIPTED_AGENT_IGNORE_EOF=1`: keeps running after stdin ends, as Claude Agent ACP and Codex ACP do. */
  readonly ignoreEof: boolean;
  /** `SCRIPTED_AGENT_NO_START_USAGE=1`: no `usage_update` after `session/new` (the Demo: no figure before a turn). */
  readonly noStartUsage: boolean;
  /** `SCRIPTED_AGENT_NO_RESUME=1`: `sessionCapabilities.resume` is not advertised (`session/resume` still works): clients use `session/load`. */
  readonly noResume: boolean;
  /** `SCRIPTED_AGENT_NO_EMBEDDED=1`: `promptCapabilities.embeddedContext` is false (clients send context as text). */
  readonly noEmbedded: boolean;
}

function authFail(raw: string | undefined): Knobs['authFail'] {
  const m = /^([^:\s]+)(?::(\d+))?$/.exec(raw?.trim() ?? '');
  return m?.[1] === undefined ? undefined : { methodId: m[1], times: m[2] !== undefined ? Number.parseInt(m[2], 10) : Number.POSITIVE_INFINITY };
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const v = env[name]?.trim().toLowerCase();
  return v === '1' || v === 'true' || v === 'yes';
}

function list(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '').split(',').map((x) => x.trim().toLowerCase());
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || !/^\d+$/.test(raw)) {
    return fallback;
  }
  return Math.max(min, Number.parseInt(raw, 10));
}

function oneOf<T extends string>(raw: string | undefined, values: readonly T[], fallback: T): T {
  const v = raw?.trim();
  return values.find((x) => x === v) ?? fallback;
}

export function readKnobs(env: NodeJS.ProcessEnv = process.env): Knobs {
  const stateFile = env.SCRIPTED_AGENT_STATE_FILE?.trim();
  return {
    noProvider: flag(env, 'SCRIPTED_AGENT_NO_PROVIDER'),
    initDelayMs: int(env, 'SCRIPTED_AGENT_INIT_DELAY_MS', 0, 0),
    configOptions: flag(env, 'SCRIPTED_AGENT_CONFIG_OPTIONS'),
    stateFile: stateFile === undefined || stateFile === '' ? undefined : stateFile,
    resumeReplays: flag(env, 'SCRIPTED_AGENT_RESUME_REPLAYS'),
    listPageSize: int(env, 'SCRIPTED_AGENT_LIST_PAGE_SIZE', 50, 1),
    crashOnLoad: flag(env, 'SCRIPTED_AGENT_CRASH_ON_LOAD'),
    chunkDelayMs: int(env, 'SCRIPTED_AGENT_CHUNK_DELAY_MS', 5, 0),
    modes: oneOf(env.SCRIPTED_AGENT_MODES, ['hermes', 'auto-first', 'none'] as const, 'hermes'),
    infoName: env.SCRIPTED_AGENT_INFO_NAME === 'none' ? null : env.SCRIPTED_AGENT_INFO_NAME?.trim() || 'scripted-agent',
    auth: oneOf(env.SCRIPTED_AGENT_AUTH, ['none', 'required', 'required-two'] as const, 'none'),
    mcp: { http: list(env, 'SCRIPTED_AGENT_MCP').includes('http'), sse: list(env, 'SCRIPTED_AGENT_MCP').includes('sse') },
    apiKey: env.SCRIPTED_AGENT_API_KEY?.trim() || 'sk-scripted',
    authFail: authFail(env.SCRIPTED_AGENT_AUTH_FAIL),
    additionalDirs: flag(env, 'SCRIPTED_AGENT_ADDITIONAL_DIRS'),
    noClose: flag(env, 'SCRIPTED_AGENT_NO_CLOSE'),
    ignoreEof: flag(env, 'SCRIPTED_AGENT_IGNORE_EOF'),
    noStartUsage: flag(env, 'SCRIPTED_AGENT_NO_START_USAGE'),
    noResume: flag(env, 'SCRIPTED_AGENT_NO_RESUME'),
    noEmbedded: flag(env, 'SCRIPTED_AGENT_NO_EMBEDDED'),
  };
}
