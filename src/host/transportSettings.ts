import { isObject } from '../util/json';

/**
 * How a configured agent is reached (`hermes.agents[].transport`): `acp` (the default — the entry's
 * command speaks ACP on stdio), the TUI Gateway (`gateway`: started from a Hermes install with
 * `python` + `hermesRoot`, or attached over WebSocket at `url`), or the API Server (`apiServer`:
 * `baseUrl`, `mode` chat or runs). Tokens and keys are not settings: they live in SecretStorage
 * (the extension) or the environment (the runner: `HERMES_GATEWAY_TOKEN`, `HERMES_API_KEY`).
 */
export type TransportSettings =
  | { readonly kind: 'tui-gateway'; readonly python?: string; readonly hermesRoot?: string; readonly url?: string }
  | { readonly kind: 'api-server'; readonly baseUrl: string; readonly mode: 'chat' | 'runs' };

/** The secret a transport needs and where the user is asked for it. */
export function transportSecretKey(agentId: string, t: TransportSettings): { key: string; label: string } | undefined {
  if (t.kind === 'tui-gateway') {
    return t.url !== undefined ? { key: `hermes.gatewayToken.${agentId}`, label: 'gateway session token' } : undefined;
  }
  return { key: `hermes.apiKey.${agentId}`, label: 'API Server key' };
}

/**
 * Reads an agent entry's transport. `undefined` settings: plain ACP. A problem is said in words
 * (shown with the other settings problems) and the entry is left out rather than half-used.
 */
export function parseTransportSettings(item: Readonly<Record<string, unknown>>): { settings?: TransportSettings; problem?: string } {
  const kind = item.transport ?? 'acp';
  const str = (o: unknown, k: string): string | undefined => (isObject(o) && typeof o[k] === 'string' && o[k] !== '' ? o[k] : undefined);
  switch (kind) {
    case 'acp':
      return {};
    case 'tui-gateway': {
      const g = item.gateway;
      const url = str(g, 'url');
      const python = str(g, 'python');
      const hermesRoot = str(g, 'hermesRoot');
      if (url !== undefined && !/^wss?:\/\//.test(url)) {
        return { problem: `gateway.url must be a ws:// or wss:// URL (got "${url}").` };
      }
      if (url === undefined && hermesRoot === undefined) {
        return { problem: 'a tui-gateway agent needs gateway.url (a running gateway) or gateway.hermesRoot (a Hermes source checkout to start it from).' };
      }
      return { settings: { kind: 'tui-gateway', ...(url !== undefined ? { url } : {}), ...(python !== undefined ? { python } : {}), ...(hermesRoot !== undefined ? { hermesRoot } : {}) } };
    }
    case 'api-server': {
      const a = item.apiServer;
      const baseUrl = str(a, 'baseUrl');
      const mode = str(a, 'mode') ?? 'chat';
      if (baseUrl === undefined || !/^https?:\/\//.test(baseUrl)) {
        return { problem: 'an api-server agent needs apiServer.baseUrl, an http:// or https:// URL.' };
      }
      if (mode !== 'chat' && mode !== 'runs') {
        return { problem: `apiServer.mode must be "chat" or "runs" (got "${mode}").` };
      }
      return { settings: { kind: 'api-server', baseUrl, mode } };
    }
    default:
      return { problem: `transport must be "acp", "tui-gateway" or "api-server" (got ${JSON.stringify(kind)}).` };
  }
}
