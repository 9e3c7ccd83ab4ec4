import * as assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { AcpClient } from '../../../src/acp/acpConnection';
import type { FileSystemPort } from '../../../src/agentPort/clientPorts';
import type { AgentExitedError } from '../../../src/agentPort/agentErrors';
import { TrafficLog } from '../../../src/wire/trafficLog';
import type { Entry } from '../../../src/session/sessionState';
import { scriptedAgentCommand, startStack, tempWorkspace, type AgentStack } from '../../support/agentStack';

function replyText(entries: readonly Entry[]): string {
  return entries
    .flatMap((e) => (e.kind === 'assistant' ? e.parts : []))
    .map((p) => (p.kind === 'block' ? '' : p.text))
    .join('');
}

/** A file system port as a careless one might be written: straight to Node, errors as they come. */
const rawFs: FileSystemPort = {
  readTextFile: async (params) => ({ content: await readFile(params.path, 'utf8') }),
  writeTextFile: async (params) => {
    await writeFile(params.path, params.content);
    return {};
  },
};

suite('error codes of the answers to agent requests (ACP: -32602, -32601, -32002)', () => {
  let stack: AgentStack | undefined;
  teardown(async () => {
    await stack?.dispose();
    stack = undefined;
  });

  test('a file that is not there is -32002 resource not found even when the port throws a plain Node error; a file that is there is read', async () => {
    const cwd = tempWorkspace();
    await writeFile(path.join(cwd, 'present.txt'), 'present and readable\n');
    stack = await startStack(scriptedAgentCommand(cwd), { fs: rawFs });
    await stack.controller.start();
    await stack.controller.prompt([
      { type: 'text', text: `[read path=${path.join(cwd, 'missing.txt')}] [write path=${path.join(cwd, 'no-such-dir', 'x.txt')} text=x] [read path=present.txt]` },
    ]);
    const text = replyText(stack.controller.state.entries);
    assert.match(text, /ENOENT.*\(code -32002\)/);
    assert.doesNotMatch(text, /code -32603/);
    assert.match(text, /present and readable/);
    const errors = stack.log.snapshot().filter((e) => e.dir === 'out' && e.kind === 'error');
    assert.ok(errors.length >= 2, `${errors.length} errors`);
    for (const e of errors) {
      assert.match(e.text, /"code":-32002/);
    }
  });

  test('an in-process peer: unknown methods are -32601, params the schema rejects -32602, a vanished file -32002', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const exited = new Promise<AgentExitedError>(() => undefined);
    const answers = new Map<number, { error?: { code: number; message: string } }>();
    let buffered = '';
    stdin.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buffered.slice(0, nl)) as { id?: number; error?: { code: number; message: string } };
        buffered = buffered.slice(nl + 1);
        if (typeof msg.id === 'number') {
          answers.set(msg.id, msg);
        }
      }
    });
    const client = new AcpClient(
      { stdin, stdout, exited },
      { clientInfo: { name: 'test', version: '0' }, ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) }, fs: rawFs }, log: new TrafficLog() },
    );
    const requests: [number, string, unknown, number][] = [
      [1, 'craft/drainMidTurnQueue', {}, -32601], // Qwen's non-`_` extension request
      [2, 'terminal/create', { sessionId: 's', command: 'ls' }, -32601], // no terminal port: not advertised, not served
      [3, 'fs/read_text_file', { sessionId: 's', path: 42 }, -32602],
      [4, 'session/request_permission', { sessionId: 's', toolCall: { toolCallId: 't' }, options: 'allow' }, -32602],
      [5, 'fs/read_text_file', { sessionId: 's', path: path.join(tempWorkspace(), 'gone.txt') }, -32002],
    ];
    for (const [id, method, params] of requests) {
      stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    }
    const deadline = Date.now() + 5000;
    while (answers.size < requests.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(
      requests.map(([id, method]) => [method, answers.get(id)?.error?.code]),
      requests.map(([, method, , code]) => [method, code]),
    );
    client.dispose();
  });
});
