/**
 * Sign-in for a headless run (ACP `authenticate`, error `auth_required` -32000). Only agent-type
 * methods can be used without a human: the agent signs in by itself when asked (`--auth ID`).
 * Terminal methods need the user at a terminal, env-var methods a variable set before the run;
 * the error says which.
 */
import { isRpcError, RpcCode } from '../acp/errors';
import { isObject } from '../util/json';

export interface SignInMethod {
  readonly id: string;
  readonly name: string;
  /** `agent` (ACP's default when `type` is absent), `terminal`, `env_var`, or what the agent wrote. */
  readonly type: string;
  /** Terminal methods: the arguments to add to the agent command. */
  readonly args?: readonly string[];
  /** Env-var methods: the variables to set. */
  readonly vars?: readonly string[];
}

/** `initialize`'s `authMethods`, read leniently (agents send unstable types such as `env_var`). */
export function signInMethods(raw: unknown): SignInMethod[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  const out: SignInMethod[] = [];
  for (const m of raw as unknown[]) {
    if (!isObject(m) || typeof m.id !== 'string') {
      continue;
    }
    const args = Array.isArray(m.args) ? (m.args as unknown[]).filter((a): a is string => typeof a === 'string') : undefined;
    const vars = envVarNames(m);
    out.push({
      id: m.id,
      name: typeof m.name === 'string' ? m.name : m.id,
      type: typeof m.type === 'string' ? m.type : 'agent',
      ...(args !== undefined ? { args } : {}),
      ...(vars.length > 0 ? { vars } : {}),
    });
  }
  return out;
}

function envVarNames(m: Record<string, unknown>): string[] {
  const names: string[] = [];
  if (typeof m.varName === 'string') {
    names.push(m.varName);
  }
  for (const v of Array.isArray(m.vars) ? (m.vars as unknown[]) : []) {
    if (isObject(v) && typeof v.name === 'string') {
      names.push(v.name);
    }
  }
  return names;
}

export function isAuthRequired(e: unknown): boolean {
  return isRpcError(e) && e.code === RpcCode.authRequired;
}

/** The one agent-type method, used on `auth_required` without `--auth`; undefined when there are none or several. */
export function soleAgentMethod(methods: readonly SignInMethod[]): SignInMethod | undefined {
  const agent = methods.filter((m) => m.type === 'agent');
  return agent.length === 1 ? agent[0] : undefined;
}

/** What the user can do, one method per line: its id, name, type and how to use it here. */
export function describeSignIn(methods: readonly SignInMethod[], agentCommand: readonly string[]): string {
  if (methods.length === 0) {
    return 'The agent offers no sign-in method over ACP: sign in with the agent itself, then run again.';
  }
  const lines = methods.map((m) => {
    const how =
      m.type === 'agent'
        ? `run again with --auth ${m.id}`
        : m.type === 'terminal'
          ? `run \`${[...agentCommand, ...(m.args ?? [])].join(' ')}\` in a terminal first`
          : m.type === 'env_var'
            ? `set ${m.vars !== undefined ? m.vars.join(', ') : 'the variable it names'} before the run`
            : 'not usable without a human';
    return `  - ${m.id} ("${m.name}", ${m.type}): ${how}`;
  });
  return `Sign-in methods the agent offers:\n${lines.join('\n')}`;
}
