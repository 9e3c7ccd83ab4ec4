/**
 * Issue 17 — the "Sign in" card in code-server + Chromium with the packaged extension. The scripted
 * agent answers `session/new` with `auth_required` (SCRIPTED_AGENT_AUTH=required) and its
 * `authenticate` fails once (SCRIPTED_AGENT_AUTH_FAIL=scripted-login:1). The card is found by role
 * and name (a region named by its heading, one button per method); an agent-type method's failure
 * and a wrong env-var value are alerts on the card; VS Code's masked input box takes the value; the
 * right one signs in and the chat works.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import { vsCodeForSuite } from './support';
import { answerMaskedInputBox, composerBox, conversation, send } from './uiHelpers';

function card(chat: FrameLocator): ReturnType<FrameLocator['getByRole']> {
  return chat.getByRole('region', { name: 'Sign in to Scripted' });
}

suite('issue 17: the sign-in card in the real chat', function () {
  this.timeout(300_000);
  const vs = vsCodeForSuite('ui17-signin', { agentEnv: { SCRIPTED_AGENT_AUTH: 'required', SCRIPTED_AGENT_AUTH_FAIL: 'scripted-login:1' } });

  test('the card lists the methods as buttons; a failed authenticate and a wrong key are alerts; the right key signs in', async () => {
    const chat = vs.chat();
    const page = vs.ui().page;
    const region = card(chat);
    await region.waitFor({ timeout: 60_000 });
    const login = region.getByRole('button', { name: 'Log in with the stored scripted credentials', exact: true });
    const apiKey = region.getByRole('button', { name: 'Use SCRIPTED_API_KEY', exact: true });
    assert.equal(await login.count(), 1);
    assert.equal(await region.getByRole('button', { name: 'Configure scripted agent', exact: true }).count(), 1);
    assert.equal(await apiKey.count(), 1);
    assert.equal(await region.getByRole('button', { name: 'Try again', exact: true }).count(), 1);
    // The description is read with the button.
    const describedBy = (await login.getAttribute('aria-describedby')) ?? '';
    assert.equal(await chat.locator(`[id="${describedBy}"]`).textContent(), 'The agent signs in by itself.');
    await vs.ui().shot('ui17-signin-card');

    await login.click();
    const alert = region.getByRole('alert');
    await alert.filter({ hasText: 'Login failed: the scripted credentials have expired.' }).waitFor({ timeout: 30_000 });
    assert.match((await alert.textContent()) ?? '', /^Signing in with “Log in with the stored scripted credentials” failed: /);
    await vs.ui().shot('ui17-signin-authenticate-failed');

    await apiKey.click();
    await answerMaskedInputBox(page, 'sk-wrong');
    await alert.filter({ hasText: 'Scripted did not accept the value of SCRIPTED_API_KEY.' }).waitFor({ timeout: 60_000 });
    await vs.ui().shot('ui17-signin-wrong-key');

    await apiKey.click();
    await answerMaskedInputBox(page, 'sk-scripted');
    await region.waitFor({ state: 'hidden', timeout: 60_000 });
    await send(chat, 'hello after signing in');
    await conversation(chat).getByText('You said: hello after signing in').waitFor({ timeout: 60_000 });
    assert.equal(await composerBox(chat).count(), 1);
    await vs.ui().shot('ui17-signin-done');
  });
});
