/**
 * The runner and the extension run a turn through the same application-layer code (src/app/turnRun.ts):
 * the same scripted-agent scenarios, once through `hermes-acp-run` (a real runner process) and once
 * through a headless ChatSession on an AgentHost, each projected into one comparable event stream.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import { ChatRegistry } from '../../../src/app/chatRegistry';
import { ChatSession } from '../../../src/app/chatSession';
import { turnReply } from '../../../src/app/turnRun';
import { displayStatus } from '../../../src/session/toolView';
import { HeadlessPermissions, type PermissionMode } from '../../../src/cli/permissions';
import type { Entry } from '../../../src/session/sessionState';
import { formatMessage } from '../../../src/util/l10n';
import { scriptedAgentPath } from '../../support/paths';
import { until } from '../../support/wait';
import { events, killLeftovers, ofType, resultOf, runCli, runInterrupted, scriptedAgent, tempDir, type CliRun, type Event } from '../cli/cliHarness';

/** One step of a turn as both surfaces can tell it. Tool ids are numbered by first appearance (the agent mints fresh ones per run). */
type Step =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool_start'; readonly id: string }
  | { readonly kind: 'permission'; readonly id: string; readonly optionId: string | undefined }
  | { readonly kind: 'tool_end'; readonly id: string; readonly status: string }
  | { readonly kind: 'result'; readonly stopReason: string | null; readonly reply: string; readonly providerFailure: boolean };

/** How many streamed lines arrive before a cancel lands is timing: the cancelled scenario compares the text up to where it was stopped. */
type TextCut = (text: string) => string;
const whole: TextCut = (text) => text;

class Ids {
  private readonly seen = new Map<string, string>();
  of(id: string): string {
    let n = this.seen.get(id);
    if (n === undefined) {
      n = `t${this.seen.size + 1}`;
      this.seen.set(id, n);
    }
    return n;
  }
}

/** The runner's stream-json events: text fragments joined, tools and permissions by call id, the result. */
function runnerSteps(evs: readonly Event[], cut: TextCut): Step[] {
  const steps: Step[] = [];
  const ids = new Ids();
  for (const e of evs) {
    const last = steps.at(-1);
    switch (e.type) {
      case 'text':
        if (last?.kind === 'text') {
          steps[steps.length - 1] = { kind: 'text', text: last.text + String(e.text) };
        } else {
          steps.push({ kind: 'text', text: String(e.text) });
        }
        break;
      case 'tool_use':
        steps.push({ kind: 'tool_start', id: ids.of(String(e.tool_call_id)) });
        break;
      case 'permission':
        steps.push({ kind: 'permission', id: ids.of(String(e.tool_call_id)), optionId: typeof e.optionId === 'string' ? e.optionId : undefined });
        break;
      case 'tool_result':
        steps.push({ kind: 'tool_end', id: ids.of(String(e.tool_call_id)), status: String(e.status) });
        break;
      case 'result':
        // Exit 75 (EX_TEMPFAIL): the reply was the provider's failure, not an answer.
        steps.push({ kind: 'result', stopReason: typeof e.stop_reason === 'string' ? e.stop_reason : null, reply: cut(String(e.text)), providerFailure: e.exit_code === 75 });
        break;
      default:
        break;
    }
  }
  return cutTexts(steps, cut);
}

/** The chat's turn as its entries tell it, and the notices the chat added after it. */
function chatSteps(chat: ChatSession, turnEntries: readonly Entry[], stopReason: string | null, cut: TextCut): Step[] {
  const steps: Step[] = [];
  const ids = new Ids();
  for (const e of turnEntries) {
    if (e.kind === 'assistant') {
      const text = e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      const last = steps.at(-1);
      if (text === '') {
        continue;
      }
      if (last?.kind === 'text') {
        steps[steps.length - 1] = { kind: 'text', text: last.text + text };
      } else {
        steps.push({ kind: 'text', text });
      }
    } else if (e.kind === 'tool') {
      const id = ids.of(e.toolCallId);
      steps.push({ kind: 'tool_start', id });
      if (e.permission !== undefined && e.permission.status !== 'pending') {
        steps.push({ kind: 'permission', id, optionId: e.permission.optionId });
      }
      // The card's status ("Denied" for a rejected permission, as the runner's `denied`).
      steps.push({ kind: 'tool_end', id, status: displayStatus(e) });
    }
  }
  // A provider failure's report is the footer's failure block, not a reply (turnSlice.ts): the runner streamed it as text.
  const footer = turnEntries.find((e) => e.kind === 'turnEnd');
  const providerFailure = footer?.kind === 'turnEnd' && footer.provider !== undefined;
  if (footer?.kind === 'turnEnd' && footer.errorWasReply === true && footer.error !== undefined) {
    steps.push({ kind: 'text', text: footer.error });
  }
  steps.push({ kind: 'result', stopReason, reply: cut(turnReply(chat.controller.state.entries, undefined)), providerFailure });
  return cutTexts(steps, cut);
}

function cutTexts(steps: readonly Step[], cut: TextCut): Step[] {
  return steps.map((s) => (s.kind === 'text' ? { kind: 'text', text: cut(s.text) } : s));
}

interface Scenario {
  readonly name: string;
  readonly prompt: string;
  readonly permissions: PermissionMode;
  readonly runnerArgs: readonly string[];
  /** Cancel the turn once the streamed text contains this. */
  readonly cancelAt?: string;
  readonly cut?: TextCut;
}

const twoTicks: TextCut = (text) => text.split('\n').slice(0, 2).join('\n');

const scenarios: readonly Scenario[] = [
  { name: 'a plain reply', prompt: '[plain]', permissions: { kind: 'deny' }, runnerArgs: [] },
  { name: 'a tool call with permission (allowed)', prompt: '[command cmd=rm -r build]', permissions: { kind: 'allow' }, runnerArgs: ['--permissions', 'allow'] },
  { name: 'a tool call with permission (denied)', prompt: '[command cmd=rm -r build]', permissions: { kind: 'deny' }, runnerArgs: [] },
  { name: "a provider's error as the reply text (HTTP 429)", prompt: '[ratelimit-text]', permissions: { kind: 'deny' }, runnerArgs: [] },
  { name: 'the agent exits mid-turn', prompt: '[crash when=mid mode=exit code=3]', permissions: { kind: 'deny' }, runnerArgs: [] },
  { name: 'a cancelled turn', prompt: '[slow n=40 ms=100]', permissions: { kind: 'deny' }, runnerArgs: [], cancelAt: 'tick 2', cut: twoTicks },
];

async function throughRunner(s: Scenario, cwd: string): Promise<Step[]> {
  const args = ['-q', s.prompt, '--format', 'stream-json', ...s.runnerArgs, '--', ...scriptedAgent];
  const run: CliRun = s.cancelAt !== undefined ? await runInterrupted(args, cwd, s.cancelAt) : await runCli(args, { cwd });
  const evs = events(run);
  resultOf(evs);
  assert.equal(ofType(evs, 'system').length, 1, run.stderr);
  return runnerSteps(evs, s.cut ?? whole);
}

async function throughChat(s: Scenario, cwd: string, track: (d: { dispose(): unknown }) => void): Promise<Step[]> {
  const def: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: {} };
  // Wired as ChatManager wires it: the host's permission requests go to the chat of their session.
  const chats = new ChatRegistry();
  const host = new AgentHost(def, {
    cwd,
    clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' },
    ports: { permission: { requestPermission: (params, signal) => chats.routePermission(params, signal) } },
  });
  track(host);
  // The runner's --permissions decider: nobody is there to ask in either run.
  const chat = new ChatSession({ host, cwd, consent: { allow: () => Promise.resolve(true) }, t: formatMessage, decider: new HeadlessPermissions(s.permissions, cwd) });
  track(chat);
  chats.add(chat);
  assert.equal(await chat.ensureStarted(), true);
  const before = chat.controller.state.entries.length;
  const pending = chat.submit([{ type: 'text', text: s.prompt }]);
  if (s.cancelAt !== undefined) {
    const mark = s.cancelAt;
    await until(`"${mark}" streamed`, () => chat.controller.state.entries.some((e) => e.kind === 'assistant' && e.parts.some((p) => p.kind === 'text' && p.text.includes(mark))));
    await chat.cancel();
  }
  const result = await pending;
  assert.ok(result !== undefined, 'the turn ran');
  const stopReason = result.kind === 'ended' ? result.stopReason : null;
  return chatSteps(chat, chat.controller.state.entries.slice(before), stopReason, s.cut ?? whole);
}

suite('one turn, two surfaces: the runner and a headless chat produce the same event stream', function () {
  this.timeout(60_000);
  const owned: { dispose(): unknown }[] = [];
  let cwd = '';
  setup(() => {
    cwd = tempDir('hermes-same-turn-');
  });
  teardown(async () => {
    killLeftovers();
    for (const d of owned.splice(0).reverse()) {
      await d.dispose();
    }
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  for (const s of scenarios) {
    test(s.name, async () => {
      const viaRunner = await throughRunner(s, cwd);
      const viaChat = await throughChat(s, cwd, (d) => owned.push(d));
      assert.ok(viaRunner.length > 1, `the runner's turn produced steps: ${JSON.stringify(viaRunner)}`);
      assert.deepEqual(viaChat, viaRunner);
    });
  }

  test('the scenarios are told apart: each stream is its own', async () => {
    const [plainScenario, toolScenario] = scenarios;
    assert.ok(plainScenario !== undefined && toolScenario !== undefined);
    const plain = await throughRunner(plainScenario, cwd);
    const tool = await throughRunner(toolScenario, cwd);
    assert.notDeepEqual(plain, tool);
    assert.deepEqual(tool.map((s) => s.kind), ['tool_start', 'permission', 'tool_end', 'text', 'result']);
  });
});
