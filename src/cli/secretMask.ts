import type { McpSecretRedactor } from '../mcp/redaction';
import type { SignInMethod } from '../acp/authMethods';
import type { TransportSettings } from '../host/transportSettings';
import type { CliEvent, EventSink, TextEvent } from './events';

/** What replaces an injected value in stdout, stderr and the traffic log. */
export const secretMark = '***';

/** Shorter values are refused as secrets: masking them would shred ordinary text. */
export const minSecretLength = 6;

/** The environment variables whose values the runner hands to the agent or its transport. */
export const mcpInputPrefix = 'HERMES_MCP_INPUT_';

export interface InjectedSecrets {
  readonly values: readonly string[];
  /** One message per value too short to be a secret (a usage error). */
  readonly problems: readonly string[];
}

/**
 * The values the runner injects that it knows before the agent starts: every `HERMES_MCP_INPUT_*`
 * (MCP `${input:…}` answers), `HERMES_API_KEY` and `HERMES_GATEWAY_TOKEN`. A value shorter than
 * {@link minSecretLength} is a problem when the run would inject it; a variable the run does not
 * use is masked when long enough, never refused.
 */
export function injectedSecrets(env: NodeJS.ProcessEnv, transport: TransportSettings | undefined): InjectedSecrets {
  const values: string[] = [];
  const problems: string[] = [];
  const used = (name: string): boolean =>
    name.startsWith(mcpInputPrefix)
      ? transport === undefined
      : name === 'HERMES_API_KEY'
        ? transport?.kind === 'api-server'
        : name === 'HERMES_GATEWAY_TOKEN' && transport?.kind === 'tui-gateway' && transport.url !== undefined;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '' || !(name.startsWith(mcpInputPrefix) || name === 'HERMES_API_KEY' || name === 'HERMES_GATEWAY_TOKEN')) {
      continue;
    }
    if (value.length >= minSecretLength) {
      values.push(value);
    } else if (used(name)) {
      problems.push(tooShort(name));
    }
  }
  return { values, problems };
}

/**
 * The values of the environment variables the agent's env-var sign-in methods name (known after
 * `initialize`): the runner passes its environment on, so the agent gets them from it. A set value
 * shorter than {@link minSecretLength} fails the run (the message names the variable, never the value).
 */
export function signInSecrets(methods: readonly SignInMethod[], env: NodeJS.ProcessEnv): InjectedSecrets {
  const values: string[] = [];
  const problems: string[] = [];
  for (const m of methods) {
    for (const name of m.type === 'env_var' ? (m.vars ?? []) : []) {
      const value = env[name];
      if (value === undefined || value === '') {
        continue;
      }
      if (value.length >= minSecretLength) {
        values.push(value);
      } else {
        problems.push(`${tooShort(name)} (the agent's sign-in method "${m.id}" reads it)`);
      }
    }
  }
  return { values, problems };
}

function tooShort(name: string): string {
  return `${name} is shorter than ${minSecretLength.toString()} characters: too short to be masked as a secret in the output (use a real credential)`;
}

/** Every string of a value (keys too) with the secrets masked; the shape is kept. */
export function maskDeep(value: unknown, mask: (s: string) => string): unknown {
  if (typeof value === 'string') {
    return mask(value);
  }
  if (Array.isArray(value)) {
    return value.map((v: unknown) => maskDeep(v, mask));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), maskDeep(v, mask)]));
  }
  return value;
}

/**
 * Masks every injected value in what the run prints — events (every string field: text, titles,
 * inputs, outputs, errors) and stderr lines — as CI systems mask secrets in logs. The reply's
 * `text` fragments are masked as one stream: the end of a fragment that could begin a secret is
 * held back until the next fragment (or any other event) shows whether it does, so a value the
 * agent streams split across fragments is masked too.
 */
export class MaskingSink implements EventSink {
  private held: TextEvent | undefined;

  constructor(
    private readonly inner: EventSink,
    private readonly redactor: McpSecretRedactor,
  ) {}

  emit(event: CliEvent): void {
    if (event.type === 'text') {
      const text = this.redactor.mask((this.held?.text ?? '') + event.text);
      const keep = this.redactor.pendingPrefix(text);
      this.held = keep > 0 ? { ...event, text: text.slice(text.length - keep) } : undefined;
      if (keep < text.length) {
        this.inner.emit({ ...event, text: text.slice(0, text.length - keep) });
      }
      return;
    }
    this.release();
    this.inner.emit(maskDeep(event, (s) => this.redactor.mask(s)) as CliEvent);
  }

  /** What was held back of the reply goes out as it is: no secret followed. */
  private release(): void {
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) {
      this.inner.emit(held);
    }
  }

  diagnostic(line: string): void {
    this.inner.diagnostic(this.redactor.mask(line));
  }

  flush(): Promise<void> {
    this.release();
    return this.inner.flush();
  }
}
