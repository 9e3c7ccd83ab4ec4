/**
 * Sign-in for a headless run (ACP `authenticate`, error `auth_required` -32000). Only agent-type
 * methods can be used without a human: the agent signs in by itself when asked (`--auth ID`).
 * Terminal methods need the user at a terminal, env-var methods a variable set before the run;
 * the error says which.
 */
import type { SignInMethod } from '../acp/authMethods';

export { isAuthRequired, signInMethods, type SignInMethod } from '../acp/authMethods';

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
