import type { TrafficLog } from '../../wire/trafficLog';

/**
 * One bidirectional stream of text frames: a child's stdio (newline-delimited) or a WebSocket (one
 * frame per message). The JSON-RPC peer on top never learns which.
 */
export interface LineChannel {
  /** For the traffic log and error messages; never carries a token. */
  readonly description: string;
  /** Starts delivering frames to `sink`; call once. */
  start(sink: (frame: string, size: number) => void): void;
  /** Writes one frame; false when the channel can no longer write (it is closing or closed). */
  send(frame: string): boolean;
  /** Resolves (never rejects) with why the channel ended. */
  readonly closed: Promise<Error>;
  /** Ends the channel and whatever is behind it that we own (a child process); resolves when gone. */
  close(): Promise<void>;
}

/** A channel factory gets the log so it can record what the wire does not carry (stderr, closes). */
export type ChannelFactory = (log: TrafficLog) => Promise<LineChannel>;
