/**
 * Enter and Tab in the composer's menus (issue 22: `/help` + Enter only completed; a second Enter
 * sent). Tab always completes; Enter completes and also sends when the choice is what was typed
 * (the same rule for `@` files: mentions.test.ts). The commands are Hermes' (fixtures/hermes/main.jsonl,
 * available_commands_update).
 */
import * as assert from 'node:assert/strict';
import type { CommandView } from '../../../src/protocol/sessionView';
import type { MentionView } from '../../../src/protocol/webviewProtocol';
import { enterSendsMention } from '../../../src/webview/render/mentionMenu';
import { enterSendsCommand } from '../../../src/webview/render/slashMenu';
import { snapshot } from './fixtures';
import { byRole, createHarness, keydown, typeInComposer, type Harness } from './harness';

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

const type = typeInComposer;

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
    // Hermes' commands, then the chat's own that none of them shadows (issue 38).
    const own = ['new', 'sessions', 'restart', 'traffic', 'copy'].filter((n) => !hermesCommands.some((c) => c.name === n));
    assert.equal(byRole(commandsMenu(h) ?? h.doc, 'option').length, hermesCommands.length + own.length);
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
    assert.deepEqual(names, ['/context', '/compress', '/copy'], "Hermes' two, then the chat's /copy");
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

/**
 * A chat shown again loads its page anew; until the host's first snapshot the composer has no
 * header. A message sent then waits for it (issue 43: typed and sent at once after a hidden tab came
 * back, it stayed in the composer and never reached the agent).
 */
suite('webview: a message sent before the page has heard from the host', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
  });
  teardown(() => h.close());

  test('goes once the snapshot says the chat can take it', () => {
    const t = type(h, 'sent at once');
    assert.equal((byRole(h.doc, 'button', 'Send')[0] as HTMLButtonElement | undefined)?.disabled, false);
    keydown(t, 'Enter');
    assert.equal(t.value, '', 'the composer took it');
    assert.deepEqual(sent(h), [], 'nothing is posted before the host has answered ready');
    assert.match(h.doc.querySelector('.composer-hint')?.textContent ?? '', /goes as soon as the chat is ready/);
    h.send(snapshot(1, [], { phase: 'idle' }));
    assert.deepEqual(sent(h), ['sent at once']);
    h.send(snapshot(2, [], { phase: 'idle' }));
    assert.deepEqual(sent(h), ['sent at once'], 'sent once');
  });

  test('comes back into the composer when the chat cannot take it (a turn is running)', () => {
    const t = type(h, 'too early');
    keydown(t, 'Enter');
    h.send(snapshot(1, [], { phase: 'running' }));
    assert.deepEqual(sent(h), []);
    assert.equal(t.value, 'too early');
  });
});
