import type * as acp from '@agentclientprotocol/sdk';
import type { SessionView } from '../src/protocol/sessionView';
import type { SessionAction } from '../src/session/sessionActions';
import { reduceSession } from '../src/session/sessionReducer';
import { initialSessionState, type SessionState } from '../src/session/sessionState';
import type { ViewContext } from '../src/session/viewProjection';
import { agentAnswer } from './streamText';

/**
 * A long session, built through the real reducer: turns of five entries each — the prompt, an
 * answer in Markdown (~1.5 KB, a code block every other turn), a shell tool call with 10 KB of
 * output by default (plain test output, or ANSI-coloured), a file edit with a diff (80 lines), the
 * turn's end.
 * The last turn is running: its prompt is in, the answer is about to stream.
 */
export const entriesPerTurn = 5;

export const benchViewContext: ViewContext = {
  agentName: 'Hermes',
  readOnly: false,
  acceptsImages: false,
  pendingPermissions: 0,
  now: 0,
  relativePath: (p) => p.replace('/work/project/', ''),
};

function toolOutput(turn: number, chars: number): string {
  const lines: string[] = [];
  let size = 0;
  const ansi = turn % 2 === 1;
  for (let i = 0; size < chars; i++) {
    const line = ansi
      ? `\u001b[32m ✓\u001b[0m test/unit/module${turn}.test.ts \u001b[2m›\u001b[0m case ${i}: resolves the cache key for folder ${i % 7} \u001b[2m(${i % 13} ms)\u001b[0m`
      : `PASS test/unit/module${turn}.test.ts > case ${i}: resolves the cache key for folder ${i % 7} (${i % 13} ms)`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

function sourceFile(turn: number, changed: boolean): string {
  const lines: string[] = [];
  for (let i = 0; i < 80; i++) {
    const edited = changed && i % 9 === 4;
    lines.push(`export const value${i} = compute(${edited ? `options.folder, ${i}` : `${i}`}); // module ${turn}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The state after `turns` finished turns plus one running turn (its prompt only); each turn's shell output has `toolOutputChars`. */
export function longSessionState(turns: number, toolOutputChars = 10_000): SessionState {
  let state = initialSessionState();
  let ids = 0;
  let at = 1_000;
  const id = (): string => `e${++ids}`;
  const dispatch = (action: SessionAction): void => {
    state = reduceSession(state, action);
  };
  const update = (u: acp.SessionUpdate): void => dispatch({ type: 'updateReceived', id: id(), at: (at += 5), update: u });
  dispatch({ type: 'sessionStarted', sessionId: 'bench' });
  const answer = agentAnswer(40_000);
  for (let turn = 0; turn < turns; turn++) {
    dispatch({ type: 'promptSubmitted', turnId: turn + 1, id: id(), at: (at += 1_000), blocks: [{ type: 'text', text: `Turn ${turn}: fix the cache key of module ${turn} and run the tests.` }] });
    const start = (turn * 1_500) % (answer.length - 1_500);
    update({ sessionUpdate: 'agent_message_chunk', messageId: `m${turn}`, content: { type: 'text', text: answer.slice(start, start + 1_500) } });
    const shell = `shell-${turn}`;
    update({ sessionUpdate: 'tool_call', toolCallId: shell, title: 'npm test', kind: 'execute', status: 'in_progress', rawInput: { command: 'npm test' } });
    update({ sessionUpdate: 'tool_call_update', toolCallId: shell, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: toolOutput(turn, toolOutputChars) } }] });
    const edit = `edit-${turn}`;
    const file = `/work/project/src/module${turn}.ts`;
    update({
      sessionUpdate: 'tool_call',
      toolCallId: edit,
      title: `Edit src/module${turn}.ts`,
      kind: 'edit',
      status: 'completed',
      locations: [{ path: file, line: 5 }],
      content: [{ type: 'diff', path: file, oldText: sourceFile(turn, false), newText: sourceFile(turn, true) }],
    });
    dispatch({ type: 'turnEnded', turnId: turn + 1, id: id(), at: (at += 10), stopReason: 'end_turn' });
  }
  dispatch({ type: 'promptSubmitted', turnId: turns + 1, id: id(), at: (at += 1_000), blocks: [{ type: 'text', text: 'One more thing: explain the change.' }] });
  return state;
}

/** Where a new reply goes in the webview of `view`: after the outlined earlier entries and the whole ones. */
export function replyIndex(view: SessionView): number {
  return (view.earlier?.length ?? 0) + view.entries.length;
}
