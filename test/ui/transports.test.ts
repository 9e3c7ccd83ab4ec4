/**
 * Issues 19 and 42 in code-server + Chromium with the packaged extension: the TUI Gateway — the
 * newer generation as documented (the fake's `--generation next`) and Hermes v0.19.0 as recorded
 * (the fake's replay of test/fixtures/hermes-gateway/), both over WebSocket — and the API Server
 * (the replay of test/fixtures/hermes-api-server/; test/agents/fakeApiServer.md). A plain WebSocket
 * client in this file plays the user's Hermes terminal: it creates the sessions the chat attaches
 * to and answers an approval the chat also shows. What each fake received is read from its record
 * file, so the wire is asserted, not just the rendering.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import WebSocket from 'ws';
import { scriptedAgentPath } from '../support/paths';
import { FakeProcess, fakeApiServerJs, fakeTuiGatewayJs } from '../unit/transports/transportRig';
import { vsCodeForSuite } from './support';
import { answerMaskedInputBox, conversation, footers, hasClass, paletteCommand, scrolledTo, send, sendAndWaitForFooter, transcriptEntries, waitForCount, waitUntil } from './uiHelpers';

type Json = Record<string, unknown>;

const token = 'tok-ui19-gateway';
const token019 = 'tok-ui42-gateway-v019';
const apiKey = 'key-ui19-api';
const secretValue = 'sv-ui19-hunter2-value';

function obj(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

/** A second gateway client (the terminal the user started Hermes in), speaking the wire directly. */
class Terminal {
  readonly requests: { id: string; method: string; params: Json }[] = [];
  readonly events: { type: string; session: string; payload: Json }[] = [];
  private readonly pending = new Map<string, (frame: Json) => void>();
  private next = 1;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const frame = obj(JSON.parse(data.toString('utf8')));
      const id = frame.id;
      if (typeof frame.method === 'string' && typeof id === 'string') {
        this.requests.push({ id, method: frame.method, params: obj(frame.params) });
      } else if (frame.method === 'event') {
        const p = obj(frame.params);
        this.events.push({ type: String(p.type), session: String(p.session_id), payload: obj(p.payload) });
      } else if (typeof id === 'string') {
        this.pending.get(id)?.(frame);
        this.pending.delete(id);
      }
    });
  }

  /** `declare`: send `client.capabilities` (the newer gateway; Hermes v0.19.0 has no such method). */
  static async connect(url: string, declare = true): Promise<Terminal> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const t = new Terminal(ws);
    if (declare) {
      await t.call('client.capabilities', { server_requests: true });
    }
    return t;
  }

  call(method: string, params: Json): Promise<Json> {
    const id = `term-${this.next++}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (frame) => (frame.error !== undefined ? reject(new Error(JSON.stringify(frame.error))) : resolve(obj(frame.result))));
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  answer(id: string, result: Json): void {
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, result }));
  }

  /** Submits a prompt and waits for its `message.complete`. */
  async turn(session: string, text: string): Promise<void> {
    const before = this.completed(session);
    await this.call('prompt.submit', { session_id: session, text });
    await waitUntil(`the terminal's turn "${text}"`, () => Promise.resolve(this.completed(session) > before), 30_000);
  }

  request(method: string): Promise<{ id: string; params: Json }> {
    return waitUntil(`a ${method} request at the terminal`, () => Promise.resolve(this.requests.filter((r) => r.method === method).at(-1)), 30_000);
  }

  close(): void {
    this.ws.close();
  }

  private completed(session: string): number {
    return this.events.filter((e) => e.type === 'message.complete' && e.session === session).length;
  }
}

/** The frames a fake recorded (FAKE_GATEWAY_RECORD / FAKE_API_RECORD), one JSON object a line. */
function recorded(file: string): Json[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => obj(JSON.parse(l))) : [];
}

/** What the chat's client sent to the gateway (every connection but the terminal's). */
function fromChat(file: string, terminalConn: number): Json[] {
  return recorded(file).filter((r) => r.dir === 'in' && r.conn !== terminalConn).map((r) => obj(r.frame));
}

/** The chat's answer to a server request: a JSON-RPC response, or `request.answer` for a re-rendered one. */
function chatAnswer(file: string, terminalConn: number, requestId: string): Json | undefined {
  for (const f of fromChat(file, terminalConn)) {
    if (f.id === requestId && 'result' in f) {
      return obj(f.result);
    }
    if (f.method === 'request.answer' && obj(f.params).id === requestId) {
      return obj(obj(f.params).result);
    }
  }
  return undefined;
}

/** Every file under `dir` (the code-server run dir: its logs, the extension host's output channels). */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

suite('issue 19: TUI Gateway and API Server in the real chat (code-server + Chromium)', function () {
  this.timeout(240_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-ui19-'));
  const gatewayRecord = path.join(dir, 'gateway.jsonl');
  const v019Record = path.join(dir, 'gateway-v019.jsonl');
  const apiRecord = path.join(dir, 'api.jsonl');
  const gateway = new FakeProcess(fakeTuiGatewayJs, ['--ws', '--token', token, '--generation', 'next'], { FAKE_GATEWAY_RECORD: gatewayRecord, FAKE_GATEWAY_EXPECT_SECRET: secretValue });
  const api = new FakeProcess(fakeApiServerJs, ['--key', apiKey], { FAKE_API_RECORD: apiRecord });
  const v019 = new FakeProcess(fakeTuiGatewayJs, ['--ws', '--token', token019], { FAKE_GATEWAY_RECORD: v019Record });
  // Filled in before vsCodeForSuite's own suiteSetup (mocha runs hooks in order) starts code-server:
  // the fakes' ports are known only once they listen.
  const machineSettings: Json = {};
  let gatewayUrl = '';
  let v019Url = '';
  suiteSetup(async () => {
    const [g, a, old] = await Promise.all([gateway.ready, api.ready, v019.ready]);
    gatewayUrl = `ws://127.0.0.1:${g.port}/api/ws`;
    v019Url = `ws://127.0.0.1:${old.port}/api/ws`;
    machineSettings['hermes.agents'] = [
      { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath] },
      { id: 'gateway', name: 'Hermes Gateway', transport: 'tui-gateway', gateway: { url: gatewayUrl } },
      { id: 'remote', name: 'Hermes Remote', transport: 'api-server', apiServer: { baseUrl: `http://127.0.0.1:${a.port}` } },
      { id: 'hermes019', name: 'Hermes 0.19 Gateway', transport: 'tui-gateway', gateway: { url: v019Url } },
    ];
  });
  const vs = vsCodeForSuite('ui19-transports', { machineSettings, settings: { 'hermes.trace': 'verbose' } });
  let terminal: Terminal | undefined;
  let terminalConn = -1;
  let live = '';
  suiteTeardown(async () => {
    terminal?.close();
    await Promise.all([gateway.stop(), api.stop(), v019.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function term(): Terminal {
    assert.ok(terminal !== undefined, 'the terminal client is connected (attach test)');
    return terminal;
  }

  test('attach: the quick pick lists live and past sessions by title; the chat follows the live one; the terminal answers an approval and the chat’s card clears', async () => {
    const ui = vs.ui();
    terminal = await Terminal.connect(`${gatewayUrl}?token=${token}`);
    terminalConn = Number(recorded(gatewayRecord).find((r) => obj(r.frame).id === 'term-1')?.conn);
    const past = String((await terminal.call('session.create', {})).session_id);
    await terminal.turn(past, '[title=Yesterday notes] summarize the notes');
    await terminal.call('session.close', { session_id: past });
    live = String((await terminal.call('session.create', {})).session_id);
    await terminal.turn(live, '[title=Live refactor] plan the refactor');

    await paletteCommand(ui.page, 'Hermes: Attach to a Running Hermes Session…');
    // Two gateway agents are configured (the newer one and Hermes v0.19.0's): which one is asked first.
    const through = ui.page.locator('.quick-input-widget').filter({ hasText: 'Attach through which gateway?' });
    await through.locator('.quick-input-list .monaco-list-row').filter({ has: ui.page.locator('.label-name', { hasText: /^Hermes Gateway$/ }) }).first().click({ timeout: 30_000 });
    await answerMaskedInputBox(ui.page, token, 'Hermes Gateway: gateway session token');
    const pick = ui.page.locator('.quick-input-widget').filter({ hasText: 'Attach to a running Hermes Gateway session' });
    const rows = pick.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'Live refactor' }).first().waitFor({ timeout: 30_000 });
    // Separators are drawn on the rows ("Live", "Past"), not as rows of their own.
    const listed = (await rows.allTextContents()).map((s) => s.replace(/\s+/g, ' ').trim());
    assert.equal(listed.length, 2, `the live session once, then the past one: ${listed.join(' | ')}`);
    assert.match(listed[0] ?? '', /^Live refactor ?idle · hermes-default.*Live$/);
    assert.match(listed[1] ?? '', /^Yesterday notes ?st-1 ?Past$/);
    await ui.shot('ui19-attach-pick');
    await rows.filter({ hasText: 'Live refactor' }).first().click();

    const chat = await ui.chat();
    const log = conversation(chat);
    await log.getByText('Echo: plan the refactor').waitFor({ timeout: 30_000 });
    // The terminal steers; the chat shows the stream and the approval the gateway asks both clients.
    const turn = terminal.call('prompt.submit', { session_id: live, text: '[approval] clean up the build folder' });
    const allow = log.getByRole('button', { name: 'Allow once', exact: true });
    await allow.waitFor({ timeout: 30_000 });
    await log.getByText('clean up the build folder').first().waitFor({ timeout: 10_000 });
    await ui.page.locator('.statusbar').getByText('Hermes Gateway: permission needed').waitFor({ timeout: 10_000 });
    await ui.shot('ui19-attach-approval');
    const approval = await terminal.request('approval');
    await turn;
    terminal.answer(approval.id, { choice: 'deny' });
    await log.getByText('approval: deny').waitFor({ timeout: 30_000 });
    await allow.waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await log.getByRole('button', { name: 'Deny', exact: true }).count(), 0, 'the withdrawn prompt is gone');
    assert.equal(chatAnswer(gatewayRecord, terminalConn, approval.id), undefined, 'the chat did not answer an approval the terminal settled');
    assert.ok(
      recorded(gatewayRecord).some((r) => r.dir === 'out' && r.conn !== terminalConn && obj(obj(r.frame).params).type === 'request.cancel'),
      'the chat was told request.cancel',
    );
    await ui.shot('ui19-attach-cleared');
  });

  test('clarify: choices and free text answer {answers}; Cancel answers {}; a secret is masked and never shown or logged', async () => {
    const ui = vs.ui();
    const chat = await ui.chat();
    const log = conversation(chat);
    await send(chat, '[clarify] pick a variant');
    const card = log.getByRole('article', { name: 'The agent asks' }).last();
    await card.getByRole('radio', { name: 'blue' }).check({ timeout: 30_000 });
    await card.getByRole('textbox', { name: 'Your own answer to: Which size?' }).fill('large');
    await ui.shot('ui19-clarify-card');
    const first = await term().request('clarify');
    await card.getByRole('button', { name: 'Submit answers' }).click();
    await log.getByText('clarify answers: {"color":"blue","size":"large"}').waitFor({ timeout: 30_000 });
    assert.deepEqual(chatAnswer(gatewayRecord, terminalConn, first.id), { answers: { color: 'blue', size: 'large' } });

    await send(chat, '[clarify] never mind');
    await waitUntil('a second clarify request', () => Promise.resolve(term().requests.filter((r) => r.method === 'clarify').length === 2));
    const second = await term().request('clarify');
    await log.getByRole('article', { name: 'The agent asks' }).last().getByRole('button', { name: 'Cancel question' }).click({ timeout: 30_000 });
    await log.getByText('clarify cancelled ({})').waitFor({ timeout: 30_000 });
    assert.deepEqual(chatAnswer(gatewayRecord, terminalConn, second.id), {});

    await send(chat, '[secret] connect the API');
    const secretCard = log.getByRole('article', { name: 'The agent asks for FAKE_API_TOKEN' });
    const input = secretCard.getByLabel('The agent asks for FAKE_API_TOKEN', { exact: true });
    await input.waitFor({ timeout: 30_000 });
    assert.equal(await input.getAttribute('type'), 'password', 'the secret input is masked');
    await input.fill(secretValue);
    const asked = await term().request('secret');
    await secretCard.getByRole('button', { name: 'Submit secret' }).click();
    await log.getByText('secret: matched').waitFor({ timeout: 30_000 });
    await secretCard.getByText('Provided (not recorded)').waitFor({ timeout: 10_000 });
    assert.equal(chatAnswer(gatewayRecord, terminalConn, asked.id)?.value, secretValue, 'the value reached the gateway');
    assert.ok(!((await chat.locator('body').innerHTML()).includes(secretValue)), 'the value is nowhere in the chat');
    await ui.shot('ui19-secret-answered');
    await ui.command('Hermes: Show Traffic');
    const logs = await waitUntil('the traffic log with the redacted answer', () => {
      const files = filesUnder(ui.server.runDir).filter((f) => f.includes('Hermes Traffic'));
      return Promise.resolve(files.some((f) => fs.readFileSync(f, 'utf8').includes('«redacted»')) ? files : undefined);
    });
    for (const f of [...logs, ...filesUnder(ui.server.runDir).filter((f) => f.endsWith('.log'))]) {
      assert.ok(!fs.readFileSync(f, 'utf8').includes(secretValue), `the secret is not in ${f}`);
    }
  });

  test('rewrite: the second-to-last message is edited, the deep cut is confirmed, the gateway gets truncate_before_row_id + confirm_deep_truncate', async () => {
    const ui = vs.ui();
    const chat = await ui.chat();
    const log = conversation(chat);
    const users = log.getByRole('article', { name: 'You' });
    // The transcript is virtualized (issue 43): its user messages are read by scrolling through it.
    const userTexts = async (): Promise<string[]> =>
      (await transcriptEntries(chat, { body: '.user-body' })).filter((e) => hasClass(e, 'entry-user')).map((e) => (e.parts.body?.[0] ?? '').trim());
    const before = await userTexts();
    const n = before.length;
    assert.ok(n >= 3, `enough user messages to rewrite (${n})`);
    const targetText = before[n - 2] ?? '';
    const lastText = before[n - 1] ?? '';
    const target = await scrolledTo(conversation(chat), users.filter({ hasText: targetText }).last(), `the message "${targetText}"`);
    const history = await term().call('session.history', { session_id: live });
    const rowId = (Array.isArray(history.messages) ? history.messages.map(obj) : []).find((m) => m.role === 'user' && m.text === targetText)?.row_id;
    assert.equal(typeof rowId, 'number', `the gateway has a row for "${targetText}"`);

    await target.getByRole('button', { name: 'Edit and resend', exact: true }).click();
    await target.getByRole('textbox', { name: 'Edit your message' }).fill('rewritten question');
    await target.getByRole('button', { name: 'Resend', exact: true }).click();
    const dialog = target.getByRole('alertdialog');
    await dialog.waitFor({ timeout: 10_000 });
    await ui.shot('ui19-rewrite-deep-cut');
    await dialog.getByRole('button', { name: 'Cut 2 turns and resend' }).click();
    await log.getByText('Echo: rewritten question').waitFor({ timeout: 30_000 });
    const submit = fromChat(gatewayRecord, terminalConn).find((f) => f.method === 'prompt.submit' && obj(f.params).text === 'rewritten question');
    assert.deepEqual(obj(submit?.params), { session_id: obj(submit?.params).session_id, text: 'rewritten question', confirm_truncate: true, truncate_before_row_id: rowId, confirm_deep_truncate: true });
    let texts: string[] = [];
    await waitUntil('the cut messages to go', async () => (texts = await userTexts()).length === n - 1, 30_000, 300);
    assert.equal(texts.at(-1), 'rewritten question');
    assert.ok(!texts.includes(targetText) && !texts.includes(lastText), `the cut turns are gone: ${texts.join(' | ')}`);
    await ui.shot('ui19-rewritten');
  });

  test('tool progress: an api-server agent’s hermes.tool.progress frames are cards with emoji and label, never assistant text', async () => {
    const ui = vs.ui();
    await paletteCommand(ui.page, 'Hermes: Select Agent');
    await ui.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: 'Hermes Remote' }).first().click();
    await answerMaskedInputBox(ui.page, apiKey, 'Hermes Remote: API Server key');
    const chat = await ui.chat();
    await waitUntil('the remote chat', async () => (await footers(chat).count()) === 0 && (await conversation(chat).getByRole('article').count()) === 0);
    // Hermes v0.19.0 replayed: `[todo]` streams one `hermes.tool.progress` pair (📋 "planning 3 task(s)").
    const footer = await sendAndWaitForFooter(chat, '[todo] plan it');
    await footer.getByText('Completed').waitFor({ timeout: 10_000 });
    const log = conversation(chat);
    const card = (label: string): Locator => log.getByRole('article', { name: label, exact: true });
    await card('planning 3 task(s)').waitFor({ timeout: 10_000 });
    assert.equal(await card('planning 3 task(s)').locator('.tool-emoji').textContent(), '📋');
    const reply = log.getByRole('article', { name: 'Hermes Remote' });
    const text = (await reply.allTextContents()).join(' ');
    assert.match(text, /Plan recorded\./);
    for (const leaked of ['📋', 'planning', 'running', 'completed']) {
      assert.ok(!text.includes(leaked), `the progress text "${leaked}" is not in the reply: ${text}`);
    }
    const chatRequest = recorded(apiRecord).find((r) => r.path === '/v1/chat/completions');
    assert.equal(chatRequest?.authorized, true, 'the key from the masked input went to the server');
    await ui.shot('ui19-tool-progress');
  });

  test('Hermes v0.19.0 (replayed): a dangerous command’s approval is a card with Hermes’ four choices; Allow runs it, Deny leaves the folder; the other client’s answer clears it', async () => {
    const ui = vs.ui();
    await paletteCommand(ui.page, 'Hermes: Select Agent');
    await ui.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: 'Hermes 0.19 Gateway' }).first().click();
    await answerMaskedInputBox(ui.page, token019, 'Hermes 0.19 Gateway: gateway session token');
    const chat = await ui.chat();
    await waitUntil('the v0.19 chat', async () => (await footers(chat).count()) === 0 && (await conversation(chat).getByRole('article').count()) === 0);
    const log = conversation(chat);
    const victim = (name: string): string => {
      const d = path.join(dir, name);
      fs.mkdirSync(path.join(d, 'sub'), { recursive: true });
      return d;
    };
    const finished = log.getByText('The command finished.');
    // The transcript is virtualized (issue 43): an earlier turn's text may have no element; count them all.
    const finishedTurns = async (): Promise<number> => (await transcriptEntries(chat)).filter((e) => e.text.includes('The command finished.')).length;
    const button = (name: string): Locator => log.getByRole('button', { name, exact: true });

    const first = victim('victim1');
    await send(chat, `[terminal cmd=rm -r ${first}] Clean up.`);
    await button('Allow once').waitFor({ timeout: 30_000 });
    for (const name of ['Allow for this session', 'Always allow', 'Deny']) {
      assert.equal(await button(name).count(), 1, `the card offers "${name}"`);
    }
    await ui.page.locator('.statusbar').getByText('Hermes 0.19 Gateway: permission needed').waitFor({ timeout: 10_000 });
    await ui.shot('ui42-v019-approval-card');
    await button('Allow once').click();
    await finished.first().waitFor({ timeout: 30_000 });
    await waitUntil('the allowed command to run', () => Promise.resolve(!fs.existsSync(first)));

    const second = victim('victim2');
    await send(chat, `[terminal cmd=rm -r ${second}] Clean up.`);
    await button('Deny').waitFor({ timeout: 30_000 });
    await button('Deny').click();
    await waitForCount(finishedTurns, 2, 'the denied turn’s end', 30_000, 500);
    assert.ok(fs.existsSync(second), 'Deny left the folder');
    await ui.shot('ui42-v019-denied');

    // The session's other client (the user's own Hermes TUI) answers the third approval.
    const terminal = await Terminal.connect(`${v019Url}?token=${token019}`, false);
    try {
      const listed = await terminal.call('session.active_list', {});
      const live = (Array.isArray(listed.sessions) ? listed.sessions.map(obj) : []).map((x) => String(x.id));
      assert.equal(live.length, 1, `the chat's session is the one live session: ${live.join(', ')}`);
      const third = victim('victim3');
      await send(chat, `[terminal cmd=rm -r ${third}] Clean up.`);
      await button('Allow once').waitFor({ timeout: 30_000 });
      assert.deepEqual(await terminal.call('approval.respond', { session_id: live[0], choice: 'once' }), { resolved: 1 });
      await button('Allow once').waitFor({ state: 'detached', timeout: 30_000 });
      await waitForCount(finishedTurns, 3, 'the third turn’s end', 30_000, 500);
      assert.ok(!fs.existsSync(third), 'the other client allowed it');
      await ui.shot('ui42-v019-cleared');
    } finally {
      terminal.close();
    }
    const answers = recorded(v019Record).filter((r) => r.dir === 'in' && obj(r.frame).method === 'approval.respond').map((r) => obj(obj(r.frame).params).choice);
    assert.deepEqual(answers, ['once', 'deny', 'once'], 'one answer each: two from the chat, the last from the other client');
  });
});
