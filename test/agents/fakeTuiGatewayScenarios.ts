/**
 * What a turn of the fake TUI Gateway does, chosen by bracketed markers in the prompt text (like
 * the scripted ACP agent). Every turn: `message.start` (with the prompt as `input`), the scenario,
 * `message.complete` with `status` complete / interrupted / error.
 */
import { ask, newRowId, withdrawAll, type Answer, type FakeSession, type Frame } from './fakeTuiGatewayState';

const delayMs = Number(process.env.FAKE_GATEWAY_DELAY_MS ?? '5');

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(answer: Answer): string {
  if (answer === undefined) {
    return 'withdrawn';
  }
  return 'error' in answer ? `error ${answer.error}` : JSON.stringify(answer.result);
}

function resultField(answer: Answer, key: string): unknown {
  return answer !== undefined && 'result' in answer && typeof answer.result === 'object' && answer.result !== null ? (answer.result as Frame)[key] : undefined;
}

/** Runs one turn; resolves with its final text and status. */
export async function runTurn(session: FakeSession, text: string): Promise<{ text: string; status: string; error?: string }> {
  const turn = session.turn;
  if (turn === undefined) {
    throw new Error('no turn');
  }
  const say = async (chunk: string): Promise<void> => {
    turn.assistant += chunk;
    session.emit('message.delta', { text: chunk });
    await sleep(delayMs);
  };
  const tool = (id: string, name: string, context: string, args: Frame): void => session.emit('tool.start', { tool_id: id, name, context, args });
  const toolDone = (id: string, name: string, result: Frame, summary: string): void => {
    session.rows.push({ row_id: newRowId(), role: 'tool', text: summary, tool_call_id: id, name });
    session.emit('tool.complete', { tool_id: id, name, result, summary, duration_s: 0.01 });
  };

  if (text.includes('[slow]')) {
    for (let i = 0; i < 200 && !turn.aborted; i++) {
      await say(`tick ${i} `);
      await sleep(20);
    }
  } else if (text.includes('[tool]')) {
    tool('tool-ls', 'terminal', 'ls -F', { command: 'ls -F' });
    await sleep(delayMs);
    toolDone('tool-ls', 'terminal', { output: 'a\nb\n', exit_code: 0 }, '2 entries');
    await say('Listed the folder.');
  } else if (text.includes('[approval]') || text.includes('[withdraw]')) {
    tool('tool-rm', 'terminal', 'rm -rf build', { command: 'rm -rf build' });
    const pending = ask(session, 'approval', {
      request_id: 'appr-1',
      command: 'rm -rf build',
      description: 'recursive delete',
      choices: ['once', 'session', 'always', 'deny'],
      allow_permanent: true,
      allow_session: true,
      tool_name: 'terminal',
    });
    if (text.includes('[withdraw]')) {
      setTimeout(() => withdrawAll(session, 'timeout'), 150);
    }
    const answer = await pending;
    const choice = resultField(answer, 'choice');
    toolDone('tool-rm', 'terminal', choice === 'deny' || answer === undefined ? { error: 'denied' } : { output: '' }, 'done');
    await say(`approval: ${typeof choice === 'string' ? choice : describe(answer)}`);
  } else if (text.includes('[clarify-one]')) {
    const answer = await ask(session, 'clarify', { question: 'Proceed with the migration?', choices: ['yes', 'no'] });
    const a = resultField(answer, 'answer');
    await say(typeof a === 'string' ? `clarify answer: ${a}` : 'clarify cancelled');
  } else if (text.includes('[clarify]')) {
    const answer = await ask(session, 'clarify', {
      questions: [
        { qid: 'color', question: 'Which colour?', choices: ['red', 'blue'] },
        { qid: 'size', question: 'Which size?' },
      ],
    });
    const answers = resultField(answer, 'answers');
    await say(answers !== undefined && answers !== null ? `clarify answers: ${JSON.stringify(answers)}` : `clarify cancelled (${describe(answer)})`);
  } else if (text.includes('[secret]') || text.includes('[sudo]')) {
    const sudo = text.includes('[sudo]');
    const answer = sudo
      ? await ask(session, 'sudo', { command: 'apt install ripgrep' })
      : await ask(session, 'secret', { env_var: 'FAKE_API_TOKEN', prompt: 'Paste the API token', metadata: {} });
    const value = resultField(answer, 'value');
    // Never echo the value: say only whether it is the one the test expected.
    const verdict = typeof value !== 'string' ? describe(answer) : value === '' ? 'empty' : value === process.env.FAKE_GATEWAY_EXPECT_SECRET ? 'matched' : 'different';
    await say(`${sudo ? 'sudo' : 'secret'}: ${verdict}`);
  } else if (text.includes('[unknown]')) {
    const answer = await ask(session, 'preview.act', { action: 'click', selector: '#go' });
    await say(`unknown request answered ${describe(answer)}`);
  } else if (text.includes('[connection]')) {
    const answer = await ask(session, 'connection', {
      op_id: 'op-1',
      deadline_at: Date.now() / 1000 + 60,
      timeout_seconds: 60,
      reason: 'needs GitHub',
      targets: [{ name: 'github', kind: 'mcp', action: 'enable' }],
    });
    const settled = resultField(answer, 'settled_by');
    await say(`connection: ${typeof settled === 'string' ? settled : describe(answer)}`);
  } else if (text.includes('[crash]')) {
    await say('about to crash');
    process.stderr.write('fake gateway: simulated crash\n');
    process.exit(3);
  } else if (text.includes('[garbage]')) {
    for (const c of session.subscribers) {
      c.sendRaw('this is not JSON');
      c.sendRaw('{"neither":"JSON-RPC"}');
      c.sendRaw('{"jsonrpc":"2.0","id":"c999","result":{}}');
    }
    await say('still talking');
  } else if (text.includes('[fail]')) {
    return { text: '', status: 'error', error: 'provider exploded' };
  } else if (text.includes('[429]')) {
    return { text: '', status: 'error', error: 'API call failed after 3 retries: HTTP 429 Too Many Requests' };
  } else {
    for (const w of ['Echo: ', text.replace(/\[[^\]]*\]/g, '').trim()]) {
      await say(w);
    }
  }
  const titled = /\[title(?:=([^\]]+))?\]/.exec(text);
  if (titled !== null) {
    session.title = titled[1] ?? 'A titled session';
    session.emit('session.title', { session_id: session.stored, title: session.title });
  }
  return { text: turn.assistant, status: turn.aborted ? 'interrupted' : 'complete' };
}
