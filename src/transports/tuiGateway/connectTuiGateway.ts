import * as path from 'node:path';
import type { AgentCommand } from '../../wire/agentProcess';
import { StdioChannel } from '../jsonRpc/stdioChannel';
import { WebSocketChannel, type WebSocketTarget } from '../jsonRpc/webSocketChannel';
import type { LineChannel } from '../jsonRpc/lineChannel';
import { TuiGatewayConnection, type TuiGatewayOptions } from './tuiGatewayConnection';

/**
 * Where the gateway is. `stdio` starts it: Hermes' own TUI runs `<python> -m tui_gateway.entry`
 * with the Hermes source root on `PYTHONPATH` and `HERMES_PYTHON_SRC_ROOT` (ui-tui/src/gatewayClient.ts),
 * where `<python>` is the interpreter of the Hermes install (`HERMES_PYTHON`). `websocket` attaches to
 * a running one — `hermes dashboard` serves `/api/ws`, authenticated by its session token.
 */
export type GatewayTarget = { readonly kind: 'stdio'; readonly command: AgentCommand } | ({ readonly kind: 'websocket' } & WebSocketTarget);

/**
 * The stdio command for a Hermes install: its Python and source root. The root goes in front of
 * the `PYTHONPATH` we were started with, as Hermes' own TUI does (an install whose dependencies
 * come from `PYTHONPATH` keeps them). `HERMES_TUI_TOOL_PROGRESS=all` (read by `tui_gateway`,
 * overriding `display.tool_progress`) keeps `tool.start` / `tool.complete` coming even when the
 * user's display config hides them: approvals carry no tool-call id, and the open tool call is how
 * a permission card finds its place.
 */
export function gatewayCommand(
  python: string,
  hermesRoot: string,
  cwd: string,
  env: Readonly<Record<string, string>> = {},
  inherited: { readonly pythonPath?: string | undefined; readonly delimiter: string } = { pythonPath: process.env.PYTHONPATH, delimiter: path.delimiter },
): AgentCommand {
  const rest = inherited.pythonPath?.split(inherited.delimiter).filter((p) => p !== '' && p !== hermesRoot) ?? [];
  return {
    command: python,
    args: ['-m', 'tui_gateway.entry'],
    cwd,
    env: { PYTHONPATH: [hermesRoot, ...rest].join(inherited.delimiter), HERMES_PYTHON_SRC_ROOT: hermesRoot, PYTHONUNBUFFERED: '1', HERMES_TUI_TOOL_PROGRESS: 'all', ...env },
  };
}

/** Connects (or starts) the gateway and completes the handshake; closes what it opened on failure. */
export async function connectTuiGateway(target: GatewayTarget, options: TuiGatewayOptions): Promise<TuiGatewayConnection> {
  const channel: LineChannel = target.kind === 'stdio' ? await StdioChannel.start(target.command, options.log) : await WebSocketChannel.connect(target, options.log);
  const connection = new TuiGatewayConnection(channel, options);
  try {
    await connection.handshake();
    return connection;
  } catch (e) {
    await connection.dispose();
    throw e;
  }
}
