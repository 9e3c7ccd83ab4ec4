/**
 * A scripted model server on 127.0.0.1 for running real ACP agents offline: OpenAI Chat
 * Completions, OpenAI Responses, Anthropic Messages and Gemini generateContent /
 * streamGenerateContent, streamed or not. The scenario (scenarioScript.ts) decides each reply;
 * every request is logged (method, path, API, model, offered tool names, the reply) so a run can be
 * explained. Used in-process by the rig (rig.ts), or alone through modelServerCli.ts.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { isObject, shorten, type JsonObject, type ModelRequest, type Reply, type ReplyWriter, type Usage } from './modelTypes';
import { decide, type ScenarioName, type ScriptState } from './scenarioScript';
import type { Target } from './toolCalls';
import { anthropicWriter, parseAnthropic } from './wire/anthropic';
import { geminiWriter, parseGemini } from './wire/gemini';
import { sendJson } from './wire/http';
import { chatWriter, parseChat } from './wire/openaiChat';
import { parseResponses, responsesWriter } from './wire/openaiResponses';

export interface ModelServerOptions {
  readonly scenario: ScenarioName;
  readonly target: Target;
  /** JSONL request log, appended as requests arrive. */
  readonly logFile?: string;
  /** Every request body is saved here as `<seq>.json` (large: system prompts and tool schemas). */
  readonly bodiesDir?: string;
  readonly port?: number;
  /** The run's prompt: only requests whose last user message carries it are the turn (scenarioScript.ts). */
  readonly prompt?: string;
}

export interface LogEntry {
  readonly seq: number;
  readonly ms: number;
  readonly method: string;
  readonly path: string;
  readonly api?: string;
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: readonly string[];
  readonly role?: 'main' | 'side';
  readonly step?: number;
  readonly toolResults?: readonly string[];
  readonly user?: string;
  readonly reply: string;
  readonly status: number;
  readonly usage?: Usage;
  readonly note?: string;
}

export interface ModelServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly entries: readonly LogEntry[];
  close(): Promise<void>;
}

const models = ['rig-model'];

function decode(raw: Buffer, encoding: string | undefined): Buffer {
  switch (encoding) {
    case 'gzip':
      return gunzipSync(raw);
    case 'br':
      return brotliDecompressSync(raw);
    case 'deflate':
      return inflateSync(raw);
    default:
      return raw;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) {
    parts.push(chunk as Buffer);
  }
  return decode(Buffer.concat(parts), req.headers['content-encoding']);
}

function summarize(reply: Reply): string {
  switch (reply.kind) {
    case 'text':
      return `text ${JSON.stringify(shorten(reply.chunks.join(''), 60))}${reply.chunkDelayMs > 0 ? ` (${String(reply.chunks.length)} chunks, ${String(reply.chunkDelayMs)} ms apart)` : ''}`;
    case 'json':
      return `json ${shorten(JSON.stringify(reply.value), 80)}`;
    case 'tool':
      return `tool ${reply.call.name} ${shorten(reply.call.kind === 'function' ? JSON.stringify(reply.call.args) : JSON.stringify(reply.call.input), 160)}`;
    case 'error':
      return `error ${String(reply.status)}`;
  }
}

function usageFor(req: ModelRequest, reply: Reply): Usage {
  const out = reply.kind === 'text' ? reply.chunks.join('').length : reply.kind === 'json' ? JSON.stringify(reply.value).length : 40;
  return { input: Math.ceil(req.bodyBytes / 4), output: Math.ceil(out / 4) + 1 };
}

type Route = { api: ModelRequest['api']; parse: (body: JsonObject, bytes: number, p: string) => ModelRequest; writer: (res: ServerResponse, req: ModelRequest, id: string) => ReplyWriter };

function routeFor(p: string): Route | undefined {
  if (p.endsWith('/chat/completions')) {
    return { api: 'openai-chat', parse: parseChat, writer: chatWriter };
  }
  if (p.endsWith('/responses')) {
    return { api: 'openai-responses', parse: parseResponses, writer: responsesWriter };
  }
  if (p.endsWith('/messages')) {
    return { api: 'anthropic', parse: parseAnthropic, writer: anthropicWriter };
  }
  if (/:(stream)?generateContent$/i.test(p)) {
    return { api: 'gemini', parse: parseGemini, writer: geminiWriter };
  }
  return undefined;
}

export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const entries: LogEntry[] = [];
  const started = Date.now();
  const state: ScriptState = { mainRequests: 0, nextCallId: 0 };
  let seq = 0;
  if (options.bodiesDir !== undefined) {
    mkdirSync(options.bodiesDir, { recursive: true });
  }
  const log = (entry: Omit<LogEntry, 'ms'>): void => {
    const full: LogEntry = { ...entry, ms: Date.now() - started };
    entries.push(full);
    if (options.logFile !== undefined) {
      appendFileSync(options.logFile, `${JSON.stringify(full)}\n`);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const n = ++seq;
    const method = req.method ?? 'GET';
    const p = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    if (options.bodiesDir !== undefined && raw.length > 0) {
      writeFileSync(path.join(options.bodiesDir, `${String(n).padStart(3, '0')}.json`), raw);
    }
    const route = method === 'POST' ? routeFor(p) : undefined;
    if (route === undefined) {
      other(n, method, p, raw, res);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      log({ seq: n, method, path: p, api: route.api, reply: 'bad JSON body', status: 400 });
      sendJson(res, 400, { error: { message: 'request body is not JSON' } });
      return;
    }
    const request = route.parse(isObject(body) ? body : {}, raw.length, p);
    const decision = decide(options.scenario, request, options.target, state, options.prompt);
    const reply = decision.reply;
    const usage = usageFor(request, reply);
    log({
      seq: n,
      method,
      path: p,
      api: route.api,
      model: request.model,
      stream: request.stream,
      tools: request.tools.map((t) => t.name),
      role: decision.role,
      step: decision.step,
      toolResults: request.toolResults,
      user: shorten(request.lastUserText, 120),
      reply: summarize(reply),
      status: reply.kind === 'error' ? reply.status : 200,
      ...(reply.kind !== 'error' ? { usage } : {}),
      ...(decision.note !== undefined ? { note: decision.note } : {}),
    });
    const writer = route.writer(res, request, `rig_${String(n)}`);
    switch (reply.kind) {
      case 'text':
        await writer.text(reply.chunks, reply.chunkDelayMs, usage);
        return;
      case 'json':
        writer.json(reply.value, usage);
        return;
      case 'tool':
        writer.tool(reply.call, usage);
        return;
      case 'error':
        writer.error(reply.status, reply.message, reply.retryAfterSec);
        return;
    }
  };

  /** Everything that is not a model call: model lists, token counts, probes. */
  const other = (n: number, method: string, p: string, raw: Buffer, res: ServerResponse): void => {
    let status = 200;
    if (p.endsWith('/models') && method === 'GET') {
      sendJson(res, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'rig' })), models: models.map((id) => ({ name: `models/${id}` })) });
    } else if (p.endsWith('/count_tokens')) {
      sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
    } else if (p.endsWith(':countTokens')) {
      sendJson(res, 200, { totalTokens: Math.ceil(raw.length / 4) });
    } else if (p === '/' || p === '/health') {
      sendJson(res, 200, { ok: true });
    } else {
      status = 404;
      sendJson(res, 404, { error: { message: `the rig's model server has no ${method} ${p}` } });
    }
    log({ seq: n, method, path: p, reply: status === 200 ? 'served' : 'not found', status });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log({ seq: -1, method: req.method ?? '', path: req.url ?? '', reply: `server error: ${e instanceof Error ? e.message : String(e)}`, status: 500 });
      sendJson(res, 500, { error: { message: 'rig model server bug' } });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${String(port)}`,
    entries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The file every edit scenario changes, and the command every shell scenario runs. */
export function defaultTarget(cwd: string): Target {
  return {
    cwd,
    file: 'rig-target.txt',
    oldText: 'Hello world',
    newText: 'Hello ACP',
    newContent: 'Hello ACP\nsecond line\n',
    command: 'echo rig-shell-ok > rig-shell-proof.txt',
  };
}

export const targetOriginalContent = 'Hello world\nsecond line\n';
