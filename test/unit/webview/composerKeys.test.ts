/**
 * Enter and Tab in the composer's menus (issue 22: `/help` + Enter only completed; a second Enter
 * sent). Tab always completes; Enter completes and also sends when the choice is what was typed.
 * The commands are Hermes' (fixtures/hermes/main.jsonl, available_commands_update).
 */
import * as assert from 'node:assert/strict';
import type { CommandView } from '../../../src/protocol/sessionView';
import type { MentionView } from '../../../src/protocol/webviewProtocol';
import { enterSendsMention } from '../../../src/webview/render/mentionMenu';
import { enterSendsCommand } from '../../../src/webview/render/slashMenu';
import { snapshot } from './fixtures';
import { byRole, createHarness, keydown, type Harness } from './harness';

const hermesCommands: CommandView[] = [
  { name: 'help', description: 'List available commands' },
  { name: 'model', description: 'Show current model and provider, or switch models', hint: 'model name to switch to' },
  { name: 'tools', description: 'List available tools with descriptions' },
  { name: 'context', description: 'Show conversation message counts by role' },
  { name: 'reset', description: 'Clear conversation history' },
  { name: 'compress', description: 'Compress conversation context' },
  { name: 'steer', description: 'Inject guidance into the running turn', hint: 'guidance' },
  { name: 'queue', description: 'Queue a prompt for the next turn', hint: 'prompt' },
  { name: 'version', description: 'Show Hermes version' },
];

function type(h: Harness, value: string): HTMLTextAreaElement {
  const t = byRole(h.doc, 'textbox', 'Message')[0];
  assert.ok(t instanceof h.win.HTMLTextAreaElement);
  t.focus();
  t.value = value;
  t.setSelectionRange(value.length, value.length);
  t.dispatchEvent(new h.win.Event('input', { bubbles: true }));
  return t;
}

const sent = (h: Harness): string[] => h.postedOfType('prompt/submit').map((m) => m.text);
const commandsMenu = (h: Harness): HTMLElement | undefined => byRole(h.doc, 'listbox', 'Commands')[0];

suite('webview: Enter and Tab in the composer menus', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
    h.send(snapshot(1, [], { phase: 'idle', commands: hermesCommands }));
  });
  teardown(() => h.close());

  test('/help + one Enter sends /help (the selection is what was typed)', () => {
    const t = type(h, '/help');
    assert.ok(commandsMenu(h)?.hidden === false, 'the menu is open on /help');
    const enter = keydown(t, 'Enter');
    assert.ok(enter.defaultPrevented);
    assert.deepEqual(sent(h), ['/help']);
    assert.equal(t.value, '', 'the composer is empty again');
    assert.ok(commandsMenu(h)?.hidden !== false, 'the menu is closed');
  });

  test('a prefix of a command without argument sends it on Enter; with an argument Enter completes and waits', () => {
    const t = type(h, '/ver');
    keydown(t, 'Enter');
    assert.deepEqual(sent(h), ['/version'], '/version takes no argument: nothing more to type');
    type(h, '/mo');
    keydown(t, 'Enter');
    assert.deepEqual(sent(h), ['/version'], '/model takes an argument: not sent yet');
    assert.equal(t.value, '/model ');
    assert.equal(t.selectionStart, '/model '.length, 'the caret waits for the argument');
    t.value += 'custom:fake-model';
    keydown(t, 'Enter');
    assert.deepEqual(sent(h), ['/version', '/model custom:fake-model']);
  });

  test('typing a command that takes an argument in full sends it as it is (Hermes shows the current model)', () => {
    const t = type(h, '/model');
    keydown(t, 'Enter');
    assert.deepEqual(sent(h), ['/model']);
  });

  test('Tab always completes and never sends, also on an exact match', () => {
    const t = type(h, '/help');
    const tab = keydown(t, 'Tab');
    assert.ok(tab.defaultPrevented);
    assert.equal(t.value, '/help ');
    assert.deepEqual(sent(h), []);
    type(h, '/ver');
    keydown(t, 'Tab');
    assert.equal(t.value, '/version ');
    assert.deepEqual(sent(h), []);
  });

  test('a bare "/" + Enter completes the highlighted command without sending it', () => {
    const t = type(h, '/');
    assert.equal(byRole(commandsMenu(h) ?? h.doc, 'option').length, hermesCommands.length);
    keydown(t, 'ArrowDown');
    keydown(t, 'ArrowDown');
    keydown(t, 'ArrowDown');
    keydown(t, 'ArrowDown');
    assert.match(h.doc.querySelector('.slash-option.active')?.textContent ?? '', /\/reset/);
    keydown(t, 'Enter');
    assert.equal(t.value, '/reset ');
    assert.deepEqual(sent(h), [], 'nothing destructive is sent by accident');
  });

  test('arrows choose another command than the typed one: Enter completes it (and sends only a no-argument command)', () => {
    const t = type(h, '/c');
    const names = byRole(commandsMenu(h) ?? h.doc, 'option').map((o) => o.querySelector('.slash-name')?.textContent);
    assert.deepEqual(names, ['/context', '/compress']);
    keydown(t, 'ArrowDown');
    keydown(t, 'Enter');
    assert.deepEqual(sent(h), ['/compress']);
  });

  test('Enter completes with the rest of the message kept, and sends it with the command', () => {
    const t = type(h, '/que later please');
    t.setSelectionRange(4, 4);
    t.dispatchEvent(new h.win.Event('click'));
    keydown(t, 'Enter');
    assert.equal(t.value, '/queue later please', '/queue takes an argument: completed in place');
    assert.deepEqual(sent(h), []);
    keydown(t, 'Enter');
    assert.deepEqual(sent(h), ['/queue later please']);
  });

  test('while the agent works Enter completes but cannot send; the command waits in the composer', () => {
    h.send(snapshot(2, [], { phase: 'running', commands: hermesCommands }));
    const t = type(h, '/help');
    keydown(t, 'Enter');
    assert.deepEqual(sent(h), []);
    assert.equal(t.value, '/help');
  });

  test('the rules, on their own', () => {
    const help = hermesCommands[0];
    const model = hermesCommands[1];
    assert.ok(help !== undefined && model !== undefined);
    assert.equal(enterSendsCommand(help, 'help'), true);
    assert.equal(enterSendsCommand(help, 'HELP'), true, 'case-insensitive, as the filter');
    assert.equal(enterSendsCommand(help, 'he'), true);
    assert.equal(enterSendsCommand(help, ''), false);
    assert.equal(enterSendsCommand(model, 'mo'), false);
    assert.equal(enterSendsCommand(model, 'model'), true);
    const file: MentionView = { path: '/ws/src/hello.ts', label: 'hello.ts', detail: 'src' };
    assert.equal(enterSendsMention(file, 'hello.ts'), true);
    assert.equal(enterSendsMention(file, 'src/hello.ts'), true);
    assert.equal(enterSendsMention(file, 'hel'), false);
    assert.equal(enterSendsMention(file, ''), false);
    assert.equal(enterSendsMention({ path: '/ws/a.md', label: 'a.md' }, 'A.md'), true);
  });
});

suite('webview: Enter and Tab in the @ menu', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
    h.send(snapshot(1, [], { phase: 'idle' }));
  });
  teardown(() => h.close());

  async function menuFor(text: string, results: readonly MentionView[]): Promise<HTMLTextAreaElement> {
    const before = h.postedOfType('request/call').length;
    const t = type(h, text);
    for (let i = 0; i < 200 && h.postedOfType('request/call').length === before; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const call = h.postedOfType('request/call').at(-1);
    assert.ok(call !== undefined);
    h.deliver({ type: 'request/result', id: call.id, ok: true, value: results });
    await new Promise((r) => setTimeout(r, 10));
    assert.ok(byRole(h.doc, 'listbox', 'Files')[0]?.hidden === false);
    return t;
  }

  const files: MentionView[] = [
    { path: '/ws/hello.txt', label: 'hello.txt', detail: '' },
    { path: '/ws/src/hello.ts', label: 'hello.ts', detail: 'src' },
  ];

  test('the file typed in full + one Enter attaches it and sends the message', async () => {
    const t = await menuFor('explain @hello.txt', files);
    keydown(t, 'Enter');
    const submit = h.postedOfType('prompt/submit');
    assert.deepEqual(submit, [{ type: 'prompt/submit', text: 'explain ', attachments: [{ path: '/ws/hello.txt', label: 'hello.txt' }] }]);
  });

  test('a partial name + Enter attaches the chosen file and waits; Tab attaches without sending', async () => {
    let t = await menuFor('read @hel', files);
    keydown(t, 'ArrowDown');
    keydown(t, 'Enter');
    assert.equal(h.postedOfType('prompt/submit').length, 0);
    assert.equal(t.value, 'read ');
    t = await menuFor('read @src/hello.ts', files);
    keydown(t, 'ArrowDown');
    keydown(t, 'Tab');
    assert.equal(h.postedOfType('prompt/submit').length, 0, 'Tab never sends');
    assert.match(byRole(h.doc, 'group', 'Context for the next message')[0]?.textContent ?? '', /hello\.ts/);
  });
});
