import { loadChunk } from '../util/lazyChunk';
import type * as TransportChunk from './connectTransport';
import type { ConnectedTransport, ConnectTransportOptions } from './connectTransport';
import type { TransportSettings } from './transportSettings';

/**
 * `connectTransport`, loaded from a chunk of its own (`dist/connectTransport.js`: the TUI Gateway and
 * API Server adapters with `ws`, ~95 KB) the first time a non-ACP agent connects, not at activation.
 */
export function connectTransportLazily(settings: TransportSettings, options: ConnectTransportOptions): Promise<ConnectedTransport> {
  return loadChunk<typeof TransportChunk>(__dirname, 'connectTransport').connectTransport(settings, options);
}
