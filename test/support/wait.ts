/** Polling and deadlines shared by the unit, hardening and extension-host suites (no vscode). */

/** Thrown when an awaited operation missed its deadline: a promise that would have stayed pending. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `fn` every `intervalMs` until it returns a value other than undefined/false, or throws after `ms`. */
export async function until<T>(what: string, fn: () => T | undefined | false, ms = 10_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new DeadlineError(`timed out after ${ms} ms waiting for ${what}`);
    }
    await sleep(intervalMs);
  }
}
