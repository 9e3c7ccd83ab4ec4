import { statSync } from 'node:fs';
import * as path from 'node:path';
import type { TransportSettings } from '../host/transportSettings';

/** The `parseArgs` options of `--transport` and its settings (merged into args.ts' table). */
export const transportOptionSpecs = {
  transport: { type: 'string' },
  'gateway-url': { type: 'string' },
  python: { type: 'string' },
  'hermes-root': { type: 'string' },
  'base-url': { type: 'string' },
  'api-mode': { type: 'string' },
} as const;

export interface TransportFlags {
  readonly transport?: string;
  readonly 'gateway-url'?: string;
  readonly python?: string;
  readonly 'hermes-root'?: string;
  readonly 'base-url'?: string;
  readonly 'api-mode'?: string;
  readonly mode?: string;
  readonly permissions?: string;
  readonly auth?: string;
  readonly 'mcp-config'?: string;
}

/** What the transport flags decide: the transport (absent: ACP) and the session mode left for ACP's `--mode`. */
export interface TransportChoice {
  readonly transport?: TransportSettings;
  readonly sessionMode?: string;
}

/**
 * Reads `--transport acp|tui-gateway|api-server` and its settings. A setting of another transport,
 * an agent command after `--` or an ACP-only option with a non-ACP transport is a usage error
 * (returned as a message), never silently ignored. Tokens and keys are not options: they come from
 * the environment (`HERMES_GATEWAY_TOKEN`, `HERMES_API_KEY`), since a command line is visible to
 * every user of the machine (`ps`).
 */
export function parseTransportFlags(values: TransportFlags, agentCommandGiven: boolean, cwd: string): TransportChoice | string {
  const kind = values.transport ?? 'acp';
  const gatewayFlags = (['gateway-url', 'python', 'hermes-root'] as const).filter((f) => values[f] !== undefined);
  const apiFlags = (['base-url', 'api-mode'] as const).filter((f) => values[f] !== undefined);
  const foreign = (flags: readonly string[], needs: string): string | undefined =>
    flags.length > 0 ? `--${flags[0] ?? ''} needs --transport ${needs}` : undefined;
  switch (kind) {
    case 'acp': {
      const wrong = foreign(gatewayFlags, 'tui-gateway') ?? foreign(apiFlags, 'api-server');
      return wrong ?? (values.mode !== undefined ? { sessionMode: values.mode } : {});
    }
    case 'tui-gateway':
    case 'api-server': {
      const wrong =
        (kind === 'tui-gateway' ? foreign(apiFlags, 'api-server') : foreign(gatewayFlags, 'tui-gateway')) ??
        (agentCommandGiven ? `an agent command after "--" is for --transport acp; --transport ${kind} connects to Hermes itself` : undefined) ??
        (values.auth !== undefined ? `--auth is for --transport acp (ACP sign-in methods); --transport ${kind} has none` : undefined) ??
        (values['mcp-config'] !== undefined ? `--mcp-config is for --transport acp; with --transport ${kind}, Hermes uses the MCP servers of its own config` : undefined);
      if (wrong !== undefined) {
        return wrong;
      }
      return kind === 'tui-gateway' ? gatewaySettings(values, cwd) : apiServerSettings(values);
    }
    default:
      return `--transport must be "acp", "tui-gateway" or "api-server", not "${kind}"`;
  }
}

function gatewaySettings(values: TransportFlags, cwd: string): TransportChoice | string {
  if (values.mode !== undefined) {
    return '--mode: the TUI Gateway has no session modes (Hermes decides what needs approval from its own config)';
  }
  const url = values['gateway-url'];
  if (url !== undefined) {
    if (values.python !== undefined || values['hermes-root'] !== undefined) {
      return '--gateway-url attaches to a running gateway; --python and --hermes-root start one: use either';
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `--gateway-url must be a ws:// or wss:// URL, not "${url}"`;
    }
    if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
      return `--gateway-url must be a ws:// or wss:// URL, not "${url}"`;
    }
    if (parsed.searchParams.has('token')) {
      return '--gateway-url: put the session token in the environment variable HERMES_GATEWAY_TOKEN, not in the URL (a command line is visible to every user of the machine)';
    }
    return { transport: { kind: 'tui-gateway', url } };
  }
  const root = values['hermes-root'];
  if (root === undefined) {
    return '--transport tui-gateway needs --gateway-url ws://… (a running gateway) or --hermes-root DIR (a Hermes checkout to start it from)';
  }
  const hermesRoot = path.resolve(cwd, root);
  if (!isDirectory(hermesRoot)) {
    return `--hermes-root ${hermesRoot} is not a directory`;
  }
  const python = values.python;
  if (python?.trim() === '') {
    return '--python needs an interpreter';
  }
  // A path with a separator is the user's, relative to where they ran us; a bare name is looked up on PATH.
  const interpreter = python?.includes(path.sep) === true ? path.resolve(cwd, python) : python;
  return { transport: { kind: 'tui-gateway', hermesRoot, ...(interpreter !== undefined ? { python: interpreter } : {}) } };
}

function apiServerSettings(values: TransportFlags): TransportChoice | string {
  const baseUrl = values['base-url'];
  if (baseUrl === undefined) {
    return '--transport api-server needs --base-url http(s)://HOST:PORT';
  }
  if (!/^https?:\/\/[^/]/.test(baseUrl)) {
    return `--base-url must be an http:// or https:// URL, not "${baseUrl}"`;
  }
  // The API Server has no session modes; which of its APIs to use is --api-mode (ApiServerConnection's modes).
  if (values.mode !== undefined) {
    return `--mode is a session mode, and the API Server has none: pick its API with --api-mode chat|runs${values.mode === 'chat' || values.mode === 'runs' ? ` (--api-mode ${values.mode})` : ''}`;
  }
  const mode = values['api-mode'] ?? 'chat';
  if (mode !== 'chat' && mode !== 'runs') {
    return `--api-mode is "chat" (streamed chat completions) or "runs" (the runs API, with approvals), not "${mode}"`;
  }
  const permissions = values.permissions ?? 'deny';
  if (mode === 'chat' && permissions !== 'deny') {
    return (
      `--permissions ${permissions} cannot be held over the API Server's chat completions: Hermes has no approval channel there ` +
      '(a dangerous command is parked and never run, edits run without asking). Use --api-mode runs to answer approvals, or leave --permissions at deny'
    );
  }
  return { transport: { kind: 'api-server', baseUrl, mode } };
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
