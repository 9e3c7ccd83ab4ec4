import * as assert from 'node:assert/strict';
import { fileMentions, patchPaths, textBefore } from '../../../src/changes/toolChanges';

suite('changes: files named by tool calls', () => {
  test('diff content and the locations of edit/delete/move calls', () => {
    assert.deepEqual(
      fileMentions({
        kind: 'edit',
        content: [
          { type: 'diff', path: '/w/a.ts', oldText: 'x', newText: 'y' },
          { type: 'content', content: { type: 'text', text: 'hi' } },
        ],
        locations: [{ path: '/w/a.ts', line: 3 }, { path: '/w/b.ts' }],
      }),
      [{ path: '/w/a.ts', diff: { oldText: 'x', newText: 'y' } }, { path: '/w/b.ts' }],
    );
    assert.deepEqual(fileMentions({ kind: 'read', locations: [{ path: '/w/r.ts' }] }), []);
    assert.deepEqual(fileMentions({ locations: [{ path: '/w/r.ts' }] }, 'delete'), [{ path: '/w/r.ts' }], 'kind from the call announced earlier');
    assert.deepEqual(fileMentions({ content: [{ type: 'diff', path: '/w/n.ts', newText: 'new' }] }), [{ path: '/w/n.ts', diff: { oldText: undefined, newText: 'new' } }]);
  });

  test('multi-file patches name their files without a diff', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: src/b.ts\n+new\n*** Delete File: old.ts\n*** End Patch\n';
    assert.deepEqual(patchPaths(patch), ['src/a.ts', 'src/b.ts', 'old.ts']);
    assert.deepEqual(fileMentions({ content: [{ type: 'diff', path: '/w/src/a.ts, /w/src/b.ts', newText: patch }] }).map((m) => m.path), ['src/a.ts', 'src/b.ts', 'old.ts']);
    assert.deepEqual(fileMentions({ content: [{ type: 'diff', path: '/w/a.ts, /w/b.ts', newText: 'x' }] }).map((m) => m.path), ['/w/a.ts', '/w/b.ts']);
  });

  test('the before text, whether the diff arrives before or after the agent wrote the file', () => {
    const whole = { oldText: 'a\nb\n', newText: 'a\nB\n' };
    assert.deepEqual(textBefore('a\nb\n', whole), { text: 'a\nb\n', certain: true }, 'not written yet');
    assert.deepEqual(textBefore('a\nB\n', whole), { text: 'a\nb\n', certain: true }, 'already written');
    const snippet = { oldText: 'b\n', newText: 'B\n' };
    assert.deepEqual(textBefore('a\nB\nc\n', snippet), { text: 'a\nb\nc\n', certain: true }, 'snippet already applied');
    assert.deepEqual(textBefore('a\nb\nc\n', snippet), { text: 'a\nb\nc\n', certain: true }, 'snippet not applied yet');
    assert.deepEqual(textBefore('zzz\n', snippet), { text: 'zzz\n', certain: false });
    assert.deepEqual(textBefore(undefined, { oldText: undefined, newText: 'new\n' }), { text: undefined, certain: true }, 'a file about to be created');
    assert.deepEqual(textBefore('new\n', { oldText: '', newText: 'new\n' }), { text: undefined, certain: true }, 'Hermes sends "" for a new file');
    assert.deepEqual(textBefore('old\n', undefined), { text: 'old\n', certain: true }, 'a location without a diff: the disk');
  });
});
