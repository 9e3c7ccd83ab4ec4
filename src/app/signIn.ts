import type { AcpClient } from '../acp/acpConnection';
import type { AgentDefinition, AgentHost } from '../host/agentHost';
import { isAuthRequired, signInMethods, type SignInMethod } from '../acp/authMethods';
import { describeError } from '../agentPort/agentErrors';
import type { SignInView } from '../protocol/sessionView';
import type { Localize } from '../util/l10n';

/** Where sign-in secrets are kept between windows (the extension: `SecretStorage`). */
export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  store(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** A store that lives as long as the window (tests, and a host without `SecretStorage`). */
export function memorySecrets(): SecretStore {
  const values = new Map<string, string>();
  return {
    get: (key) => Promise.resolve(values.get(key)),
    store: (key, value) => Promise.resolve(void values.set(key, value)),
    delete: (key) => Promise.resolve(void values.delete(key)),
  };
}

/** What needs the user outside the chat (the extension: a masked input box, a VS Code terminal). */
export interface SignInPrompts {
  /** Asks for an env-var method's value; undefined when dismissed. */
  askSecret(q: { readonly agentName: string; readonly method: SignInMethod; readonly varName: string }): Promise<string | undefined>;
  /** Runs a terminal method (the agent's command with the method's arguments) where the user can answer it; true when it succeeded. */
  runTerminal(agent: AgentDefinition, method: SignInMethod): Promise<boolean>;
}

export interface SignInPorts {
  readonly secrets: SecretStore;
  readonly prompts: SignInPrompts;
}

/** What the sign-in flow needs from its chat. */
export interface SignInChat {
  readonly host: AgentHost;
  /** Runs `run` as the chat's start (single flight: a reveal meanwhile waits for it). */
  claimStart(run: () => Promise<boolean>): Promise<boolean>;
  /** The next exit of the agent is ours (a restart with the secret), not a crash. */
  noteRestart(): void;
  changed(): void;
}

/** Storage key of an env-var method's value: per agent and method (never shared between agents). */
export function signInSecretKey(agentId: string, methodId: string): string {
  return `hermes.signIn:${agentId}#${methodId}`;
}

/**
 * Sign-in when session setup answers `auth_required` (-32000): a card lists the agent's
 * `authMethods`. Agent-type (no `type`, or `agent`): `authenticate(methodId)`, then the failed call
 * again. `env_var`: the value is asked once (masked), kept in the secret store keyed by agent and
 * method, and the agent restarts with the variable set; a stored value is used without asking, and
 * one the agent still refuses is forgotten and said so. `terminal`: run in a terminal, then "Try
 * again". Failures stay on the card; every button can be pressed again.
 */
export class SignIn {
  private cardValue: SignInView | undefined;
  private methods: SignInMethod[] = [];
  private retry: (() => Promise<boolean>) | undefined;
  /** The method the last attempt used: a new `auth_required` after it is that method failing. */
  private lastTried: SignInMethod | undefined;
  /** Env-var values tried without asking in this window (a stored one is tried once). */
  private readonly storedTried = new Set<string>();

  constructor(
    private readonly chat: SignInChat,
    private readonly ports: SignInPorts | undefined,
    private readonly t: Localize,
  ) {}

  get card(): SignInView | undefined {
    return this.cardValue;
  }

  /**
   * A session setup failed with `e`; `retry` repeats it (connecting first). Runs inside the chat's
   * start. Undefined when this is not a sign-in the card can offer (the caller shows its notice);
   * else whether the session is up after all (a stored secret worked).
   */
  async handle(e: unknown, retry: () => Promise<boolean>): Promise<boolean | undefined> {
    const host = this.chat.host;
    const methods = host.state.kind === 'ready' ? signInMethods(host.state.info.authMethods) : this.methods;
    if (!isAuthRequired(e) || methods.length === 0) {
      return undefined;
    }
    this.methods = methods;
    this.retry = retry;
    let error: string | undefined;
    const refused = methods.find((m) => m.type === 'env_var' && envVar(m) !== undefined && host.signInEnv[envVar(m) ?? ''] !== undefined);
    if (refused !== undefined) {
      error = await this.forgetRefused(refused);
    } else if (this.lastTried?.type === 'agent') {
      error = this.t('Signed in with “{0}”, but {1} still asks to sign in.', this.lastTried.name, host.definition.name);
    } else {
      const stored = await this.storedValue(methods);
      if (stored !== undefined) {
        host.setSignInEnv(stored.varName, stored.value);
        this.chat.noteRestart();
        await host.restart();
        return retry();
      }
    }
    this.lastTried = undefined;
    this.show({ ...(error !== undefined ? { error } : {}) });
    return false;
  }

  /** The session is up: the card goes. */
  reset(): void {
    this.lastTried = undefined;
    this.clear();
  }

  /** The user chose a method on the card. */
  async choose(methodId: string): Promise<void> {
    const method = this.methods.find((m) => m.id === methodId);
    if (method === undefined || this.cardValue === undefined || this.cardValue.busy !== undefined) {
      return;
    }
    if (method.type === 'terminal') {
      this.show({ busy: method.id, note: this.t('Finish signing in with “{0}” in the terminal.', method.name) });
      const ok = (await this.ports?.prompts.runTerminal(this.chat.host.definition, method)) === true;
      if (ok) {
        // As "Set Up Provider": the agent reads what the terminal stored when it starts again.
        await this.restartAndRetry(() => undefined);
      } else {
        this.show({ note: this.t('Finish signing in with “{0}” in the terminal, then choose Try again.', method.name) });
      }
      return;
    }
    if (method.type === 'env_var') {
      await this.signInWithVariable(method);
      return;
    }
    await this.signInWithAgent(method);
  }

  /** "Try again": the failed call once more (after a terminal sign-in, or later). */
  async tryAgain(): Promise<void> {
    const retry = this.retry;
    if (retry === undefined || this.cardValue?.busy !== undefined) {
      return;
    }
    this.clear();
    await this.chat.claimStart(retry);
  }

  private async signInWithAgent(method: SignInMethod): Promise<void> {
    const retry = this.retry;
    this.show({ busy: method.id });
    await this.chat.claimStart(async () => {
      try {
        const client = await this.chat.host.start();
        if (!isAcpClient(client)) {
          throw new Error(this.t('This connection has no sign-in: only ACP agents are asked to authenticate.'));
        }
        await client.authenticate(method.id);
      } catch (e) {
        this.show({ error: this.t('Signing in with “{0}” failed: {1}', method.name, describeError(e)) });
        return false;
      }
      this.clear();
      this.lastTried = method;
      return retry !== undefined ? retry() : true;
    });
  }

  private async signInWithVariable(method: SignInMethod): Promise<void> {
    const varName = envVar(method);
    if (varName === undefined || this.ports === undefined) {
      this.show({ error: this.t('“{0}” names no variable to set; set it before starting {1}.', method.name, this.chat.host.definition.name) });
      return;
    }
    this.show({ busy: method.id });
    const value = await this.ports.prompts.askSecret({ agentName: this.chat.host.definition.name, method, varName });
    if (value === undefined || value === '') {
      this.show({});
      return;
    }
    await this.ports.secrets.store(signInSecretKey(this.chat.host.definition.id, method.id), value);
    this.storedTried.add(method.id);
    await this.restartAndRetry(() => this.chat.host.setSignInEnv(varName, value));
  }

  /** Restarts the agent (after `prepare`) and repeats the failed call, as the chat's start. */
  private async restartAndRetry(prepare: () => void): Promise<void> {
    const retry = this.retry;
    await this.chat.claimStart(async () => {
      this.clear();
      prepare();
      this.chat.noteRestart();
      try {
        await this.chat.host.restart();
      } catch (e) {
        this.show({ error: this.t('{0} could not restart: {1}', this.chat.host.definition.name, describeError(e)) });
        return false;
      }
      return retry !== undefined ? retry() : true;
    });
  }

  /** A value the agent refused: forgotten (store and process), so the next attempt asks again. */
  private async forgetRefused(method: SignInMethod): Promise<string> {
    const varName = envVar(method) ?? '';
    this.chat.host.setSignInEnv(varName, undefined);
    await this.ports?.secrets.delete(signInSecretKey(this.chat.host.definition.id, method.id));
    return this.t('{0} did not accept the value of {1}. Choose “{2}” to enter it again.', this.chat.host.definition.name, varName, method.name);
  }

  /** A stored env-var value not tried yet in this window ("ask once": later windows use it). */
  private async storedValue(methods: readonly SignInMethod[]): Promise<{ varName: string; value: string } | undefined> {
    for (const m of methods) {
      const varName = envVar(m);
      if (m.type !== 'env_var' || varName === undefined || this.ports === undefined || this.storedTried.has(m.id)) {
        continue;
      }
      this.storedTried.add(m.id);
      const value = await this.ports.secrets.get(signInSecretKey(this.chat.host.definition.id, m.id));
      if (value !== undefined && value !== '') {
        return { varName, value };
      }
    }
    return undefined;
  }

  private show(extra: Pick<SignInView, 'busy' | 'error' | 'note'>): void {
    this.cardValue = {
      agentName: this.chat.host.definition.name,
      methods: this.methods.map((m) => ({ id: m.id, name: m.name, type: m.type, ...(m.description !== undefined ? { description: m.description } : {}) })),
      ...extra,
    };
    this.chat.changed();
  }

  private clear(): void {
    if (this.cardValue !== undefined) {
      this.cardValue = undefined;
      this.chat.changed();
    }
  }
}

function envVar(m: SignInMethod): string | undefined {
  return m.type === 'env_var' ? m.vars?.[0] : undefined;
}

/** ACP connections can authenticate; the TUI Gateway's and API Server's cannot (the class itself loads lazily, so no `instanceof`). */
function isAcpClient(client: object): client is AcpClient {
  return typeof (client as Partial<AcpClient>).authenticate === 'function';
}
