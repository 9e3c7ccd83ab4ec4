import * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../util/json';
import type { ClientPorts } from '../agentPort/clientPorts';
import { ClientRequestError, RpcCode } from '../agentPort/agentErrors';

/**
 * The client side of the SDK app: agent → client requests routed to the ports given (permission
 * always; file system and terminals only when present, matching what we advertise).
 */
export function buildClientApp(name: string, ports: ClientPorts): acp.ClientApp {
  const app = acp
    .client({ name })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => ports.permission.requestPermission(params, signal));
  const fs = ports.fs;
  if (fs !== undefined) {
    app
      .onRequest(acp.methods.client.fs.readTextFile, ({ params, signal }) => wireErrors(fs.readTextFile(params, signal)))
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params, signal }) => wireErrors(fs.writeTextFile(params, signal)));
  }
  const t = ports.terminal;
  if (t !== undefined) {
    app
      .onRequest(acp.methods.client.terminal.create, ({ params, signal }) => wireErrors(t.createTerminal(params, signal)))
      .onRequest(acp.methods.client.terminal.output, ({ params, signal }) => wireErrors(t.terminalOutput(params, signal)))
      .onRequest(acp.methods.client.terminal.waitForExit, ({ params, signal }) => wireErrors(t.waitForTerminalExit(params, signal)))
      .onRequest(acp.methods.client.terminal.kill, ({ params, signal }) => wireErrors(t.killTerminal(params, signal)))
      .onRequest(acp.methods.client.terminal.release, ({ params, signal }) => wireErrors(t.releaseTerminal(params, signal)));
  }
  // Unhandled agent requests get -32601 from the SDK (that includes non-`_` extension methods such as
  // Qwen's craft/drainMidTurnQueue); unhandled notifications are ignored. Both are in the traffic log.
  return app;
}

/**
 * Ports throw {@link ClientRequestError}; the SDK only sends the code of its own RequestError and
 * answers anything else `-32603`. A file that vanished between the boundary check and the read (Node's
 * `ENOENT`, VS Code's `FileNotFound`) is ACP's "resource not found", `-32002`, not an internal error.
 */
async function wireErrors<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (ClientRequestError.is(e)) {
      throw new acp.RequestError(e.code, e.message, e.data);
    }
    const code = isObject(e) || e instanceof Error ? (e as { code?: unknown }).code : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'FileNotFound') {
      throw new acp.RequestError(RpcCode.resourceNotFound, e instanceof Error ? e.message : 'Resource not found');
    }
    throw e;
  }
}
