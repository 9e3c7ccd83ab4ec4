/**
 * Scenarios for a client that keeps sessions across runs and masks what it injected (issue 41):
 * `[recall]` proves the session's history is there (the earlier prompts, from the stored turns,
 * so also after a new process resumed it), `[echo-secrets]` echoes every value the agent was given
 * — the MCP servers' header and environment values of its session setup, and the environment
 * variables named in `env=` — in every field an update can carry, and on stderr.
 */
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { log } from './agentLog';
import { strArg, type Marker } from './markers';
import type { Turn } from './turn';

/** Values the client put in `mcpServers` (headers, env) of any session setup in this process. */
const setupValues = new Set<string>();

/** Called by the session setup handlers with the `mcpServers` they got. */
export function noteSetupValues(servers: unknown): void {
  if (!Array.isArray(servers)) {
    return;
  }
  for (const server of servers as unknown[]) {
    if (typeof server !== 'object' || server === null) {
      continue;
    }
    for (const key of ['headers', 'env'] as const) {
      const list = (server as Record<string, unknown>)[key];
      for (const item of Array.isArray(list) ? (list as unknown[]) : []) {
        const value = typeof item === 'object' && item !== null ? (item as { value?: unknown }).value : undefined;
        if (typeof value === 'string' && value !== '') {
          setupValues.add(value);
        }
      }
    }
  }
}

/** "This session has N earlier turns. Earlier prompts: 1) … 2) …" from the stored history. */
export async function recall(turn: Turn): Promise<void> {
  const earlier = turn.session.stored.turns.filter((t) => t !== turn.history);
  const prompts = earlier.map((t) => {
    const u = t.updates.find((x) => x.sessionUpdate === 'user_message_chunk');
    return u?.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' ? u.content.text.trim() : '';
  });
  const list = prompts.map((p, i) => `${(i + 1).toString()}) ${p}`).join(' ');
  await turn.say(`This session has ${earlier.length.toString()} earlier turns.${prompts.length > 0 ? ` Earlier prompts: ${list}` : ''}`, 100);
}

/**
 * What this prompt carried, block by block (a hand-off's brief, issue 40): "Received N block(s):"
 * then one line per block — `text, C chars` or `resource URI MIME, C chars` — and each resource's
 * text in a fenced block, so a client test can read what the agent was given.
 */
export async function received(turn: Turn): Promise<void> {
  const blocks = turn.history.updates.flatMap((u) => (u.sessionUpdate === 'user_message_chunk' ? [u.content] : []));
  const lines = blocks.map((b) => {
    if (b.type === 'resource' && 'text' in b.resource) {
      return `- resource ${b.resource.uri} ${b.resource.mimeType ?? '(no type)'}, ${b.resource.text.length.toString()} chars`;
    }
    return b.type === 'text' ? `- text, ${b.text.length.toString()} chars` : `- ${b.type}`;
  });
  const bodies = blocks.flatMap((b) => (b.type === 'resource' && 'text' in b.resource ? ['', '~~~~markdown', b.resource.text, '~~~~'] : []));
  await turn.say([`Received ${blocks.length.toString()} block(s):`, ...lines, ...bodies].join('\n'), 400);
}

function text(t: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: t } };
}

/** Every value given to the agent, echoed in text, thought, a tool call (title, input, content, location, output), a permission request, a plan, the title and stderr. */
export async function echoSecrets(turn: Turn, marker: Marker): Promise<void> {
  const names = strArg(marker, 'env', '').split(',').map((n) => n.trim()).filter((n) => n !== '');
  const values = [...setupValues, ...names.map((n) => process.env[n] ?? '').filter((v) => v !== '')];
  log(`echo-secrets: echoing ${values.length.toString()} values: ${values.join(' | ')}`);
  for (const v of values) {
    await turn.stream('agent_thought_chunk', [`I was given ${v} and will use it.`]);
    // Split across two chunks, as a model's tokens may split it: a client masking per chunk would miss it.
    const half = Math.floor(v.length / 2);
    await turn.stream('agent_message_chunk', [`The value is ${v.slice(0, half)}`, `${v.slice(half)}; keep it safe. `]);
    const toolCallId = turn.newToolCallId();
    await turn.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: `curl -H "Authorization: Bearer ${v}" https://api.example`,
      kind: 'execute',
      status: 'pending',
      rawInput: { command: `curl -H "Authorization: Bearer ${v}" https://api.example`, env: { TOKEN: v }, list: [v, { deep: v }] },
      content: [text(`$ echo ${v}`)],
      locations: [{ path: `/tmp/${v}/file.txt` }],
    });
    await turn.requestPermission(
      { toolCallId, title: `Run with ${v}?`, kind: 'execute', rawInput: { command: `echo ${v}` }, content: [text(`$ echo ${v}`)] },
      [
        { optionId: 'allow', name: `Allow ${v}`, kind: 'allow_once' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ],
    );
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'failed',
      content: [text(`output: ${v}`)],
      rawOutput: { stdout: v, stderr: `error near ${v}` },
    });
    await turn.send({ sessionUpdate: 'plan', entries: [{ content: `Rotate ${v}`, priority: 'high', status: 'pending' }] });
    turn.session.stored.title = `Session about ${v}`;
  }
  const title = turn.session.stored.title;
  if (values.length > 0 && title !== null) {
    turn.afterResponse.push(async () => {
      await turn.client.notify('session/update', { sessionId: turn.sessionId, update: { sessionUpdate: 'session_info_update', title, updatedAt: new Date().toISOString() } });
    });
  }
  await turn.say('Ordinary text stays as it is: deploy the backend, token budget 1234, see README.md.', 100);
}
