import type { ChatSession } from '../../src/app/chatSession';
import type { SessionHarness } from './sessionBuilders';

/**
 * A chat a `WebviewChannel` can bind: the harness's real session state (reduced from ACP updates)
 * and the change event the test fires with `changed()` after updating the harness.
 */
export function chatOver(harness: SessionHarness): { chat: ChatSession; changed: () => void } {
  const listeners = new Set<() => void>();
  const chat = {
    controller: {
      get state() {
        return harness.state;
      },
    },
    onDidChange: (listener: () => void) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
  } as unknown as ChatSession;
  return { chat, changed: () => listeners.forEach((l) => l()) };
}
