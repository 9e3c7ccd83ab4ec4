/**
 * Agent shapes a headless client must read right (reference/agents-in-the-wild.md, issue 18):
 * tokens only in `_meta` (Qwen Code, Gemini CLI), arguments that arrive after the call (Claude),
 * edits and commands without a permission request (pi, auto modes), a turn with no output at all,
 * "Retrying…"-only replies (pi after a 429), a daemon that leaves the process group (Cline's hub),
 * and a `rawInput` too deep for other JSON readers.
 */
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { log } from './agentLog';
import { boolArg, intArg, strArg, type Marker } from './markers';
import type { Turn } from './turn';

function text(t: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: t } };
}

/**
 * `form=qwen`: one empty `agent_message_chunk` per model call carrying `_meta.usage` (ACP usage
 * names), and no `usage` in the response; `form=gemini`: only the response's
 * `_meta.quota.token_count`; `form=none`: no token counts anywhere (pi, Cline, Codex).
 * `calls` model calls of `input`/`output` tokens each.
 */
export async function metaUsage(turn: Turn, marker: Marker): Promise<void> {
  const input = intArg(marker, 'input', 1200);
  const output = intArg(marker, 'output', 80);
  const calls = intArg(marker, 'calls', 2, 1, 20);
  const form = strArg(marker, 'form', 'qwen');
  await turn.say(form === 'none' ? 'No token counts for this turn.' : 'Tokens for this turn are reported in _meta only.');
  if (form === 'none') {
    turn.responseUsage = 'none';
    return;
  }
  if (form === 'gemini') {
    turn.responseUsage = { quota: { input_tokens: input * calls, output_tokens: output * calls } };
    return;
  }
  turn.responseUsage = 'none';
  for (let i = 0; i < calls; i++) {
    await turn.send({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: '' },
      _meta: { usage: { inputTokens: input, outputTokens: output, totalTokens: input + output, cachedReadTokens: 10 }, durationMs: 5 },
    });
  }
}

/**
 * Claude's streamed call: `tool_call` pending with `rawInput: {}` and a generic title; the
 * arguments and the real title in a later update; `ask=yes` then asks about the SAME call id.
 */
export async function lateInput(turn: Turn, marker: Marker): Promise<void> {
  const path = turn.resolvePath(strArg(marker, 'path', 'late.txt'));
  const content = strArg(marker, 'text', 'written after the arguments arrived\n');
  const toolCallId = `toolu_${turn.newToolCallId().slice(3)}`;
  const meta = { toolName: 'write_file' };
  await turn.send({ sessionUpdate: 'tool_call', toolCallId, title: 'Write', kind: 'edit', status: 'pending', rawInput: {}, content: [], locations: [], _meta: meta });
  await turn.sleep(turn.chunkDelayMs);
  const rawInput = { file_path: path, content };
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, title: `Write ${path}`, rawInput, locations: [{ path }], _meta: meta });
  if (boolArg(marker, 'ask')) {
    const answer = await turn.requestPermission(
      { toolCallId, title: `Write ${path}`, kind: 'edit', status: 'pending', rawInput, _meta: meta },
      [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    );
    if (answer.outcome !== 'selected' || answer.optionId !== 'allow') {
      await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text('The user rejected the write.')] });
      await turn.say('The write was rejected.');
      return;
    }
  }
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
  writeQuietly(path, content);
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text(`Wrote ${path}`)] });
  await turn.say('Done writing.');
}

/** pi: edits a file without any permission request (its "modes" are thinking levels). */
export async function silentEdit(turn: Turn, marker: Marker): Promise<void> {
  const path = turn.resolvePath(strArg(marker, 'path', 'silent.txt'));
  const content = strArg(marker, 'text', 'edited without asking\n');
  const toolCallId = turn.newToolCallId();
  await turn.send({ sessionUpdate: 'tool_call', toolCallId, title: 'write', kind: 'edit', status: 'in_progress', rawInput: { path, content }, locations: [{ path }] });
  writeQuietly(path, content);
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [{ type: 'diff', path, newText: content }] });
  await turn.say(`Wrote ${path} without asking.`);
}

/**
 * A `delete` tool call (Hermes' and Claude's kind) on `path`: with `ask=yes` a permission request
 * first (allow_once / reject_once), and the file is deleted only when allowed; without, at once.
 */
export async function deleteFile(turn: Turn, marker: Marker): Promise<void> {
  const path = turn.resolvePath(strArg(marker, 'path', 'old.txt'));
  const toolCallId = turn.newToolCallId();
  const rawInput = { path };
  await turn.send({ sessionUpdate: 'tool_call', toolCallId, title: `Delete ${path}`, kind: 'delete', status: 'pending', rawInput, locations: [{ path }] });
  if (boolArg(marker, 'ask')) {
    const answer = await turn.requestPermission({ toolCallId, title: `Delete ${path}`, kind: 'delete', status: 'pending', rawInput, locations: [{ path }] }, [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ]);
    if (answer.outcome !== 'selected' || answer.optionId !== 'allow') {
      await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text('The user rejected the delete.')] });
      await turn.say('The delete was rejected.');
      return;
    }
  }
  rmSync(path, { force: true });
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text(`Deleted ${path}`)] });
  await turn.say(`Deleted ${path}.`);
}

/** pi's bash: runs a command (simulated) without any permission request. */
export async function silentCommand(turn: Turn, marker: Marker): Promise<void> {
  const cmd = strArg(marker, 'cmd', 'rm -rf build');
  const toolCallId = turn.newToolCallId();
  await turn.send({ sessionUpdate: 'tool_call', toolCallId, title: cmd, kind: 'execute', status: 'in_progress', rawInput: { command: cmd } });
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text(`$ ${cmd}\n(simulated: not executed)`)] });
  await turn.say(`Ran ${cmd} without asking.`);
}

/** A turn that produces nothing at all and ends `end_turn` (Claude after a cancel, Cline after a 429). */
export async function empty(): Promise<void> {
  // Deliberately nothing.
}

/** pi after a provider 429: "Retrying (attempt n/N, waiting Ns)..." notices only; `cause` goes to stderr. */
export async function retrying(turn: Turn, marker: Marker): Promise<void> {
  const n = intArg(marker, 'n', 3, 1, 10);
  const cause = marker.args.get('cause');
  const messageId = turn.newMessageId();
  for (let i = 1; i <= n; i++) {
    if (cause !== undefined) {
      log(`model call failed: ${cause}`);
    }
    await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: `Retrying (attempt ${i}/${n}, waiting ${i}s)...` } });
    await turn.sleep(turn.chunkDelayMs);
  }
}

/**
 * Cline's hub: a child that calls `setsid` (Node's `detached`) and so leaves the agent's process
 * group, outliving a group kill. Its pid is logged: `daemon pid <n> started in its own session`.
 */
export async function spawnDaemon(turn: Turn): Promise<void> {
  const child = spawn(process.execPath, ['-e', 'process.title = "scripted-daemon"; setInterval(() => {}, 1000);'], { detached: true, stdio: 'ignore' });
  child.unref();
  log(`daemon pid ${child.pid ?? -1} started in its own session`);
  await turn.say('Started a background daemon that outlives my process group.');
}

/** A call whose `rawInput` is nested `depth` levels deep and whose output is `kb` KB. */
export async function deepInput(turn: Turn, marker: Marker): Promise<void> {
  const depth = intArg(marker, 'depth', 1000, 1, 100_000);
  let rawInput: unknown = { leaf: 'x'.repeat(intArg(marker, 'leaf', 10, 0, 1_000_000)) };
  for (let i = 0; i < depth; i++) {
    rawInput = { nested: rawInput };
  }
  const toolCallId = turn.newToolCallId();
  await turn.send({ sessionUpdate: 'tool_call', toolCallId, title: 'deep: nested arguments', kind: 'other', status: 'in_progress', rawInput });
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text('y'.repeat(intArg(marker, 'kb', 8, 0, 10_000) * 1024))] });
  await turn.say('Handled the deep arguments.');
}

function writeQuietly(path: string, content: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  } catch (err) {
    log(`write ${path} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
