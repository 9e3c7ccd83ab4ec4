import * as assert from 'node:assert/strict';
import type { EntryView, QuestionEntryView } from '../../../src/protocol/sessionView';
import { snapshot, tool, user } from './fixtures';
import { byRole, createHarness, type Harness } from './harness';

function clarify(status: QuestionEntryView['status'] = 'pending', locked: Record<string, string | null> = {}): EntryView {
  return {
    kind: 'question',
    id: 'q1',
    requestId: 'question-1',
    status,
    replayed: false,
    question: {
      kind: 'clarify',
      questions: [
        { id: 'color', text: 'Which colour?', choices: ['red', 'blue'], multiSelect: false },
        { id: 'size', text: 'How big?', choices: [], multiSelect: false },
      ],
      locked,
    },
  };
}

const secret: EntryView = { kind: 'question', id: 'q2', requestId: 'question-2', status: 'pending', replayed: false, question: { kind: 'secret', secretKind: 'secret', prompt: 'Needed to deploy', envVar: 'DEPLOY_TOKEN' } };

suite('webview: clarify, secret, rewrite and tool progress cards', () => {
  let h: Harness;
  setup(() => {
    h = createHarness();
  });
  teardown(() => h.close());

  test('clarify: choices and free text per question, lock one, submit the rest, cancel', () => {
    h.send(snapshot(1, [clarify()], { phase: 'running' }));
    const card = byRole(h.doc, 'article', 'The agent asks')[0];
    assert.ok(card);
    const blue = [...card.querySelectorAll<HTMLInputElement>('input[type="radio"]')].find((i) => i.value === 'blue');
    assert.ok(blue);
    blue.click();
    byRole(card, 'button', 'Lock the answer to: Which colour?')[0]?.click();
    assert.deepEqual(h.postedOfType('question/lock').map((m) => [m.questionId, m.answer]), [['color', 'blue']]);
    h.send(snapshot(2, [clarify('pending', { color: 'blue' })], { phase: 'running' }));
    const free = byRole(h.doc, 'textbox', 'Your own answer to: How big?')[0];
    assert.ok(free instanceof h.win.HTMLInputElement);
    free.value = 'a big one';
    byRole(h.doc, 'button', 'Submit answers')[0]?.click();
    assert.deepEqual(h.postedOfType('question/answer')[0]?.answers, { size: 'a big one' }, 'the locked answer is not sent again');
    byRole(h.doc, 'button', 'Cancel question')[0]?.click();
    assert.equal(h.postedOfType('question/cancel')[0]?.requestId, 'question-1');
  });

  test('secret: a masked input; the value is posted once and the field cleared; decline cancels', () => {
    h.send(snapshot(1, [secret], { phase: 'running' }));
    const input = byRole(h.doc, 'textbox', 'The agent asks for DEPLOY_TOKEN')[0] ?? h.doc.querySelector<HTMLInputElement>('input.secret-input');
    assert.ok(input instanceof h.win.HTMLInputElement);
    assert.equal(input.type, 'password');
    input.value = 's3cr3t';
    byRole(h.doc, 'button', 'Submit secret')[0]?.click();
    assert.deepEqual(h.postedOfType('question/secret').map((m) => m.value), ['s3cr3t']);
    assert.equal(input.value, '');
    byRole(h.doc, 'button', 'Decline: The agent asks for DEPLOY_TOKEN')[0]?.click();
    assert.equal(h.postedOfType('question/cancel').length, 1);
  });

  test('"Edit and resend" only when the transport offers rewrite; a deep cut asks first', () => {
    h.send(snapshot(1, [user('u1', 'one'), user('u2', 'two'), user('u3', 'three')]));
    assert.equal(byRole(h.doc, 'button', 'Edit and resend').length, 0);
    h.close();
    h = createHarness();
    h.send(snapshot(1, [user('u1', 'one'), user('u2', 'two'), user('u3', 'three')], { offers: { rewrite: true, fork: true, modes: false, attach: true } }));
    const edits = byRole(h.doc, 'button', 'Edit and resend');
    assert.equal(edits.length, 3);
    edits[1]?.click();
    const area = byRole(h.doc, 'textbox', 'Edit your message')[0];
    assert.ok(area instanceof h.win.HTMLTextAreaElement);
    assert.equal(area.value, 'two');
    area.value = 'TWO';
    byRole(h.doc, 'button', 'Resend')[0]?.click();
    assert.equal(h.postedOfType('message/rewrite').length, 0, 'not before the confirmation');
    assert.equal(byRole(h.doc, 'alertdialog').length, 1);
    byRole(h.doc, 'button', 'Cut 2 turns and resend')[0]?.click();
    assert.deepEqual(h.postedOfType('message/rewrite').map((m) => [m.entryId, m.text, m.confirmedTurns]), [['u2', 'TWO', 2]]);
  });

  test('tool progress: the card shows the emoji and label; suggestions are buttons', () => {
    h.send(
      snapshot(1, [
        tool('t1', { title: 'search_files', status: 'ended', progress: { tool: 'search_files', emoji: '🔎', label: '*.ts', state: 'completed' } }),
        { kind: 'notice', id: 'n1', level: 'error', title: 'The provider "anthropic" cannot serve the model "gpt-5".', actions: [], suggestions: { kind: 'model', model: 'gpt-5', provider: 'anthropic', values: ['claude-sonnet-4', 'claude-opus-4'] } },
      ]),
    );
    const card = byRole(h.doc, 'article', '*.ts')[0];
    assert.ok(card);
    assert.equal(card.querySelector('.tool-emoji')?.textContent, '🔎');
    byRole(h.doc, 'button', 'Use model claude-opus-4')[0]?.click();
    assert.deepEqual(h.postedOfType('suggestion/choose').map((m) => m.value), ['claude-opus-4']);
  });
});
