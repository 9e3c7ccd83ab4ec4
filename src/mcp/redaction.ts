import type * as acp from '@agentclientprotocol/sdk';
import type { TrafficInput, TrafficRedactor } from '../wire/trafficLog';
import { isObject } from '../util/json';

/** What the traffic log shows instead of a secret. */
export const redactedMark = '«redacted»';

/** Requests that carry `mcpServers` (ACP session setup). */
const setupMethods = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);

/**
 * Keeps MCP secrets out of the traffic log (and so out of "Show Traffic", error reports and
 * recorded fixtures):
 * - structurally: in the session setup requests we send, every `mcpServers[].headers[].value` and
 *   `mcpServers[].env[].value` (tokens live there, whether typed into the file or from an input);
 * - by value, wherever it appears — arguments, URLs, the agent's replies, its stderr, our notes —,
 *   as written and as JSON writes it (escaped quotes and backslashes, and `\uXXXX` for non-ASCII,
 *   as Python agents such as Hermes escape): every `${input:…}` answer, and the values of headers
 *   and environment variables whose names say they hold a credential ({@link secretValuesOf}).
 *   Other values (`LOG_LEVEL=debug`) are not hunted down everywhere: that would blank out
 *   ordinary words all over the log.
 */
export class McpSecretRedactor implements TrafficRedactor {
  private readonly secrets = new Set<string>();

  /** `mark`: what replaces a secret (the runner masks with `***`, as CI systems do). */
  constructor(private readonly mark: string = redactedMark) {}

  /** Longest first, so a secret that contains another is replaced whole. */
  private ordered(): string[] {
    return [...this.secrets].sort((a, b) => b.length - a.length);
  }

  /** A plain string (not a wire line) with every secret replaced by the mark. */
  mask(text: string): string {
    let out = text;
    for (const secret of this.ordered()) {
      if (out.includes(secret)) {
        out = out.replaceAll(secret, this.mark);
      }
    }
    return out;
  }

  /**
   * How many characters at the end of `text` could be the start of a secret (the longest suffix
   * that is a proper prefix of one): a stream holds them back until the next piece shows whether
   * the secret follows.
   */
  pendingPrefix(text: string): number {
    let longest = 0;
    for (const secret of this.secrets) {
      for (let n = Math.min(secret.length - 1, text.length); n > longest; n--) {
        if (text.endsWith(secret.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }

  add(values: Iterable<string>): void {
    for (const v of values) {
      if (v !== '') {
        this.secrets.add(v);
      }
    }
  }

  redact(text: string, entry: TrafficInput): string {
    let out = text;
    if (entry.dir === 'out' && entry.method !== undefined && setupMethods.has(entry.method) && out.includes('"mcpServers"')) {
      out = redactServerFields(out, this.mark);
    }
    for (const secret of this.ordered()) {
      for (const form of writtenForms(secret)) {
        if (out.includes(form)) {
          out = out.replaceAll(form, this.mark);
        }
      }
    }
    return out;
  }
}

/** Names of headers and variables that carry credentials. */
const credentialName = /auth|token|key|secret|passw|pwd|cookie|credential|session|bearer/i;

/** Values of the servers' credential-named headers and environment variables (plus the token after `Bearer `/`Basic `). */
export function secretValuesOf(servers: readonly acp.McpServer[]): string[] {
  const out: string[] = [];
  for (const server of servers) {
    const pairs = 'headers' in server ? server.headers : 'env' in server ? server.env : [];
    for (const { name, value } of pairs) {
      if (credentialName.test(name) && value !== '') {
        out.push(value);
        const scheme = /^(?:bearer|basic|token)\s+(\S.*)$/i.exec(value);
        if (scheme?.[1] !== undefined) {
          out.push(scheme[1]);
        }
      }
    }
  }
  return out;
}

function redactServerFields(line: string, mark: string): string {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return line;
  }
  if (!isObject(msg) || !isObject(msg.params) || !Array.isArray(msg.params.mcpServers)) {
    return line;
  }
  const servers = (msg.params.mcpServers as unknown[]).map((server) => {
    if (!isObject(server)) {
      return server;
    }
    const copy = { ...server };
    for (const key of ['headers', 'env'] as const) {
      const list = server[key];
      if (Array.isArray(list)) {
        copy[key] = (list as unknown[]).map((item) => (isObject(item) ? { ...item, value: mark } : item));
      }
    }
    return copy;
  });
  return JSON.stringify({ ...msg, params: { ...msg.params, mcpServers: servers } });
}

/** A secret as it may appear in a line: raw, JSON-escaped, and JSON-escaped with non-ASCII as `\uXXXX`. */
function writtenForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const ascii = json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([secret, json, ascii])];
}
