/**
 * The extension's session layer — AgentHost (with the transports' `connectTransport`) under a
 * SessionController, as a chat wires them — against the real Hermes v0.19.0 of the lab over every
 * protocol: a plain turn with its tokens, an approval card allowed and denied (over chat
 * completions: the parked command shown failed), a clarify answered through the question port
 * (gateway), a provider 429 shown as the failed turn the chat offers Retry for, an interrupt, an
 * agent that cannot start. Run by `npm run test:hermes`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { AgentHost } from '../../src/host/agentHost';
import { describeError } from '../../src/agentPort/agentErrors';
import { quirksFor } from '../../src/session/agentQuirks';
import { SessionController, type PendingPermission } from '../../src/session/sessionController';
import type { ToolEntry } from '../../src/session/sessionState';
import { connectTransport } from '../../src/host/connectTransport';
import type { QuestionPort } from '../../src/agentPort/questionPort';
import { until } from '../support/wait';
import { assistantText, tools } from '../unit/transports/transportRig';
import { protocols, type Reached } from './protocols';
import { labScope, victim } from './tier';

interface Chat {
  readonly host: AgentHost;
  readonly controller: SessionController;
  readonly permissions: PendingPermission[];
  readonly questions: { port: QuestionPort };
}

async function openChat(reached: Reached, ws: string, marker: Record<string, string>): Promise<Chat> {
  const ref: { controller?: SessionController } = {};
  const questions: { port: QuestionPort } = { port: {} };
  const host = new AgentHost(reached.definition, {
    cwd: ws,
    clientInfo: { name: 'hermes-acp-lab-tier', version: '0' },
    ports: { permission: { requestPermission: (p, signal) => ref.controller?.requestPermission(p, signal) ?? Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
    questions: {
      clarify: (q, signal) => questions.port.clarify?.(q, signal) ?? Promise.resolve({ kind: 'cancelled' }),
      secret: (q, signal) => questions.port.secret?.(q, signal) ?? Promise.resolve({ kind: 'declined' }),
    },
    env: { ...reached.hostEnv, ...marker },
    connectTransport,
    transportSecret: () => Promise.resolve(reached.secret),
  });
  const connection = await host.start();
  let ids = 0;
  const controller = new SessionController({ connection, cwd: ws, quirks: quirksFor(connection.agent?.agentInfo), now: Date.now, newId: () => `e${++ids}` });
  const permissions: PendingPermission[] = [];
  ref.controller = controller;
  controller.onPermissionRequested((p) => permissions.push(p));
  return { host, controller, permissions, questions };
}

async function closeChat(chat: Chat | undefined): Promise<void> {
  chat?.controller.dispose();
  await chat?.host.dispose();
}

for (const protocol of protocols) {
  suite(`lab tier: the session layer over ${protocol.label}`, function () {
    this.timeout(240_000);
    let chat: Chat | undefined;
    const scope = labScope(`session-${protocol.name}`, async () => {
      await closeChat(chat);
      chat = undefined;
    });
    let reached: Reached;
    suiteSetup(async function () {
      this.timeout(180_000);
      reached = await protocol.reach(scope.run, scope.run.home());
    });

    test('a plain turn: the text and this turn’s tokens in its footer', async () => {
      chat = await openChat(reached, scope.ws, scope.marker);
      await chat.controller.start();
      const turn = await chat.controller.prompt([{ type: 'text', text: '[plain] Say hello.' }]);
      assert.equal(turn.kind, 'ended');
      assert.equal(assistantText(chat.controller.state.entries).trim(), 'Hello from the fake model!');
      const footer = chat.controller.state.entries.find((e) => e.kind === 'turnEnd');
      assert.ok(footer?.kind === 'turnEnd' && (footer.usage?.totalTokens ?? 0) > 0, JSON.stringify(footer));
    });

    if (protocol.name === 'api-chat') {
      test('a dangerous command is parked: its card fails with Hermes’ reason, nothing ran', async () => {
        chat = await openChat(reached, scope.ws, scope.marker);
        await chat.controller.start();
        const dir = victim(scope.ws);
        await chat.controller.prompt([{ type: 'text', text: `[terminal cmd=rm -r ${dir}] Clean up.` }]);
        const card = tools(chat.controller.state.entries).find((t) => t.name === 'terminal');
        assert.equal(card?.status, 'failed');
        assert.match(JSON.stringify(card?.content), /Not run: Hermes holds it for approval/);
        assert.ok(fs.existsSync(dir));
      });
    } else {
      for (const allow of [true, false]) {
        test(`an approval card: ${allow ? 'Allow runs the command' : 'Deny leaves the folder'}`, async () => {
          const c = (chat = await openChat(reached, scope.ws, scope.marker));
          await c.controller.start();
          const dir = victim(scope.ws);
          const turn = c.controller.prompt([{ type: 'text', text: `[terminal cmd=rm -r ${dir}] Clean up.` }]);
          await until('the approval card', () => c.permissions[0], 120_000);
          const card = c.permissions[0];
          const option = card?.request.options.find((o) => o.kind === (allow ? 'allow_once' : 'reject_once'));
          assert.ok(option !== undefined, JSON.stringify(card?.request.options));
          assert.ok(c.controller.choosePermission(card?.requestId ?? '', option.optionId));
          const ended = await turn;
          assert.equal(ended.kind, 'ended');
          assert.equal(fs.existsSync(dir), !allow);
        });
      }
    }

    if (protocol.clarify) {
      test('a clarify is a question: the answer reaches Hermes', async () => {
        const c = (chat = await openChat(reached, scope.ws, scope.marker));
        const asked: string[] = [];
        c.questions.port = {
          clarify: (q) => {
            asked.push(q.questions[0]?.text ?? '');
            return Promise.resolve({ kind: 'answered', answers: { answer: 'blue' } });
          },
        };
        await c.controller.start();
        const turn = await c.controller.prompt([{ type: 'text', text: '[clarify] Ask me.' }]);
        assert.equal(turn.kind, 'ended');
        assert.deepEqual(asked, ['Which colour?']);
        const card = tools(c.controller.state.entries).find((t): t is ToolEntry => t.name === 'clarify');
        assert.equal((card?.rawOutput as { user_response?: unknown } | undefined)?.user_response, 'blue');
      });
    }

    test('a provider 429 fails the turn: the footer the chat offers Retry for', async () => {
      chat = await openChat(reached, scope.ws, scope.marker);
      await chat.controller.start();
      await chat.controller.prompt([{ type: 'text', text: '[ratelimit] hi' }]);
      const footer = chat.controller.state.entries.filter((e) => e.kind === 'turnEnd').at(-1);
      assert.ok(footer?.kind === 'turnEnd' && footer.outcome === 'error', JSON.stringify(footer));
      assert.match(footer.error ?? '', /429|rate/i);
    });

    test('cancel mid-stream ends the turn cancelled', async () => {
      const c = (chat = await openChat(reached, scope.ws, scope.marker));
      await c.controller.start();
      const turn = c.controller.prompt([{ type: 'text', text: '[slow] count' }]);
      await until('streaming', () => assistantText(c.controller.state.entries).includes('tick 1') || undefined, 120_000);
      await c.controller.cancel();
      const ended = await turn;
      assert.equal(ended.kind === 'ended' ? ended.stopReason : ended.kind, 'cancelled');
    });

    if (protocol.name === 'acp' || protocol.name.startsWith('gateway')) {
      test('an agent that cannot start (no provider): the session fails to start with Hermes’ words', async () => {
        const home = scope.run.home({ provider: false });
        const broken = protocol.name === 'gateway-ws' ? await protocol.reach(scope.run, home) : { ...reached, hostEnv: { ...reached.hostEnv, HERMES_HOME: home } };
        chat = await openChat(broken, scope.ws, scope.marker);
        // ACP: -32603 "Internal error" with Hermes' words in `data.details`; the gateway: its `error` event.
        await assert.rejects(chat.controller.start(), (e: unknown) => e instanceof Error && /provider/i.test(describeError(e)));
        if (broken.server !== undefined) {
          scope.run.kill(broken.server);
        }
      });
    }
  });
}
