/**
 * Stderr logging for the test agents.
 *
 * ACP transports: an agent MUST NOT write anything but ACP messages to stdout and MAY log to
 * stderr, so every diagnostic goes to stderr with a fixed prefix. Clients show a stderr tail, and
 * tests grep these lines (for example `permission <id> answered <json>`), so keep them one line each.
 */
export function createLogger(prefix: string): (message: string) => void {
  return (message: string): void => {
    process.stderr.write(`[${prefix}] ${message.replace(/\r?\n/g, '\\n')}\n`);
  };
}

export const log = createLogger('scripted-agent');

/** A short, single-line preview of a value for log lines. */
export function preview(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}
