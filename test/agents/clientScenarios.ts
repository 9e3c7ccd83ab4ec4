/**
 * Scenarios that call the client's capabilities: `fs/read_text_file`, `fs/write_text_file`,
 * `terminal/*`, and Zed's `_meta` terminal convention (which needs no capability at all).
 *
 * Hermes 0.19 never calls `fs/*`; newer Hermes routes its file tools through the client when
 * `fs.*` is advertised (Hermes 0.20+ `acp_adapter/`) and reports client errors back as text, which
 * is what `[write]` and `[read]` imitate.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { TerminalOutputRequest, ToolCallContent } from '@agentclientprotocol/sdk';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { log } from './agentLog';
import { intArg, strArg, type Marker } from './markers';
import { TurnCancelled, type Turn } from './turn';

function text(t: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: t } };
}

/** The client's error as a user would read it: message, code and any `data`. */
export function describeError(err: unknown): string {
  if (err instanceof RequestError) {
    const data = err.data === undefined ? '' : ` ${JSON.stringify(err.data)}`;
    return `${err.message} (code ${err.code})${data}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** A code fence longer than any backtick run inside `content`. */
function fence(content: string, lang = ''): string {
  const longest = Math.max(2, ...(content.match(/`+/g) ?? []).map((r) => r.length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${content}${content.endsWith('\n') ? '' : '\n'}${f}`;
}

export async function write(turn: Turn, marker: Marker): Promise<void> {
  const absPath = turn.resolvePath(strArg(marker, 'path', 'scripted-write.txt'));
  const newText = marker.args.get('text') ?? 'written by the scripted agent\n';
  const fs = turn.runtime.clientCapabilities.fs;
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `write: ${absPath}`,
    kind: 'edit',
    status: 'in_progress',
    locations: [{ path: absPath }],
    rawInput: { path: absPath, content: newText },
  });

  const notes: string[] = [];
  let oldText: string | undefined;
  if (fs?.readTextFile === true) {
    try {
      const r = await turn.client.request('fs/read_text_file', { sessionId: turn.sessionId, path: absPath });
      oldText = r.content;
      notes.push(`read ${r.content.length} characters via fs/read_text_file`);
    } catch (err) {
      notes.push(`fs/read_text_file failed: ${describeError(err)}`);
    }
  } else {
    notes.push('the client did not advertise fs.readTextFile');
  }

  let error: string | undefined;
  if (fs?.writeTextFile === true) {
    try {
      await turn.client.request('fs/write_text_file', { sessionId: turn.sessionId, path: absPath, content: newText });
      notes.push(`wrote ${newText.length} characters via fs/write_text_file`);
    } catch (err) {
      error = `fs/write_text_file failed: ${describeError(err)}`;
      notes.push(error);
    }
  } else {
    try {
      mkdirSync(dirname(absPath), { recursive: true });
      writeFileSync(absPath, newText);
      notes.push('the client did not advertise fs.writeTextFile, so I wrote the file to disk myself');
    } catch (err) {
      error = `writing to disk failed: ${describeError(err)}`;
      notes.push(error);
    }
  }
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: error === undefined ? 'completed' : 'failed',
    content: [error === undefined ? { type: 'diff', path: absPath, oldText: oldText ?? null, newText } : text(error)],
  });
  await turn.say(`Write ${absPath}: ${notes.join('; ')}.`);
}

export async function read(turn: Turn, marker: Marker): Promise<void> {
  const absPath = turn.resolvePath(strArg(marker, 'path', 'README.md'));
  const line = marker.args.has('line') ? intArg(marker, 'line', 1, 1) : undefined;
  const limit = marker.args.has('limit') ? intArg(marker, 'limit', 1, 0) : undefined;
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `read: ${absPath}`,
    kind: 'read',
    status: 'in_progress',
    locations: [line === undefined ? { path: absPath } : { path: absPath, line }],
  });
  let content: string;
  let source: string;
  try {
    if (turn.runtime.clientCapabilities.fs?.readTextFile === true) {
      const r = await turn.client.request('fs/read_text_file', {
        sessionId: turn.sessionId,
        path: absPath,
        ...(line === undefined ? {} : { line }),
        ...(limit === undefined ? {} : { limit }),
      });
      content = r.content;
      source = 'via fs/read_text_file';
    } else {
      const all = readFileSync(absPath, 'utf8').split('\n');
      const from = (line ?? 1) - 1;
      content = all.slice(from, limit === undefined ? undefined : from + limit).join('\n');
      source = 'from disk (the client did not advertise fs.readTextFile)';
    }
  } catch (err) {
    const message = describeError(err);
    await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text(message)] });
    await turn.say(`Reading ${absPath} failed: ${message}`);
    return;
  }
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text(fence(content))] });
  await turn.say(`Contents of ${absPath} ${source}:\n\n${fence(content)}\n`, 8);
}

/** Runs `sh -c <cmd>` in a client terminal, embedded in a tool call (ACP terminals.mdx). */
export async function terminal(turn: Turn, marker: Marker): Promise<void> {
  const cmd = strArg(marker, 'cmd', 'echo hello from the terminal');
  if (turn.runtime.clientCapabilities.terminal !== true) {
    await turn.say(`The client did not advertise the terminal capability, so \`${cmd}\` was not run.`);
    return;
  }
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `terminal: ${cmd}`,
    kind: 'execute',
    status: 'pending',
    rawInput: { command: cmd },
  });
  let terminalId: string;
  try {
    const created = await turn.client.request('terminal/create', {
      sessionId: turn.sessionId,
      command: 'sh',
      args: ['-c', cmd],
      cwd: turn.cwd,
      outputByteLimit: 1_000_000,
    });
    terminalId = created.terminalId;
  } catch (err) {
    const message = describeError(err);
    await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text(`terminal/create failed: ${message}`)] });
    await turn.say(`Could not create a terminal: ${message}`);
    return;
  }
  // ACP: the terminal must be embedded in a tool call before it is released.
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
  const ids: TerminalOutputRequest = { sessionId: turn.sessionId, terminalId };
  try {
    for (;;) {
      const out = await turn.client.request('terminal/output', ids);
      if (out.exitStatus != null) {
        break;
      }
      await turn.sleep(100);
    }
    const exit = await turn.client.request('terminal/wait_for_exit', ids);
    const final = await turn.client.request('terminal/output', ids);
    await turn.client.request('terminal/release', ids);
    const ok = exit.exitCode === 0;
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: ok ? 'completed' : 'failed',
      content: [{ type: 'terminal', terminalId }],
      rawOutput: { exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, output: final.output, truncated: final.truncated },
    });
    await turn.say(
      exit.exitCode != null ? `The command exited with code ${exit.exitCode}.` : `The command was ended by signal ${exit.signal ?? 'unknown'}.`,
    );
  } catch (err) {
    if (err instanceof TurnCancelled) {
      log(`terminal ${terminalId}: turn cancelled, killing and releasing`);
      void turn.client
        .request('terminal/kill', ids)
        .then(() => turn.client.request('terminal/release', ids))
        .catch((e: unknown) => log(`terminal ${terminalId} cleanup failed: ${describeError(e)}`));
      throw err;
    }
    const message = describeError(err);
    await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [text(message)] });
    await turn.say(`The terminal failed: ${message}`);
  }
}

/**
 * Zed's `_meta` terminal convention (used by Claude Agent ACP and pi-acp): the tool call embeds a
 * terminal id equal to its own id, a terminal the client never created; output arrives in
 * `_meta.terminal_output`, the end in `_meta.terminal_exit`. Not part of the ACP schema.
 */
export async function metaTerminal(turn: Turn, marker: Marker): Promise<void> {
  const cmd = strArg(marker, 'cmd', 'npm test --color');
  const toolCallId = turn.newToolCallId();
  const terminalContent: ToolCallContent = { type: 'terminal', terminalId: toolCallId };
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: cmd,
    kind: 'execute',
    status: 'pending',
    rawInput: { command: cmd },
    content: [terminalContent],
    _meta: { terminal_info: { terminal_id: toolCallId, cwd: turn.cwd } },
  });
  const output = [
    `\u001b[1m> ${cmd}\u001b[0m\r\n`,
    '\u001b[32m  ✔ parses markers\u001b[0m\r\n',
    '\u001b[32m  ✔ streams chunks\u001b[0m\r\n',
    '\u001b[33m  - skipped: network\u001b[0m\r\n',
    '\r\n\u001b[1;32m2 passing\u001b[0m \u001b[36m(12ms)\u001b[0m\r\n',
  ];
  for (const data of output) {
    await turn.sleep(turn.chunkDelayMs * 4);
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      _meta: { terminal_output: { terminal_id: toolCallId, data } },
    });
  }
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: 'completed',
    rawOutput: output.join(''),
    content: [terminalContent],
    _meta: { terminal_exit: { terminal_id: toolCallId, exit_code: 0, signal: null } },
  });
  await turn.say('The command finished with exit code 0.');
}
