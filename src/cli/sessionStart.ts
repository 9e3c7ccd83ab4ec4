import type { SessionController } from '../session/sessionController';
import type { RunOptions } from './args';
import { startFailureVerdict, type StopCause, type Verdict } from './exitCodes';
import type { RunnerConnection } from './runnerConnection';
import type { RunSessions } from './runSessions';
import { describeSignIn, isAuthRequired, soleAgentMethod, type SignInMethod } from './signIn';

/** What opening the run's session needs from the runner. */
export interface SessionStartContext {
  readonly options: RunOptions;
  readonly client: RunnerConnection;
  readonly controller: SessionController;
  readonly sessions: RunSessions;
  /** Why the run is stopping (an interrupt, the timeout), if it is. */
  readonly stop: () => StopCause | undefined;
  readonly diagnostic: (line: string) => void;
}

/**
 * `--auth`, then the session (`session/new`, or the one `--continue`/`--resume` chose); on
 * `auth_required` signs in with the agent's only agent-type method and tries once more. Undefined
 * when the session is open, else why the run ends.
 */
export async function startSession(ctx: SessionStartContext, methods: readonly SignInMethod[]): Promise<Verdict | undefined> {
  const command = [ctx.options.agent.command, ...ctx.options.agent.args];
  const signInHelp = (e: unknown): string | undefined => (isAuthRequired(e) ? describeSignIn(methods, command) : undefined);
  const requested = ctx.options.auth;
  if (requested !== undefined) {
    const method = methods.find((m) => m.id === requested);
    if (method?.type !== 'agent') {
      const why = method === undefined ? 'the agent offers no such method' : `it is a ${method.type} method, which needs a human`;
      return { exitCode: 1, stopReason: null, error: `--auth ${requested}: ${why}.\n${describeSignIn(methods, command)}` };
    }
    const failed = await authenticate(ctx, method, methods);
    if (failed !== undefined) {
      return failed;
    }
  }
  if (ctx.stop() !== undefined) {
    return startFailureVerdict(undefined, ctx.stop());
  }
  try {
    await ctx.sessions.open(ctx.controller);
    return undefined;
  } catch (e) {
    const sole = soleAgentMethod(methods);
    if (!isAuthRequired(e) || requested !== undefined || sole === undefined || ctx.stop() !== undefined) {
      return startFailureVerdict(e, ctx.stop(), signInHelp(e));
    }
    ctx.diagnostic(`hermes-acp-run: the agent requires sign-in; authenticating with its only agent method "${sole.id}" and retrying`);
    const failed = await authenticate(ctx, sole, methods);
    if (failed !== undefined) {
      return failed;
    }
  }
  try {
    await ctx.sessions.open(ctx.controller);
    return undefined;
  } catch (e) {
    return startFailureVerdict(e, ctx.stop(), signInHelp(e));
  }
}

async function authenticate(ctx: SessionStartContext, method: SignInMethod, methods: readonly SignInMethod[]): Promise<Verdict | undefined> {
  try {
    await ctx.client.authenticate(method.id);
    return undefined;
  } catch (e) {
    const verdict = startFailureVerdict(e, ctx.stop());
    const help = describeSignIn(methods, [ctx.options.agent.command, ...ctx.options.agent.args]);
    return { ...verdict, error: `authenticate ${method.id} failed: ${verdict.error ?? 'unknown error'}\n${help}` };
  }
}
