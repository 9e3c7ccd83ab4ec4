/**
 * Issue 17 — sign-in from the chat: ChatSession + SignIn on a real scripted agent that answers
 * session setup `auth_required` (SCRIPTED_AGENT_AUTH=required) until signed in, one test per
 * method type (agent, env var with a wrong and a right value, terminal) and an `authenticate`
 * that fails once. The prompts port stands in for VS Code's input box and terminal only: the
 * agent, its process restarts and the wire are real.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import { ChatSession } from '../../../src/app/chatSession';
import { memorySecrets, signInSecretKey, type SecretStore, type SignInPorts } from '../../../src/app/signIn';
import type { SignInMethod } from '../../../src/acp/authMethods';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { scriptedAgentPath } from '../../support/paths';

function scripted(env: Record<string, string>): AgentDefinition {
  return { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: { SCRIPTED_AGENT_AUTH: 'required', ...env } };
}

const sent = (host: AgentHost): string[] => host.log.snapshot().flatMap((e) => (e.dir === 'out' && e.kind === 'request' && e.method !== undefined ? [e.method] : []));
const logText = (host: AgentHost): string => host.log.snapshot().map((e) => `${e.text ?? ''} ${e.note ?? ''}`).join('\n');

interface Prompts {
  readonly asked: string[];
  readonly terminals: SignInMethod[];
}

/** Answers the secret prompts in order; runs terminal methods for real (the agent's command + args). */
function ports(secrets: SecretStore, answers: (string | undefined)[], prompts: Prompts): SignInPorts {
  return {
    secrets,
    prompts: {
      askSecret: (q) => {
        prompts.asked.push(q.varName);
        return Promise.resolve(answers.shift());
      },
      runTerminal: (def, method) => {
        prompts.terminals.push(method);
        return new Promise((resolve) => {
          execFile(def.command, [...def.args, ...(method.args ?? [])], { env: { ...process.env, ...def.env } }, (error) => resolve(error === null));
        });
      },
    },
  };
}

suite('issue 17: sign-in card with a real scripted agent (agent, env var, terminal, failing authenticate)', function () {
  this.timeout(60_000);
  const ws = tempWorkspace('hermes-signin-');
  const hosts: AgentHost[] = [];
  const chats: ChatSession[] = [];

  function chatFor(def: AgentDefinition, signIn?: SignInPorts): { chat: ChatSession; host: AgentHost } {
    const host = new AgentHost(def, { cwd: ws, clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' }, ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } } });
    const chat = new ChatSession({ host, cwd: ws, consent: { allow: () => Promise.resolve(true) }, t: formatMessage, ...(signIn !== undefined ? { signIn } : {}) });
    hosts.push(host);
    chats.push(chat);
    return { chat, host };
  }

  teardown(async () => {
    for (const c of chats.splice(0)) {
      c.dispose();
    }
    await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  });
  suiteTeardown(() => fs.rmSync(ws, { recursive: true, force: true }));

  test('auth_required on session/new shows the card with every method (name, description, type), not an error notice', async () => {
    const { chat } = chatFor(scripted({}));
    assert.equal(await chat.ensureStarted(), false);
    const card = chat.signIn.card;
    assert.ok(card !== undefined, 'the card is shown');
    assert.equal(card.agentName, 'Scripted');
    assert.deepEqual(
      card.methods.map((m) => [m.id, m.type]),
      [
        ['scripted-login', 'agent'],
        ['scripted-setup', 'terminal'],
        ['scripted-api-key', 'env_var'],
      ],
    );
    assert.equal(card.methods[0]?.name, 'Log in with the stored scripted credentials');
    assert.equal(card.methods[0]?.description, 'The agent signs in by itself.');
    assert.equal(chat.controller.state.entries.filter((e) => e.kind === 'notice' && e.level === 'error').length, 0, 'no error notice besides the card');
  });

  test('agent method: authenticate(methodId), then session/new again; the card goes', async () => {
    const { chat, host } = chatFor(scripted({}));
    await chat.ensureStarted();
    await chat.signIn.choose('scripted-login');
    assert.equal(chat.signIn.card, undefined);
    assert.ok(chat.sessionId !== undefined, 'the session started');
    assert.deepEqual(sent(host), ['initialize', 'session/new', 'authenticate', 'session/new']);
    const auth = host.log.snapshot().find((e) => e.dir === 'out' && e.method === 'authenticate');
    assert.match(auth?.text ?? '', /"methodId":"scripted-login"/);
  });

  test('authenticate fails: a clear error on the card; choosing again signs in', async () => {
    const { chat } = chatFor(scripted({ SCRIPTED_AGENT_AUTH_FAIL: 'scripted-login:1' }));
    await chat.ensureStarted();
    await chat.signIn.choose('scripted-login');
    const error = chat.signIn.card?.error ?? '';
    assert.match(error, /^Signing in with “Log in with the stored scripted credentials” failed: /);
    assert.match(error, /Login failed: the scripted credentials have expired\./);
    assert.equal(chat.signIn.card?.busy, undefined, 'the buttons work again');
    await chat.signIn.choose('scripted-login');
    assert.equal(chat.signIn.card, undefined);
    assert.ok(chat.sessionId !== undefined);
  });

  test('env var: asked once (masked prompt port), a wrong value is refused, forgotten and said; the right one restarts the agent with it and is kept', async () => {
    const secrets = memorySecrets();
    const prompts: Prompts = { asked: [], terminals: [] };
    const { chat, host } = chatFor(scripted({}), ports(secrets, ['sk-wrong', 'sk-scripted'], prompts));
    await chat.ensureStarted();
    const pidBefore = host.pid;
    await chat.signIn.choose('scripted-api-key');
    assert.equal(chat.sessionId, undefined, 'the wrong value does not sign in');
    assert.equal(chat.signIn.card?.error, 'Scripted did not accept the value of SCRIPTED_API_KEY. Choose “Use SCRIPTED_API_KEY” to enter it again.');
    assert.equal(await secrets.get(signInSecretKey('scripted', 'scripted-api-key')), undefined, 'the refused value is forgotten');
    assert.notEqual(host.pid, pidBefore, 'the agent was restarted with the variable');

    await chat.signIn.choose('scripted-api-key');
    assert.ok(chat.sessionId !== undefined, 'the right value signs in');
    assert.equal(chat.signIn.card, undefined);
    assert.deepEqual(prompts.asked, ['SCRIPTED_API_KEY', 'SCRIPTED_API_KEY']);
    assert.equal(await secrets.get(signInSecretKey('scripted', 'scripted-api-key')), 'sk-scripted');
    assert.ok(!logText(host).includes('sk-scripted') && !logText(host).includes('sk-wrong'), 'no value in the traffic log');
    assert.ok(!sent(host).includes('authenticate'), 'env-var methods are not sent to authenticate');

    // Another window (a new host, the same secret store): the kept value is used without asking.
    const again = chatFor(scripted({}), ports(secrets, [], prompts));
    assert.equal(await again.chat.ensureStarted(), true);
    assert.equal(again.chat.signIn.card, undefined);
    assert.deepEqual(prompts.asked, ['SCRIPTED_API_KEY', 'SCRIPTED_API_KEY'], 'not asked again');
  });

  test('env var: dismissing the prompt leaves the card as it was', async () => {
    const prompts: Prompts = { asked: [], terminals: [] };
    const { chat } = chatFor(scripted({}), ports(memorySecrets(), [undefined], prompts));
    await chat.ensureStarted();
    await chat.signIn.choose('scripted-api-key');
    assert.deepEqual(prompts.asked, ['SCRIPTED_API_KEY']);
    assert.ok(chat.signIn.card !== undefined);
    assert.equal(chat.signIn.card.error, undefined);
    assert.equal(chat.signIn.card.busy, undefined);
  });

  test('terminal method: run with its args, then the agent restarts and session/new is retried', async () => {
    const authFile = path.join(ws, `auth-${Date.now()}.txt`);
    const prompts: Prompts = { asked: [], terminals: [] };
    const { chat, host } = chatFor(scripted({ SCRIPTED_AGENT_AUTH_FILE: authFile }), ports(memorySecrets(), [], prompts));
    await chat.ensureStarted();
    await chat.signIn.choose('scripted-setup');
    assert.deepEqual(prompts.terminals.map((m) => m.args), [['--setup']]);
    assert.ok(fs.existsSync(authFile), 'the terminal method ran');
    assert.ok(chat.sessionId !== undefined, 'signed in after the restart');
    assert.equal(chat.signIn.card, undefined);
    assert.deepEqual(sent(host).filter((m) => m === 'session/new').length, 2);
  });

  test('auth_required on session/load (history): the card, and the load is what is retried', async () => {
    const state = path.join(ws, `state-${Date.now()}.json`);
    const first = chatFor(scripted({ SCRIPTED_AGENT_AUTH: 'none', SCRIPTED_AGENT_STATE_FILE: state }));
    assert.equal(await first.chat.ensureStarted(), true);
    await first.chat.submit([{ type: 'text', text: 'hello before sign-in' }]);
    const id = first.chat.sessionId ?? '';
    const { chat, host } = chatFor(scripted({ SCRIPTED_AGENT_STATE_FILE: state }));
    assert.equal(await chat.open(id), false);
    assert.ok(chat.signIn.card !== undefined);
    assert.equal(chat.readOnly, false, 'not read-only: signing in continues it');
    await chat.signIn.choose('scripted-login');
    assert.equal(chat.sessionId, id);
    assert.deepEqual(sent(host), ['initialize', 'session/load', 'authenticate', 'session/load']);
    assert.ok(chat.controller.state.entries.some((e) => e.kind === 'user'), 'the history was replayed');
  });
});
