import type { McpInputDefinition } from './mcpConfig';

/** Asks the user for an input's value (the extension: an input box, masked for `password`); undefined when dismissed. */
export interface McpInputPrompt {
  ask(input: McpInputDefinition, origin: string): Promise<string | undefined>;
}

/** Where answers are kept between runs (the extension: `SecretStorage`). */
export interface McpSecretStore {
  get(key: string): Promise<string | undefined>;
  store(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * Resolves `${input:id}` values: from memory, else from the secret store, else by asking — once:
 * concurrent requests for the same input share one prompt, and an answer is stored. Values are
 * keyed by the configuration's origin and the input id, so one workspace's `mcp.json` can never
 * read an answer given to another's (a cloned repository could otherwise name a stored token and
 * send it to a server of its choosing).
 */
export class McpInputResolver {
  private readonly known = new Map<string, Promise<string | undefined>>();
  private readonly values = new Set<string>();

  constructor(
    private readonly prompt: McpInputPrompt,
    private readonly store?: McpSecretStore,
  ) {}

  static storageKey(origin: string, id: string): string {
    return `hermes.mcp.input:${origin}#${id}`;
  }

  resolve(origin: string, input: McpInputDefinition): Promise<string | undefined> {
    const key = McpInputResolver.storageKey(origin, input.id);
    let pending = this.known.get(key);
    if (pending === undefined) {
      pending = this.lookup(key, origin, input);
      this.known.set(key, pending);
      // A dismissed prompt is asked again next time (the user may want to answer after all).
      void pending.then((v) => {
        if (v === undefined) {
          this.known.delete(key);
        }
      });
    }
    return pending;
  }

  /** Every value resolved so far: what the traffic log must never show. */
  get secrets(): ReadonlySet<string> {
    return this.values;
  }

  /** Forgets an answer (memory and store), e.g. after the user said it was wrong. */
  async forget(origin: string, id: string): Promise<void> {
    const key = McpInputResolver.storageKey(origin, id);
    this.known.delete(key);
    await this.store?.delete(key);
  }

  private async lookup(key: string, origin: string, input: McpInputDefinition): Promise<string | undefined> {
    const stored = await this.store?.get(key);
    if (stored !== undefined && stored !== '') {
      this.values.add(stored);
      return stored;
    }
    const answer = await this.prompt.ask(input, origin);
    if (answer === undefined) {
      return undefined;
    }
    this.values.add(answer);
    await this.store?.store(key, answer);
    return answer;
  }
}

/**
 * The runner's prompt: `${input:id}` values come from the environment, `HERMES_MCP_INPUT_<ID>` with
 * the id upper-cased and every other character than A–Z and 0–9 turned into `_`
 * (`${input:github-token}` ← `HERMES_MCP_INPUT_GITHUB_TOKEN`); a `default` applies when unset or empty.
 */
export function environmentInputs(env: Readonly<Record<string, string | undefined>>): McpInputPrompt {
  return {
    ask: (input) => {
      const value = env[inputVariableName(input.id)];
      return Promise.resolve(value !== undefined && value !== '' ? value : input.default);
    },
  };
}

export function inputVariableName(id: string): string {
  return `HERMES_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}
