import type * as acp from '@agentclientprotocol/sdk';

/**
 * What the client does when the agent asks it something. The VS Code shell, the CLI and tests
 * implement these; `src/acp` only routes requests to them. Every method must settle: a port that
 * never answers would leave the agent waiting (ACP has no request timeouts).
 */
export interface PermissionPort {
  /** Must resolve — with `{outcome:{outcome:"cancelled"}}` when nothing else applies. */
  requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
}

export interface FileSystemPort {
  readTextFile(params: acp.ReadTextFileRequest, signal: AbortSignal): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse>;
}

export interface TerminalPort {
  createTerminal(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest, signal: AbortSignal): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(params: acp.KillTerminalRequest, signal: AbortSignal): Promise<acp.KillTerminalResponse>;
  releaseTerminal(params: acp.ReleaseTerminalRequest, signal: AbortSignal): Promise<acp.ReleaseTerminalResponse>;
}

/** The ports a connection serves; capabilities are advertised only for the ports present. */
export interface ClientPorts {
  readonly permission: PermissionPort;
  readonly fs?: FileSystemPort;
  readonly terminal?: TerminalPort;
}
