/**
 * `initialize`'s `authMethods`, read leniently (agents send unstable types such as `env_var`), and
 * the `auth_required` error (-32000) session setup answers until the client signs in. Shared by
 * the extension's sign-in card (`src/app/signIn.ts`) and the runner (`src/cli/signIn.ts`).
 */
import { isObject } from '../util/json';
import { isRpcError, RpcCode } from '../agentPort/agentErrors';

export interface SignInMethod {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  /** `agent` (ACP's default when `type` is absent), `terminal`, `env_var`, or what the agent wrote. */
  readonly type: string;
  /** Terminal methods: the arguments to add to the agent command. */
  readonly args?: readonly string[];
  /** Env-var methods: the variables to set. */
  readonly vars?: readonly string[];
}

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
      ...(typeof m.description === 'string' && m.description !== '' ? { description: m.description } : {}),
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
