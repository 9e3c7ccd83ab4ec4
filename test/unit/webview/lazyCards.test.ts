import * as assert from 'node:assert/strict';
import { JSDOM } from 'jsdom';
import type { EntryView } from '../../../src/protocol/sessionView';
import { cards } from '../../../src/webview/cards/entry';
import { loadCards, publishCards, setCardsLoader } from '../../../src/webview/lazy/cards';
import { nonceScriptLoader } from '../../../src/webview/lazy/scriptLoader';
import { loadCardsSynchronously } from './cards';
import { snapshot, user } from './fixtures';
import { byRole, createHarness, keydown, typeInComposer, type Harness } from './harness';

const question = (prompt: string): EntryView => ({
  kind: 'question',
  id: 'q1',
  requestId: 'question-1',
  status: 'pending',
  replayed: false,
  question: { kind: 'secret', secretKind: 'secret', prompt, envVar: 'DEPLOY_TOKEN' },
});
const signIn = { agentName: 'Hermes', methods: [{ id: 'login', name: 'Log in with Nous Portal', type: 'agent' }] };

/** A chunk loader the test completes: `arrive()` runs the chunk, `fail()` is a resource error. */
function deferredChunk(): { loads: string[]; arrive(): Promise<void>; fail(): Promise<void> } {
  const loads: string[] = [];
  const waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  setCardsLoader((file) => {
    loads.push(file);
    return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
  });
  const settle = async (ok: boolean): Promise<void> => {
    for (const w of waiting.splice(0)) {
      if (ok) {
        publishCards(cards);
        w.resolve();
      } else {
        w.reject(new Error('could not load cards.js'));
      }
    }
    // The loader's promise chain, then the card's.
    for (let i = 0; i < 5; i++) {
      await Promise.resolve();
    }
  };
  return { loads, arrive: () => settle(true), fail: () => settle(false) };
}

function alerts(h: Harness): string[] {
  return byRole(h.doc, 'alert', undefined).map((a) => a.textContent ?? '');
}

suite('webview: lazily loaded cards (cards.js)', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
  });
  teardown(() => {
    h.close();
    loadCardsSynchronously();
  });

  test('a card whose chunk arrives after its entry shows, from the latest update, once it arrives; nothing raw before', async () => {
    const chunk = deferredChunk();
    h.send(snapshot(1, [user('u1', 'deploy'), question('First wording')], { phase: 'running' }));
    h.send(snapshot(2, [user('u1', 'deploy'), question('Needed to deploy')], { phase: 'running', signIn }));
    assert.deepEqual(chunk.loads, ['cards'], 'one fetch for every card that waits');
    assert.equal(h.doc.querySelector('.lazy-slot')?.textContent, '', 'nothing shown before the card');
    assert.doesNotMatch(h.doc.body.textContent ?? '', /Needed to deploy|Log in with Nous Portal/);
    await chunk.arrive();
    h.settle();
    const input = byRole(h.doc, 'textbox', 'The agent asks for DEPLOY_TOKEN')[0] ?? h.doc.querySelector('input.secret-input');
    assert.ok(input, 'the secret card is there');
    assert.match(h.doc.querySelector('.question-card')?.textContent ?? '', /Needed to deploy/);
    assert.doesNotMatch(h.doc.body.textContent ?? '', /First wording/);
    assert.equal(byRole(h.doc, 'button', 'Log in with Nous Portal').length, 1, 'the sign-in card, from the header that came while waiting');
    assert.deepEqual(alerts(h), []);
  });

  test('a chunk that fails to load: a clear inline error where each card would be, and the next need tries again', async () => {
    const chunk = deferredChunk();
    h.send(snapshot(1, [question('Needed to deploy')], { phase: 'running', signIn }));
    await chunk.fail();
    const shown = alerts(h);
    assert.equal(shown.length, 2, shown.join(' | '));
    assert.match(shown[0] ?? '', /^The question could not be shown: could not load cards\.js \(cards\.js, next to the webview bundle\)\. Reload the window/);
    assert.match(shown[1] ?? '', /^The sign-in card could not be shown: could not load cards\.js/);
    // A later header still needing the card fetches it again.
    h.send(snapshot(2, [], { phase: 'idle', signIn: { ...signIn, error: 'wrong key' } }));
    assert.equal(chunk.loads.length, 2);
    await chunk.arrive();
    assert.equal(byRole(h.doc, 'button', 'Log in with Nous Portal').length, 1);
    assert.deepEqual(alerts(h), ['wrong key']);
  });

  test('no loader, a loader that throws, a script that runs but publishes nothing: each an error that says so', async () => {
    setCardsLoader(undefined);
    await assert.rejects(Promise.resolve(loadCards()), /cards\.js cannot be loaded: the page has no script loader/);
    setCardsLoader(() => {
      throw new Error('blocked');
    });
    await assert.rejects(Promise.resolve(loadCards()), /blocked/);
    setCardsLoader(() => Promise.resolve());
    await assert.rejects(Promise.resolve(loadCards()), /cards\.js ran but left no cards/);
    setCardsLoader(() => undefined);
    await assert.rejects(Promise.resolve(loadCards()), /cards\.js ran but left no cards/);
  });

  test('the composer before its menus arrive: Enter sends what is typed; once they arrive, "/" opens the command menu', async () => {
    const chunk = deferredChunk();
    h.send(snapshot(1, [], { phase: 'idle', commands: [{ name: 'help', description: 'Show help' }] }));
    const box = typeInComposer(h, '/he');
    assert.equal(byRole(h.doc, 'listbox', 'Commands').length, 0);
    keydown(box, 'Enter');
    assert.deepEqual(h.postedOfType('prompt/submit').map((m) => m.text), ['/he']);
    typeInComposer(h, '/');
    await chunk.arrive();
    assert.equal(byRole(h.doc, 'listbox', 'Commands').length, 1, 'evaluated for what is typed by then');
  });

  test('the nonce script loader: the chunk is a nonce-carrying script next to main.js; a missing file rejects', async () => {
    const dom = new JSDOM('<!DOCTYPE html><html><head></head><body></body></html>', { url: 'https://webview.test/', resources: 'usable' });
    const win = dom.window as unknown as Window & typeof globalThis;
    const current = win.document.createElement('script');
    current.src = 'https://webview.test/dist/webview/main.js?v=1';
    current.nonce = 'n0nce';
    const load = nonceScriptLoader(win, current);
    assert.ok(load);
    const seen: { src: string; nonce: string }[] = [];
    new win.MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) {
          if (n instanceof win.HTMLScriptElement) {
            seen.push({ src: n.src, nonce: n.nonce ?? '' });
            n.dispatchEvent(new win.Event('error'));
          }
        }
      }
    }).observe(win.document.head, { childList: true });
    await assert.rejects(load('cards'), /could not load cards\.js/);
    assert.deepEqual(seen, [{ src: 'https://webview.test/dist/webview/cards.js?v=1', nonce: 'n0nce' }]);
    assert.equal(win.document.head.querySelector('script'), null, 'the element is removed');
    assert.equal(nonceScriptLoader(win, win.document.createElement('div')), undefined, 'not from our bundle: no loader');
    win.close();
  });
});
