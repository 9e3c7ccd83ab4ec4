/**
 * The scripted model behind the real Hermes of the lab tier (`npm run test:hermes`) and of the
 * recordings made with it (recordWire.ts): OpenAI Chat Completions on 127.0.0.1, the reply chosen by a
 * bracketed marker in the last user message, like the lab's own `fake_openai_server.py`
 * (`../shared/hermes-lab/README.md` §4), plus the tool calls that make Hermes ask a question:
 *
 * | marker | reply |
 * | --- | --- |
 * | `[plain]` | "Hello from the fake model!" in four pieces |
 * | `[terminal cmd=C]` | a `terminal` call running C, then "The command finished." (`rm -r DIR` is put to the user; `sudo …` asks for the password) |
 * | `[edit path=P]` | a `patch` call replacing `world` with `ACP` in P, then text |
 * | `[clarify]` | a `clarify` call ("Which colour?", red / blue), then "You answered." |
 * | `[skill name=N]` | a `skill_view` call of skill N (a skill that declares a required variable makes Hermes ask for it), then "Skill loaded." |
 * | `[slow]` | 60 pieces 250 ms apart (cancel tests) |
 * | `[ratelimit]` / `[error500]` | HTTP 429 (Retry-After: 1) / 500 on every call |
 * | anything else | a short echo |
 *
 * Hermes' own side calls are told apart by their system prompt: the smart-approval reviewer gets
 * "ESCALATE" (so a dangerous command is put to the user) and the title generator "Fake Session
 * Title". Every call bills 1234 prompt / 56 completion tokens, as the recordings' server did.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { arr, isObject, textOf, type JsonObject, type Reply } from '../realAgents/modelTypes';
import { chatWriter, parseChat } from '../realAgents/wire/openaiChat';

export interface LabModel {
  readonly port: number;
  /** `http://127.0.0.1:<port>/v1`, what a HERMES_HOME's config.yaml names as `base_url`. */
  readonly baseUrl: string;
  /**
   * One line per request: the marker's user text (shortened), what was answered, and the
   * conversation as sent: every user and assistant text in order (what Hermes remembers).
   */
  readonly requests: readonly { readonly user: string; readonly reply: string; readonly conversation: readonly string[] }[];
  close(): Promise<void>;
}

const usage = { input: 1234, output: 56 };

function text(s: string, pieces = 4, delayMs = 20): Reply {
  const size = Math.max(1, Math.ceil(s.length / pieces));
  const chunks: string[] = [];
  for (let i = 0; i < s.length; i += size) {
    chunks.push(s.slice(i, i + size));
  }
  return { kind: 'text', chunks, chunkDelayMs: delayMs };
}

function tool(name: string, args: JsonObject): Reply {
  return { kind: 'tool', call: { kind: 'function', id: `call_${Math.random().toString(16).slice(2, 10)}`, name, args } };
}

function markerArg(user: string, marker: string, key: string): string | undefined {
  const m = new RegExp(`\\[${marker}\\s+${key}=([^\\]]+)\\]`).exec(user);
  return m?.[1]?.trim();
}

function systemText(body: JsonObject): string {
  return arr(body.messages)
    .filter(isObject)
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

/** The reply to one chat-completions request (exported for the tier's own check of the script). */
export function decide(body: JsonObject): Reply {
  const system = systemText(body).toLowerCase();
  if (system.includes('security reviewer')) {
    return text('ESCALATE', 1, 0);
  }
  if (system.length < 3000 && system.includes('title') && (system.includes('conversation') || system.includes('session'))) {
    return text('Fake Session Title', 1, 0);
  }
  const request = parseChat(body, 0);
  const user = request.lastUserText;
  const step = request.toolResults.length;
  if (user.includes('[error500]')) {
    return { kind: 'error', status: 500, message: 'Fake upstream exploded' };
  }
  if (user.includes('[ratelimit]')) {
    return { kind: 'error', status: 429, message: 'Rate limit reached (fake)', retryAfterSec: 1 };
  }
  if (user.includes('[slow]')) {
    return { kind: 'text', chunks: Array.from({ length: 60 }, (_, i) => `tick ${i} `), chunkDelayMs: 250 };
  }
  if (user.includes('[plain]')) {
    return { kind: 'text', chunks: ['Hello ', 'from the ', 'fake model', '!'], chunkDelayMs: 20 };
  }
  const command = markerArg(user, 'terminal', 'cmd');
  if (command !== undefined) {
    return step === 0 ? tool('terminal', { command }) : text('The command finished.');
  }
  const path = markerArg(user, 'edit', 'path');
  if (path !== undefined) {
    return step === 0 ? tool('patch', { mode: 'replace', path, old_string: 'world', new_string: 'ACP' }) : text('I replaced `world` with `ACP`.');
  }
  if (user.includes('[clarify]')) {
    return step === 0 ? tool('clarify', { question: 'Which colour?', choices: ['red', 'blue'] }) : text('You answered.');
  }
  const skill = markerArg(user, 'skill', 'name');
  if (skill !== undefined) {
    return step === 0 ? tool('skill_view', { name: skill }) : text('Skill loaded.');
  }
  return text(`echo: ${user.slice(0, 200) || '(empty)'}`, 2);
}

function describe(reply: Reply): string {
  switch (reply.kind) {
    case 'text':
      return `text ${JSON.stringify(reply.chunks.join('').slice(0, 60))}`;
    case 'tool':
      return `tool ${reply.call.name}`;
    case 'error':
      return `HTTP ${reply.status}`;
    case 'json':
      return 'json';
  }
}

async function readJson(req: IncomingMessage): Promise<JsonObject> {
  const parts: Buffer[] = [];
  for await (const chunk of req) {
    parts.push(chunk as Buffer);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(parts).toString('utf8'));
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

/** `user: …` / `assistant: …` for each such message of the request, in order. */
function conversationOf(body: JsonObject): string[] {
  return arr(body.messages)
    .filter(isObject)
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => `${String(m.role)}: ${textOf(m.content)}`);
}

/** Starts the model server on a free port of 127.0.0.1. */
export async function startLabModel(): Promise<LabModel> {
  const requests: { user: string; reply: string; conversation: string[] }[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path.endsWith('/models')) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'lab' }] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: `unsupported path ${path}` } }));
      return;
    }
    const body = await readJson(req);
    const reply = decide(body);
    requests.push({ user: parseChat(body, 0).lastUserText.slice(0, 120), reply: describe(reply), conversation: conversationOf(body) });
    const writer = chatWriter(res, { ...parseChat(body, 0), model: 'fake-model' }, `chatcmpl-lab${requests.length}`);
    switch (reply.kind) {
      case 'text':
        await writer.text(reply.chunks, reply.chunkDelayMs, usage);
        return;
      case 'tool':
        writer.tool(reply.call, usage);
        return;
      case 'error':
        writer.error(reply.status, reply.message, reply.retryAfterSec);
        return;
      case 'json':
        writer.json(reply.value, usage);
    }
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
