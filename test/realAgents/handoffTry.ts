/**
 * A hand-off (issue 40) between a real npm agent and the scripted test agent, both ways, on the
 * chat layer, with the agent aimed at the rig's scripted model server:
 *   node out/test/realAgents/handoffTry.js --agent claude [--modules DIR] [--out DIR]
 * 1. the real agent answers a prompt (`RIG-OK: …` from the model), then hands off to the scripted
 *    agent, whose `[received]` reply shows what it got (embedded resource or text);
 * 2. the scripted agent hands off to the real agent, whose model request (saved under --out) must
 *    carry the brief. Prints one JSON line of findings; exit 1 when a check fails.
 * Not part of `npm test` (it needs the agents installed; see README.md here).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { handoffChat } from '../../src/app/handoffChat';
import type { AgentDefinition } from '../../src/host/agentHost';
import { formatMessage } from '../../src/util/l10n';
import { HeadlessChats, lastReplyText } from '../support/headlessChats';
import { scriptedAgentPath } from '../support/paths';
import { agentProfiles } from './agentProfiles';
import { defaultTarget, startModelServer } from './modelServer';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function main(): Promise<number> {
  const agentId = arg('--agent', 'claude');
  const modules = path.resolve(arg('--modules', '/work/agents-rig/node_modules'));
  const out = path.resolve(arg('--out', fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-handoff-'))));
  const profile = agentProfiles.find((p) => p.id === agentId);
  if (profile === undefined) {
    console.error(`unknown agent ${agentId}; one of ${agentProfiles.map((p) => p.id).join(', ')}`);
    return 2;
  }
  const cwd = path.join(out, 'ws');
  const home = path.join(out, 'home');
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const bodies = path.join(out, 'bodies');
  const server = await startModelServer({ scenario: 'text', target: defaultTarget(cwd), bodiesDir: bodies, logFile: path.join(out, 'model.jsonl') });
  const launch = profile.prepare({ origin: server.origin, home, cwd, modules });
  const real: AgentDefinition = { id: profile.id, name: profile.label, command: launch.command, args: [...launch.args], env: { ...launch.env, HOME: home } };
  const scripted: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: { SCRIPTED_AGENT_CHUNK_DELAY_MS: '0' } };
  const chats = new HeadlessChats('hermes-acp-handoff-try');
  const newChat = chats.open;
  const findings: Record<string, unknown> = { agent: profile.label, out };
  let ok = true;
  try {
    // 1. The real agent → the scripted agent.
    const source = newChat(real, cwd);
    const first = await source.submit([{ type: 'text', text: 'Say the rig greeting.' }]);
    findings.sourceTurn = first?.kind;
    findings.sourceReply = lastReplyText(source).slice(0, 120);
    findings.sourceNotices = source.controller.state.entries.flatMap((e) => (e.kind === 'notice' ? [`${e.title} ${e.detail ?? ''} ${e.log ?? ''}`.slice(0, 400)] : []));
    const one = await handoffChat({ source, target: scripted, summary: false, newChat, t: formatMessage });
    await one.chat.submit([{ type: 'text', text: '[received]' }]);
    const received = lastReplyText(one.chat);
    findings.toScripted = { as: one.as, turns: one.brief.turns, receivedHead: received.split('\n').slice(0, 3), carriesReply: received.includes('RIG-OK') };
    ok &&= received.includes('RIG-OK') && received.includes('Say the rig greeting.');

    // 2. The scripted agent → the real agent: the brief must reach its model.
    const back = newChat(scripted, cwd);
    await back.submit([{ type: 'text', text: 'Remember the word PELICAN-42' }]);
    const two = await handoffChat({ source: back, target: real, summary: false, newChat, t: formatMessage });
    const before = fs.existsSync(bodies) ? fs.readdirSync(bodies).length : 0;
    const turn = await two.chat.submit([{ type: 'text', text: 'Continue.' }]);
    const after = fs.existsSync(bodies) ? fs.readdirSync(bodies).sort() : [];
    const sent = after.slice(before).map((f) => fs.readFileSync(path.join(bodies, f), 'utf8'));
    const reached = sent.some((b) => b.includes('PELICAN-42') && b.includes('You are taking over a conversation'));
    findings.toReal = { as: two.as, budgetChars: two.budgetChars, turn: turn?.kind, reply: lastReplyText(two.chat).slice(0, 120), modelRequests: sent.length, briefReachedModel: reached };
    ok &&= reached;
  } catch (e) {
    findings.error = String(e);
    ok = false;
  } finally {
    await chats.dispose();
    await server.close();
  }
  console.log(JSON.stringify({ ok, ...findings }));
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
