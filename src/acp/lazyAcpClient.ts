import { loadChunk } from '../util/lazyChunk';
import type * as AcpConnectionChunk from './acpConnection';
import type { AcpClient, AcpClientOptions, AgentTransport } from './acpConnection';

/**
 * A new {@link AcpClient}, its module loaded from a chunk of its own (`dist/acpConnection.js`: the
 * ACP SDK and the zod schemas it validates with, ~150 KB whose top-level code builds hundreds of
 * schemas) the first time an ACP agent starts, not when the extension activates (P4).
 */
export function createAcpClient(transport: AgentTransport, options: AcpClientOptions): AcpClient {
  const { AcpClient: Client } = loadChunk<typeof AcpConnectionChunk>(__dirname, 'acpConnection');
  return new Client(transport, options);
}
