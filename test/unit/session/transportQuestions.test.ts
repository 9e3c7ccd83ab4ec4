/**
 * The session layer over the non-ACP transports, against the fake TUI Gateway and fake API Server:
 * questions become QuestionEntries the user answers through the controller (clarify with choices
 * and free text, locks, cancel → `{}`; secrets masked and never in state, transcript, view or traffic
 * log); a rewrite cuts the transcript and rebinds row ids; a refused model comes back as a notice with
 * suggestions; `hermes.tool.progress` becomes a tool card with emoji and label, never text.
 */
import * as assert from 'node:assert/strict';
import { ApiServerConnection } from '../../../src/transports/apiServer/apiServerConnection';
import { connectTuiGateway } from '../../../src/transports/tuiGateway/connectTuiGateway';
import type { TuiGatewayConnection } from '../../../src/transports/tuiGateway/tuiGatewayConnection';
import { SessionController } from '../../../src/session/sessionController';
import { defaultQuirks, type QuestionEntry } from '../../../src/session/sessionState';
import { toMarkdown } from '../../../src/session/transcript';
import { ViewProjector } from '../../../src/session/viewProjection';
import type { TransportPorts } from '../../../src/agentPort/questionPort';
import type { DeepCutQuestion } from '../../../src/agentPort/transport';
import { TrafficLog } from '../../../src/wire/trafficLog';
import { until } from '../../support/wait';
import { assistantText, FakeProcess, fakeApiServerJs, fakeTuiGatewayJs, repoRoot, tools, userTexts } from '../transports/transportRig';

const secretValue = 'hunter2-very-secret';
let ids = 0;

/** A controller and the ports routed to it, as the chat layer wires them. */
function controllerFor(): { controller: SessionController; ports: TransportPorts } {
  const controller = new SessionController({ cwd: repoRoot, quirks: defaultQuirks, now: Date.now, newId: () => `q${++ids}` });
  const ports: TransportPorts = {
    permission: { requestPermission: (p, s) => controller.requestPermission(p, s) },
    questions: controller.questions.port,
  };
  return { controller, ports };
}

function pendingQuestion(c: SessionController): Promise<QuestionEntry> {
  return until('a pending question', () => c.state.entries.find((e): e is QuestionEntry => e.kind === 'question' && e.status === 'pending'));
}

const viewContext = { agentName: 'Hermes', readOnly: false, acceptsImages: false, pendingPermissions: 0, now: 0, relativePath: (p: string) => p };

suite('session / questions, rewrite and model suggestions over the TUI Gateway', () => {
  let controller: SessionController;
  let connection: TuiGatewayConnection;
  let log: TrafficLog;

  setup(async () => {
    const wired = controllerFor();
    controller = wired.controller;
    log = new TrafficLog();
    connection = await connectTuiGateway(
      { kind: 'stdio', command: { command: process.execPath, args: [fakeTuiGatewayJs, '--stdio', '--generation', 'next'], cwd: repoRoot, env: { FAKE_GATEWAY_EXPECT_SECRET: secretValue } } },
      { log, ports: wired.ports },
    );
    controller.useConnection(connection);
    await controller.start();
  });

  teardown(async () => {
    controller.dispose();
    await connection.dispose();
  });

  test('a clarify batch: one answer locked early (shown locked), the rest submitted with a choice and free text', async () => {
    const turn = controller.prompt([{ type: 'text', text: 'pick [clarify]' }]);
    const q = await pendingQuestion(controller);
    assert.equal(q.question.kind, 'clarify');
    const questions = q.question.kind === 'clarify' ? q.question.questions : [];
    assert.deepEqual(questions.map((x) => x.id), ['color', 'size']);
    assert.ok((questions[0]?.choices.length ?? 0) > 0, 'the first question offers choices');
    assert.equal(await controller.questions.lockClarify(q.requestId, 'color', 'blue'), 'ok');
    const locked = controller.state.entries.find((e): e is QuestionEntry => e.kind === 'question');
    assert.deepEqual(locked?.question.kind === 'clarify' ? locked.question.locked : undefined, { color: 'blue' });
    assert.ok(controller.questions.answerClarify(q.requestId, { size: 'a big one' }));
    assert.equal((await turn).kind, 'ended');
    const settled = controller.state.entries.find((e): e is QuestionEntry => e.kind === 'question');
    assert.equal(settled?.status, 'answered');
    assert.deepEqual(settled?.answers, { color: 'blue', size: 'a big one' });
    assert.match(assistantText(controller.state.entries), /clarify/);
    assert.match(toMarkdown(controller.state), /Answer: a big one/);
  });

  test('a clarify question cancelled answers {} and the card says cancelled', async () => {
    const turn = controller.prompt([{ type: 'text', text: 'pick [clarify-one]' }]);
    const q = await pendingQuestion(controller);
    assert.ok(controller.questions.cancel(q.requestId));
    assert.equal((await turn).kind, 'ended');
    assert.match(assistantText(controller.state.entries), /clarify cancelled/);
    const view = new ViewProjector().snapshot(controller.state, viewContext);
    const card = view.entries.find((e) => e.kind === 'question');
    assert.equal(card?.kind === 'question' ? card.status : undefined, 'cancelled');
  });

  test('a secret reaches the agent and nothing else: not the state, the transcript, the view or the traffic log', async () => {
    const turn = controller.prompt([{ type: 'text', text: 'token please [secret]' }]);
    const q = await pendingQuestion(controller);
    assert.equal(q.question.kind, 'secret');
    assert.equal(q.question.kind === 'secret' ? q.question.envVar : undefined, 'FAKE_API_TOKEN');
    assert.ok(controller.questions.answerSecret(q.requestId, secretValue));
    assert.equal((await turn).kind, 'ended');
    assert.match(assistantText(controller.state.entries), /secret: matched/, 'the agent got the value');
    const everywhere = [
      JSON.stringify(controller.state),
      toMarkdown(controller.state),
      JSON.stringify(new ViewProjector().snapshot(controller.state, viewContext)),
      log.snapshot().map((e) => JSON.stringify(e)).join('\n'),
    ];
    for (const text of everywhere) {
      assert.ok(!text.includes(secretValue), 'the secret leaked');
    }
    const settled = controller.state.entries.find((e): e is QuestionEntry => e.kind === 'question');
    assert.equal(settled?.provided, true);
  });

  test('cancelling the turn cancels its open question (a sudo prompt is declined, never left open)', async () => {
    const turn = controller.prompt([{ type: 'text', text: 'token please [sudo]' }]);
    const q = await pendingQuestion(controller);
    assert.equal(q.question.kind === 'secret' ? q.question.secretKind : undefined, 'sudo');
    await controller.cancel();
    await turn;
    const settled = controller.state.entries.find((e): e is QuestionEntry => e.kind === 'question' && e.requestId === q.requestId);
    assert.equal(settled?.status, 'cancelled');
    assert.equal(settled?.reason, 'turn cancelled');
  });

  test('a question the agent withdraws (its signal aborts) clears as withdrawn with the reason, and a late answer is refused', async () => {
    const abort = new AbortController();
    const answer = controller.requestQuestion(
      { kind: 'clarify', request: { sessionId: controller.sessionId ?? '', requestId: 'r1', questions: [{ id: 'a', text: 'A?', choices: [], multiSelect: false }], locked: {}, replayed: false, lock: () => Promise.resolve('ok') } },
      abort.signal,
    );
    const q = await pendingQuestion(controller);
    abort.abort(new Error('answered on another client'));
    assert.deepEqual(await answer, { kind: 'cancelled' });
    assert.equal(controller.questions.answerClarify(q.requestId, { a: 'late' }), false);
    const settled = controller.state.entries.find((e): e is QuestionEntry => e.kind === 'question' && e.requestId === q.requestId);
    assert.equal(settled?.status, 'withdrawn');
    assert.equal(settled?.reason, 'answered on another client');
  });

  test('rewrite of the second-to-last user message: asks, cuts, runs the new turn, rebinds the survivors’ row ids', async () => {
    for (const text of ['one', 'two', 'three']) {
      assert.equal((await controller.prompt([{ type: 'text', text }])).kind, 'ended');
    }
    const target = controller.state.entries.filter((e) => e.kind === 'user')[1];
    assert.ok(target !== undefined);
    const asked: DeepCutQuestion[] = [];
    const declined = await controller.rewrite(target.id, [{ type: 'text', text: 'TWO' }], (q) => (asked.push(q), Promise.resolve(false)));
    assert.equal(declined.kind, 'declined');
    assert.deepEqual(userTexts(controller.state.entries), ['one', 'two', 'three'], 'declining changes nothing');
    const result = await controller.rewrite(target.id, [{ type: 'text', text: 'TWO' }], (q) => (asked.push(q), Promise.resolve(true)));
    assert.equal(result.kind, 'ended');
    assert.equal(asked[0]?.userTurnsCut, 2);
    assert.deepEqual(userTexts(controller.state.entries), ['one', 'TWO']);
    assert.match(assistantText(controller.state.entries), /Echo: TWO/);
    const users = controller.state.entries.filter((e) => e.kind === 'user');
    assert.equal(typeof users[0]?.rowId, 'number', 'the survivor has its fresh row id');
    assert.deepEqual([users[0]?.rowId ?? null], connection.userRowIds(controller.sessionId ?? '').slice(0, 1));
    // A second rewrite targets the rebound id: a stale one would be refused (4018).
    const again = await controller.rewrite(users[0]?.id ?? '', [{ type: 'text', text: 'ONE' }], () => Promise.resolve(true));
    assert.equal(again.kind, 'ended');
    assert.deepEqual(userTexts(controller.state.entries), ['ONE']);
  });

  test('a refused model/provider pairing leaves a notice with the suggestions; picking one starts the session', async () => {
    const wired = controllerFor();
    const other = await connectTuiGateway({ kind: 'stdio', command: { command: process.execPath, args: [fakeTuiGatewayJs, '--stdio', '--generation', 'next'], cwd: repoRoot, env: {} } }, { log: new TrafficLog(), ports: wired.ports });
    try {
      wired.controller.useConnection(other);
      await assert.rejects(wired.controller.start({ model: 'gpt-5', provider: 'anthropic' }), (e: Error) => e.name === 'ModelMismatchError');
      const notice = wired.controller.state.entries.find((e) => e.kind === 'notice');
      assert.equal(notice?.kind === 'notice' ? notice.suggestions?.values.length : undefined, 5);
      const pick = notice?.kind === 'notice' ? notice.suggestions?.values[0] : undefined;
      assert.ok(pick !== undefined);
      await wired.controller.start({ model: pick, provider: 'anthropic' });
      assert.equal(wired.controller.state.phase, 'idle');
    } finally {
      wired.controller.dispose();
      await other.dispose();
    }
  });
});

suite('session / tool progress over the API Server', () => {
  test('hermes.tool.progress becomes tool cards with emoji and label, ended on completed, never text', async () => {
    const fake = new FakeProcess(fakeApiServerJs, []);
    const { port } = await fake.ready;
    const wired = controllerFor();
    const connection = new ApiServerConnection({ target: { baseUrl: `http://127.0.0.1:${port}` }, log: new TrafficLog(), ports: wired.ports });
    try {
      await connection.connect();
      wired.controller.useConnection(connection);
      await wired.controller.start();
      // Hermes v0.19.0 replayed (test/fixtures/hermes-api-server/chat-completions.jsonl, `[todo]`).
      assert.equal((await wired.controller.prompt([{ type: 'text', text: '[todo] plan it' }])).kind, 'ended');
      const cards = tools(wired.controller.state.entries);
      assert.deepEqual(cards.map((t) => [t.progress?.emoji, t.progress?.label, t.progress?.state, t.status]), [['📋', 'planning 3 task(s)', 'completed', 'ended']]);
      const text = assistantText(wired.controller.state.entries);
      assert.equal(text.trim(), 'Plan recorded.');
      const view = new ViewProjector().snapshot(wired.controller.state, viewContext);
      const toolViews = view.entries.filter((e) => e.kind === 'tool');
      assert.equal(toolViews[0]?.kind === 'tool' ? toolViews[0].progress?.emoji : undefined, '📋');
    } finally {
      wired.controller.dispose();
      connection.dispose();
      await fake.stop();
    }
  });
});
