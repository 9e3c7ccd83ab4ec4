// R8 measures the chat's own script from a Chromium trace (test/ui/rendererTrace.ts). These
// cases pin down what that measure counts, on traces shaped like the ones code-server produces.
import * as assert from 'node:assert/strict';
import type { TraceEvent } from '../../../bench/traceFrames';
import { blameSlowKey, chatScriptOf } from '../../ui/rendererTrace';

const pid = 7;
const tid = 1;
const chat = 'CHATFRAME';
const workbench = 'WORKBENCH';
const bundle = 'https://file+.vscode-resource.vscode-cdn.net/tmp/exts/hermes-acp/dist/webview/main.js';

function x(name: string, ts: number, ms: number, data: { frame?: string; url?: string } = {}, onThread = tid, cpuMs?: number): TraceEvent {
  return { name, ph: 'X', ts: ts * 1000, dur: ms * 1000, ...(cpuMs !== undefined ? { tdur: cpuMs * 1000 } : {}), pid, tid: onThread, args: { data } };
}

/** A handler of the chat's running its bundle: the entry event (`EventDispatch`, `FireAnimationFrame`…) and the function call in it. */
function chatHandler(entry: string, ts: number, ms: number, cpuMs?: number): TraceEvent[] {
  return [x(entry, ts, ms, { frame: chat }, tid, cpuMs), x('FunctionCall', ts, ms, { frame: chat, url: bundle }, tid, cpuMs)];
}

const threadName: TraceEvent = { name: 'thread_name', ph: 'M', pid, tid, ts: 0, args: { name: 'CrRendererMain' } };

suite('R8 renderer trace: the chat’s own script', () => {
  test('a frame update the long-task API would blame on the chat: only its 2 ms callback counts', () => {
    const t = chatScriptOf([
      threadName,
      x('RunTask', 0, 300),
      ...chatHandler('FireAnimationFrame', 1, 2),
      x('Layout', 10, 280, { frame: workbench }),
    ]);
    assert.equal(t.chatFrames, 1);
    assert.deepEqual(t.tasks, [{ ms: 2, wallMs: 2, gcMs: 0 }]);
    assert.equal(t.longestTaskMs, 300);
  });

  test('a GC pause inside the chat’s handler is reported apart, not as the chat’s script', () => {
    const t = chatScriptOf([threadName, x('RunTask', 0, 200), ...chatHandler('EventDispatch', 0, 190), x('MajorGC', 20, 150)]);
    assert.deepEqual(t.tasks, [{ ms: 40, wallMs: 40, gcMs: 150 }]);
  });

  test('the chat’s script in one task adds up; separate tasks stay separate; other frames and threads do not count', () => {
    const t = chatScriptOf([
      threadName,
      x('RunTask', 0, 100),
      x('TimerFire', 0, 30, { frame: chat }),
      x('FunctionCall', 40, 30, { frame: chat, url: bundle }),
      x('FunctionCall', 80, 15, { frame: workbench, url: 'http://127.0.0.1/static/out/vs/workbench/workbench.web.main.js' }),
      x('RunTask', 100, 50),
      x('FunctionCall', 101, 120, { frame: chat }, 2),
      x('FireIdleCallback', 110, 5, { frame: chat }),
    ]);
    assert.deepEqual(t.tasks, [
      { ms: 60, wallMs: 60, gcMs: 0 },
      { ms: 5, wallMs: 5, gcMs: 0 },
    ]);
  });

  test('a handler preempted by another process: its CPU time counts, the wall clock is reported apart', () => {
    const t = chatScriptOf([
      threadName,
      x('RunTask', 0, 160, {}, tid, 30),
      ...chatHandler('EventDispatch', 0, 150, 24),
      x('MinorGC', 100, 20, {}, tid, 4),
    ]);
    assert.deepEqual(t.tasks, [{ ms: 20, wallMs: 130, gcMs: 4 }]);
  });

  test('no frame runs the chat’s bundle: nothing is counted (the test asserts the trace saw the chat)', () => {
    const t = chatScriptOf([threadName, x('RunTask', 0, 100), x('FunctionCall', 0, 90, { frame: workbench, url: 'http://127.0.0.1/static/out/vs/workbench/workbench.web.main.js' })]);
    assert.equal(t.chatFrames, 0);
    assert.deepEqual(t.tasks, []);
  });
});

suite('R8 slow keystrokes: whose they are (the long-task API)', () => {
  const key = { at: 1_000, ms: 171 };

  test('the chat\'s own long task over the keystroke: the chat\'s', () => {
    const verdict = blameSlowKey(key, [{ start: 1_010, ms: 120, from: 'self' }, { start: 990, ms: 200, from: 'same-origin-ancestor' }]);
    assert.deepEqual(verdict, { chat: true, why: "the chat's own 120 ms task" });
  });

  test('the workbench held the thread for all of it beyond the bound: not the chat\'s', () => {
    const verdict = blameSlowKey(key, [{ start: 1_005, ms: 150, from: 'same-origin-ancestor' }]);
    assert.deepEqual(verdict, { chat: false, why: '150 ms same-origin-ancestor' });
    assert.equal(blameSlowKey(key, [{ start: 1_000, ms: 40, from: 'same-origin-ancestor' }, { start: 1_060, ms: 60, from: 'multiple-contexts' }]).chat, false);
  });

  test('nothing, or too little, explains the delay: the chat\'s', () => {
    assert.deepEqual(blameSlowKey(key, []), { chat: true, why: 'no long task explains it' });
    assert.deepEqual(blameSlowKey(key, [{ start: 1_100, ms: 55, from: 'same-origin-ancestor' }]), { chat: true, why: 'only 55 ms of it under 55 ms same-origin-ancestor' });
  });

  test('long tasks before or after the keystroke do not count', () => {
    const tasks = [{ start: 700, ms: 300, from: 'same-origin-ancestor' }, { start: 1_171, ms: 500, from: 'same-origin-ancestor' }];
    assert.equal(blameSlowKey(key, tasks).chat, true);
  });
});
