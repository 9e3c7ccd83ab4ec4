// R8 measures the chat's own script from a Chromium trace (test/ui/rendererTrace.ts). These
// cases pin down what that measure counts, on traces shaped like the ones code-server produces.
import * as assert from 'node:assert/strict';
import type { TraceEvent } from '../../../bench/traceFrames';
import { blameSlowKey, chatClockMark, chatWorkOf } from '../../ui/rendererTrace';

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
    const t = chatWorkOf([
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
    const t = chatWorkOf([threadName, x('RunTask', 0, 200), ...chatHandler('EventDispatch', 0, 190), x('MajorGC', 20, 150)]);
    assert.deepEqual(t.tasks, [{ ms: 40, wallMs: 40, gcMs: 150 }]);
  });

  test('the chat’s script in one task adds up; separate tasks stay separate; other frames and threads do not count', () => {
    const t = chatWorkOf([
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
    const t = chatWorkOf([
      threadName,
      x('RunTask', 0, 160, {}, tid, 30),
      ...chatHandler('EventDispatch', 0, 150, 24),
      x('MinorGC', 100, 20, {}, tid, 4),
    ]);
    assert.deepEqual(t.tasks, [{ ms: 20, wallMs: 130, gcMs: 4 }]);
  });

  test('no frame runs the chat’s bundle: nothing is counted (the test asserts the trace saw the chat)', () => {
    const t = chatWorkOf([threadName, x('RunTask', 0, 100), x('FunctionCall', 0, 90, { frame: workbench, url: 'http://127.0.0.1/static/out/vs/workbench/workbench.web.main.js' })]);
    assert.equal(t.chatFrames, 0);
    assert.deepEqual(t.tasks, []);
  });
});

suite('R8 slow keystrokes: whose they are (the trace under them)', () => {
  // The chat document's clock runs 5,000 ms behind the trace's: the mark, set at document time 400,
  // is at trace time 5,400. A keystroke at document time 1,000 is at 6,000 in the trace.
  const mark: TraceEvent = { name: chatClockMark, cat: 'blink.user_timing', ph: 'I', pid, tid, ts: 5_400_000, args: { data: { startTime: 400 } } };
  const key = { at: 1_000, ms: 171 };
  const trace = (...events: TraceEvent[]): ReturnType<typeof chatWorkOf> => chatWorkOf([threadName, mark, ...events]);

  test('the mark lines the trace up with the chat document', () => {
    assert.equal(trace().clockMs, 5_000);
    assert.equal(chatWorkOf([threadName]).clockMs, undefined);
    // A mark of another name, or outside user timing, is not ours.
    assert.equal(chatWorkOf([threadName, { ...mark, name: 'other' }, { ...mark, cat: 'devtools.timeline' }]).clockMs, undefined);
  });

  test('the chat\'s own work over the keystroke reaching half the bound: the chat\'s', () => {
    const verdict = blameSlowKey(key, trace(x('RunTask', 6_010, 130), ...chatHandler('EventDispatch', 6_010, 60), x('Layout', 6_070, 60, { frame: workbench })));
    assert.equal(verdict.chat, true);
    assert.equal(verdict.why, "the chat's own work 60 ms of CPU; the renderer thread's tasks over 130 ms of it (130 ms of CPU, longest 130 ms)");
  });

  test('the chat\'s own style and layout count with its script', () => {
    const verdict = blameSlowKey(key, trace(x('RunTask', 6_010, 130), ...chatHandler('EventDispatch', 6_010, 20), x('Layout', 6_040, 40, { frame: chat }), { ...x('UpdateLayoutTree', 6_090, 10), args: { beginData: { frame: chat } } }));
    assert.equal(verdict.chat, true);
    assert.match(verdict.why, /own work 70 ms/);
  });

  test('the workbench held the thread, or the machine held the renderer: not the chat\'s', () => {
    // The workbench's 150 ms layout with the chat's 2 ms keystroke handler inside the window.
    const held = blameSlowKey(key, trace(x('RunTask', 6_005, 150), x('Layout', 6_005, 150, { frame: workbench }), x('RunTask', 6_160, 3), ...chatHandler('EventDispatch', 6_160, 2)));
    assert.deepEqual(held, { chat: false, why: "the chat's own work 2 ms of CPU; the renderer thread's tasks over 153 ms of it (153 ms of CPU, longest 150 ms)" });
    // Nothing ran on the thread but the chat's 2 ms: the renderer waited for the CPU.
    const preempted = blameSlowKey(key, trace(x('RunTask', 6_160, 3), ...chatHandler('EventDispatch', 6_160, 2)));
    assert.equal(preempted.chat, false);
    assert.match(preempted.why, /own work 2 ms of CPU; the renderer thread's tasks over 3 ms of it/);
  });

  test('work before or after the keystroke does not count; work across its edge counts pro rata', () => {
    const around = trace(x('RunTask', 5_800, 200), ...chatHandler('EventDispatch', 5_800, 200), x('RunTask', 6_171, 300), ...chatHandler('TimerFire', 6_171, 300));
    assert.equal(blameSlowKey(key, around).chat, false);
    // 100 ms of the chat's 200 ms script falls inside the window.
    const across = blameSlowKey(key, trace(x('RunTask', 5_900, 200), ...chatHandler('EventDispatch', 5_900, 200)));
    assert.equal(across.chat, true);
    assert.match(across.why, /own work 100 ms/);
  });

  test('CPU time decides, not the wall clock: a handler preempted for most of its 120 ms is not the chat\'s', () => {
    const verdict = blameSlowKey(key, trace(x('RunTask', 6_010, 120, {}, tid, 12), ...chatHandler('EventDispatch', 6_010, 120, 10)));
    assert.equal(verdict.chat, false);
    assert.match(verdict.why, /own work 10 ms of CPU/);
  });

  test('a trace without the mark cannot clear a slow keystroke', () => {
    assert.deepEqual(blameSlowKey(key, chatWorkOf([threadName])), { chat: true, why: 'the trace has no clock mark to place it by' });
  });
});
