import * as assert from 'node:assert/strict';
import { displayLabel, notificationLabel } from '../../../src/util/displayText';

/** VS Code's notification link syntax (src/vs/base/common/linkedText.ts, `parseLinkedText`). */
const vscodeLinkRegex = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

suite('display text for VS Code UI (host side)', () => {
  test('bidi, zero-width and control characters become visible code points, on one line', () => {
    assert.equal(displayLabel('src/invoice_\u202etxt.exe'), 'src/invoice_⟨U+202E⟩txt.exe');
    assert.equal(displayLabel('ma\u200bin.ts'), 'ma⟨U+200B⟩in.ts');
    assert.equal(displayLabel('\u2066admin\u2069'), '⟨U+2066⟩admin⟨U+2069⟩');
    assert.equal(displayLabel('a\nb\tc\r\nd'), 'a b c d');
    assert.equal(displayLabel('bell\u0007'), 'bell⟨U+0007⟩');
    assert.equal(displayLabel('plain/path.ts'), 'plain/path.ts');
  });

  test('long labels are cut with an ellipsis', () => {
    const s = displayLabel('x'.repeat(1000), 50);
    assert.equal(s.length, 50);
    assert.ok(s.endsWith('…'));
  });

  test('no agent text becomes a notification link (command:, https:, file:)', () => {
    const hostile = [
      '[Click me](command:workbench.action.files.newUntitledFile)',
      '[run](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22echo%20pwned%5Cn%22%7D)',
      '[a](https://evil.invalid "title") and [b](file:///etc/passwd)',
      'nested [[x](command:a)](command:b)',
    ];
    for (const h of hostile) {
      assert.notEqual(h.match(vscodeLinkRegex), null, `the sample is a link as VS Code parses it: ${h}`);
      const shown = notificationLabel(h);
      assert.equal(shown.match(vscodeLinkRegex), null, `${h} → ${shown}`);
    }
    assert.equal(notificationLabel('[Click me](command:x)'), '[Click me] (command:x)', 'the text still reads the same');
  });
});
