import type { HostMessage, WebviewMessage } from '../protocol/webviewProtocol';
import { parseHostMessage } from './hostMessages';

/**
 * The webview's only link to the extension host, and the only place that calls
 * `acquireVsCodeApi()` (it may be called once per page). UI code posts through `actions.ts`.
 */
export interface HostBridge {
  post(message: WebviewMessage): void;
  /** Host messages that passed the guard; anything else is dropped. */
  onMessage(handler: (message: HostMessage) => void): void;
  /** The persisted UI state, unparsed (see uiState.ts). */
  getState(): unknown;
  setState(state: unknown): void;
}

interface WebviewApiLike {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): unknown;
}

export function createHostBridge(win: Window): HostBridge {
  const acquire = (win as Window & { acquireVsCodeApi?: () => WebviewApiLike }).acquireVsCodeApi;
  if (typeof acquire !== 'function') {
    throw new Error('acquireVsCodeApi is not available: the page is not running in a VS Code webview');
  }
  const api = acquire();
  return {
    post: (message) => api.postMessage(message),
    onMessage: (handler) => {
      win.addEventListener('message', (event: MessageEvent<unknown>) => {
        const message = parseHostMessage(event.data);
        if (message !== undefined) {
          handler(message);
        }
      });
    },
    getState: () => api.getState(),
    setState: (state) => {
      api.setState(state);
    },
  };
}
