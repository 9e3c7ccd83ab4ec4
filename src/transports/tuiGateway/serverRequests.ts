import { isObject, type JsonObject } from '../../util/json';
import { approvalChoice, approvalPermission } from '../approval';
import { TransportRpcError } from '../../agentPort/transportErrors';
import type { ClarifyQuestion, SecretKind, SecretRequest, TransportPorts } from '../../agentPort/questionPort';
import { GatewayCode } from './wire';

/**
 * Answers the gateway's server→client requests (`tui_gateway/contracts/server_requests.py`):
 * `approval` through the permission port (the same cards, rules and settling as ACP permission
 * requests), `clarify` / `sudo` / `secret` / `vault.*` / `connection` through the question port.
 * A method with no port behind it is answered -32601 at once, so the agent fails fast instead of
 * waiting out its deadline (clarify waits an hour).
 */

/** Server requests whose answer is a masked value: the traffic log shows `«redacted»` instead. */
export const maskedAnswerMethods: ReadonlySet<string> = new Set(['sudo', 'secret', 'vault.unlock_prompt', 'vault.code', 'vault.save_login']);

export function redactAnswer(method: string, result: unknown): unknown {
  return maskedAnswerMethods.has(method) && isObject(result) ? { ...result, value: '«redacted»' } : result;
}

export interface ServerRequestContext {
  readonly ports: TransportPorts;
  /** The session id the session layer knows (the wire's runtime id, translated). */
  readonly sessionId: string;
  readonly requestId: string;
  readonly replayed: boolean;
  readonly signal: AbortSignal;
  /** The open tool call an approval belongs to, by tool name. */
  readonly openToolNamed: (name: string | undefined) => string | undefined;
  /** `clarify.lock` for this request. */
  readonly lock: (questionId: string, answer: string | null) => Promise<'ok' | 'expired'>;
}

export function answerServerRequest(method: string, params: JsonObject, ctx: ServerRequestContext): Promise<unknown> {
  switch (method) {
    case 'approval':
      return approval(params, ctx);
    case 'clarify':
      return clarify(params, ctx);
    case 'sudo':
    case 'secret':
    case 'vault.unlock_prompt':
    case 'vault.code':
    case 'vault.save_login':
      return secret(method, params, ctx);
    case 'connection':
      return connection(params, ctx);
    default:
      return Promise.reject(notImplemented(method));
  }
}

function notImplemented(method: string): TransportRpcError {
  return new TransportRpcError(method, GatewayCode.methodNotFound, `This client does not handle \`${method}\`.`);
}

async function approval(p: JsonObject, ctx: ServerRequestContext): Promise<unknown> {
  const toolName = typeof p.tool_name === 'string' ? p.tool_name : undefined;
  const toolCallId = ctx.openToolNamed(toolName);
  const request = approvalPermission({
    sessionId: ctx.sessionId,
    requestId: typeof p.request_id === 'string' ? p.request_id : ctx.requestId,
    command: typeof p.command === 'string' ? p.command : '',
    description: typeof p.description === 'string' ? p.description : '',
    choices: strings(p.choices),
    ...(toolCallId !== undefined ? { toolCallId } : {}),
  });
  return { choice: approvalChoice(await ctx.ports.permission.requestPermission(request, ctx.signal)) };
}

/** Single question (`question` → `{answer}`) or batch (`questions` → `{answers}`); both exist on the wire. */
async function clarify(p: JsonObject, ctx: ServerRequestContext): Promise<unknown> {
  const port = ctx.ports.questions;
  if (port?.clarify === undefined) {
    throw notImplemented('clarify');
  }
  const batch = Array.isArray(p.questions);
  const questions: ClarifyQuestion[] = batch
    ? (p.questions as unknown[]).flatMap((q): ClarifyQuestion[] =>
        isObject(q) && typeof q.qid === 'string' && typeof q.question === 'string' ? [{ id: q.qid, text: q.question, choices: strings(q.choices), multiSelect: q.multi_select === true }] : [],
      )
    : [{ id: 'answer', text: typeof p.question === 'string' ? p.question : '', choices: strings(p.choices), multiSelect: p.multi_select === true }];
  const locked: Record<string, string | null> = {};
  if (isObject(p.answers)) {
    for (const [k, v] of Object.entries(p.answers)) {
      if (typeof v === 'string' || v === null) {
        locked[k] = v;
      }
    }
  }
  const answer = await port.clarify(
    { sessionId: ctx.sessionId, requestId: ctx.requestId, questions, locked, replayed: ctx.replayed, lock: batch ? ctx.lock : () => Promise.resolve('expired' as const) },
    ctx.signal,
  );
  if (answer.kind === 'cancelled') {
    return {};
  }
  return batch ? { answers: answer.answers } : { answer: answer.answers.answer ?? '' };
}

const secretKinds: Readonly<Record<string, SecretKind>> = {
  sudo: 'sudo',
  secret: 'secret',
  'vault.unlock_prompt': 'vault.unlock',
  'vault.code': 'vault.code',
  'vault.save_login': 'vault.saveLogin',
};

function secretPrompt(method: string, p: JsonObject): string {
  const s = (k: string): string => (typeof p[k] === 'string' ? p[k] : '');
  switch (method) {
    case 'sudo':
      return s('command') !== '' ? `Password for sudo: ${s('command')}` : 'Password for sudo';
    case 'vault.unlock_prompt':
      return `Master password to unlock ${s('display_name') || s('backend') || 'the password manager'}`;
    case 'vault.code':
      return `One-time code${s('site') !== '' ? ` for ${s('site')}` : ''}${s('hint') !== '' ? ` (${s('hint')})` : ''}`;
    case 'vault.save_login':
      return `Save a login for ${s('site') || s('origin')}`;
    default:
      return s('prompt') || (s('env_var') !== '' ? `Value for ${s('env_var')}` : 'A secret value');
  }
}

async function secret(method: string, p: JsonObject, ctx: ServerRequestContext): Promise<unknown> {
  const port = ctx.ports.questions;
  const kind = secretKinds[method];
  if (port?.secret === undefined || kind === undefined) {
    throw notImplemented(method);
  }
  const request: SecretRequest = {
    sessionId: ctx.sessionId,
    requestId: ctx.requestId,
    kind,
    prompt: secretPrompt(method, p),
    ...(typeof p.env_var === 'string' ? { envVar: p.env_var } : {}),
    replayed: ctx.replayed,
  };
  const answer = await port.secret(request, ctx.signal);
  return { value: answer.kind === 'value' ? answer.value : '' };
}

async function connection(p: JsonObject, ctx: ServerRequestContext): Promise<unknown> {
  const port = ctx.ports.questions;
  if (port?.connection === undefined) {
    throw notImplemented('connection');
  }
  const targets = (Array.isArray(p.targets) ? p.targets : []).flatMap((t) =>
    isObject(t) && typeof t.name === 'string' ? [{ name: t.name, kind: typeof t.kind === 'string' ? t.kind : '', action: typeof t.action === 'string' ? t.action : '' }] : [],
  );
  const answer = await port.connection(
    {
      sessionId: ctx.sessionId,
      requestId: ctx.requestId,
      operationId: typeof p.op_id === 'string' ? p.op_id : ctx.requestId,
      reason: typeof p.reason === 'string' ? p.reason : '',
      targets,
      ...(typeof p.deadline_at === 'number' ? { deadlineAt: p.deadline_at * 1000 } : {}),
      replayed: ctx.replayed,
    },
    ctx.signal,
  );
  return { settled_by: answer.settledBy, targets: answer.targets.map((t) => ({ name: t.name, state: t.state, ...(t.detail !== undefined ? { detail: t.detail } : {}) })) };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
