import * as fs from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import { SessionController } from '../../src/session/sessionController';
import { toMarkdown } from '../../src/session/transcript';
import { isObject, type JsonObject } from '../../src/util/json';
import { describeStartError } from '../../src/app/startErrors';
import type { AgentStack } from './agentStack';

/** One recorded frame, in either fixture format (Hermes `{t,dir,msg}` or agents `{ts,dir,msg|note}`). */
export interface Frame {
  readonly dir: 'c2a' | 'a2c' | 'note';
  readonly msg: JsonObject;
  readonly note?: string;
}

export function readFixture(file: string, lab: string): Frame[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l.replaceAll('<LAB>', lab)) as JsonObject)
    .map((r): Frame => {
      const dir = r.dir === '->' || r.dir === 'client->agent' ? 'c2a' : r.dir === '<-' || r.dir === 'agent->client' ? 'a2c' : 'note';
      const note = typeof r.note === 'string' ? r.note : typeof r.msg === 'string' ? r.msg : undefined;
      return { dir, msg: isObject(r.msg) ? r.msg : {}, ...(note !== undefined ? { note } : {}) };
    });
}

/** Splits a multi-process recording at its `spawned agent` notes (claude-main, codex-main). */
export function segments(frames: readonly Frame[]): Frame[][] {
  const out: Frame[][] = [[]];
  for (const f of frames) {
    if (f.dir === 'note' && f.note?.startsWith('spawned agent#') === true) {
      out.push([]);
    }
    out[out.length - 1]?.push(f);
  }
  return out.filter((s) => s.some((f) => f.dir !== 'note'));
}

/**
 * Replays what the recorded client did through OUR client core, against the replay agent
 * process: the same requests in the same order (prompts are not awaited before a later recorded
 * frame needs them, so cancels land mid-turn), recorded permission answers given through the
 * controller as a user would. Returns one controller per session, for golden transcripts.
 */
export async function driveFixture(stack: AgentStack, frames: readonly Frame[]): Promise<Map<string, SessionController>> {
  const controllers = stack.controllers;
  let firstUsed = false;
  let ids = 0;
  const newController = (): SessionController => {
    if (!firstUsed) {
      firstUsed = true;
      return stack.controller;
    }
    return new SessionController({ connection: stack.client, cwd: stack.cwd, quirks: stack.controller.state.quirks, now: Date.now, newId: () => `x${++ids}` });
  };
  // Route permission requests of extra sessions to their controllers.
  const routeOf = (sessionId: string): SessionController | undefined => controllers.get(sessionId);
  const responseIndex = new Map<string | number, number>();
  frames.forEach((f, i) => {
    if (f.dir === 'a2c' && !('method' in f.msg) && (typeof f.msg.id === 'number' || typeof f.msg.id === 'string')) {
      responseIndex.set(f.msg.id, i);
    }
  });
  const inflight: { until: number; done: Promise<unknown> }[] = [];
  const settleBefore = async (i: number): Promise<void> => {
    for (const call of inflight.splice(0).filter((c) => {
      if (c.until < i) {
        return true;
      }
      inflight.push(c);
      return false;
    })) {
      await call.done;
    }
  };
  let permissionsAnswered = 0;
  let failures = 0;
  for (let i = 0; i < frames.length; i++) {
    const f = frames[i];
    if (f?.dir !== 'c2a') {
      continue;
    }
    await settleBefore(i);
    const m = f.msg;
    const method = typeof m.method === 'string' ? m.method : undefined;
    const params = isObject(m.params) ? m.params : {};
    const id = typeof m.id === 'number' || typeof m.id === 'string' ? m.id : undefined;
    const until = id !== undefined ? (responseIndex.get(id) ?? Number.MAX_SAFE_INTEGER) : i;
    const track = (p: Promise<unknown>): void => {
      inflight.push({ until, done: p.catch(() => undefined) });
    };
    if (method === undefined) {
      // Our recorded answer to an agent request: answer the pending permission the same way.
      const outcome = isObject(m.result) && isObject(m.result.outcome) ? m.result.outcome : undefined;
      const answer = async (): Promise<void> => {
        const pending = await waitForPending(controllers, permissionsAnswered);
        permissionsAnswered++;
        if (pending === undefined) {
          return;
        }
        if (outcome?.outcome === 'selected' && typeof outcome.optionId === 'string') {
          pending.controller.choosePermission(pending.requestId, outcome.optionId);
        } else {
          pending.controller.dismissPermission(pending.requestId);
        }
      };
      await answer();
      continue;
    }
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    switch (method) {
      case 'initialize':
        break; // done by the stack
      case 'authenticate':
        track(stack.client.authenticate(String(params.methodId)));
        break;
      case 'session/new': {
        const c = newController();
        track(
          c.start().then(
            () => {
              if (c.sessionId !== undefined) {
                controllers.set(c.sessionId, c);
              }
            },
            (e: unknown) => {
              // What the chat shows when a session cannot start (same mapping as the extension).
              const agentName = stack.client.agent?.agentInfo?.name ?? 'agent';
              const n = describeStartError(e, { id: agentName, name: agentName, command: agentName, args: [], env: {} });
              c.addNotice('error', n.title, n.detail, n.actions);
              controllers.set(`(session/new failed #${++failures})`, c);
            },
          ),
        );
        break;
      }
      case 'session/load':
      case 'session/resume': {
        if (sessionId === undefined) {
          break;
        }
        const existing = routeOf(sessionId);
        const c = existing ?? newController();
        controllers.set(sessionId, c);
        track(c.load(sessionId, method === 'session/load' ? 'load' : 'resume'));
        break;
      }
      case 'session/prompt': {
        if (sessionId === undefined) {
          break;
        }
        let c = routeOf(sessionId);
        if (c === undefined) {
          c = newController();
          c.attach(sessionId, {});
          controllers.set(sessionId, c);
        }
        const blocks = Array.isArray(params.prompt) ? (params.prompt as acp.ContentBlock[]) : [];
        await waitIdle(c);
        track(c.prompt(blocks));
        break;
      }
      case 'session/cancel': {
        const c = sessionId !== undefined ? routeOf(sessionId) : undefined;
        if (c !== undefined) {
          await waitRunning(c);
          await c.cancel();
        }
        break;
      }
      case 'session/set_mode': {
        const c = sessionId !== undefined ? routeOf(sessionId) : undefined;
        track(c?.setMode(String(params.modeId)) ?? Promise.resolve());
        break;
      }
      case 'session/set_model': {
        const c = sessionId !== undefined ? routeOf(sessionId) : undefined;
        track(c?.setModel(String(params.modelId)) ?? Promise.resolve());
        break;
      }
      case 'session/set_config_option': {
        const c = sessionId !== undefined ? routeOf(sessionId) : undefined;
        track(c?.setConfigOption(String(params.configId), typeof params.value === 'boolean' ? params.value : String(params.value)) ?? Promise.resolve());
        break;
      }
      case 'session/list':
        track(stack.client.listSessions(typeof params.cwd === 'string' ? { cwd: params.cwd } : {}));
        break;
      case 'session/fork':
        if (sessionId !== undefined) {
          track(
            stack.client.forkSession({ sessionId, cwd: stack.cwd, mcpServers: [] }).then((res) => {
              const c = newController();
              c.attach(res.sessionId, res);
              controllers.set(res.sessionId, c);
            }),
          );
        }
        break;
      case 'session/close':
        if (sessionId !== undefined) {
          track(stack.client.closeSession(sessionId));
        }
        break;
      default:
        track(stack.client.callUntyped(method, params));
    }
  }
  await settleBefore(Number.MAX_SAFE_INTEGER);
  return controllers;
}

async function waitForPending(
  controllers: Map<string, SessionController>,
  _index: number,
  ms = 10_000,
): Promise<{ controller: SessionController; requestId: string } | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    for (const c of controllers.values()) {
      const p = c.pendingPermissions[0];
      if (p !== undefined) {
        return { controller: c, requestId: p.requestId };
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return undefined;
}

async function waitIdle(c: SessionController, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (c.state.phase !== 'idle' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function waitRunning(c: SessionController, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (c.state.phase !== 'running' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The golden transcript: every session the fixture touched, in the order they appeared. */
export function goldenTranscript(controllers: Map<string, SessionController>): string {
  const parts: string[] = [];
  for (const [sessionId, c] of controllers) {
    parts.push(`<!-- session ${sessionId} -->`, '', toMarkdown(c.state));
  }
  return `${parts.join('\n').trim()}\n`;
}
