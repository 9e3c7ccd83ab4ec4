import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { type UiSession, vsCodeForSuite } from './support';
import {
  compact,
  conversation,
  footers,
  hasClass,
  highestTick,
  lastTurnEntries,
  readAgentState,
  send,
  sendAndWaitForFooter,
  storedUserTexts,
  waitForCount,
  waitUntil,
} from './uiHelpers';
import type { PageElement, PageGlobalsOf, PageObserver } from './pageTypes';

/**
 * How the chat renders what the agent streams, in code-server + Chromium with the scripted agent.
 * Chunks are paced (SCRIPTED_AGENT_CHUNK_DELAY_MS) so streaming states last long enough to be seen.
 */
suite('chat rendering in code-server + Chromium', function () {
  this.timeout(240_000);
  let vs: UiSession | undefined;
  let chat: FrameLocator;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-ui-render-'));
  const stateFile = path.join(stateDir, 'agent-state.json');

  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };

  const code = vsCodeForSuite('render', { agentEnv: { SCRIPTED_AGENT_CHUNK_DELAY_MS: '40', SCRIPTED_AGENT_STATE_FILE: stateFile } });
  suiteSetup(() => {
    vs = code.ui();
    chat = code.chat();
  });

  suiteTeardown(() => {
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  test('a streamed Markdown reply renders a heading, a list, a highlighted code block and a link', async () => {
    const footer = await sendAndWaitForFooter(chat, 'Show me Markdown [markdown]');
    await footer.getByText('Completed').waitFor({ timeout: 10_000 });
    const reply = conversation(chat).getByRole('article', { name: 'Scripted' }).last();
    await reply.getByRole('heading', { name: 'Scripted Markdown' }).waitFor({ timeout: 10_000 });
    assert.deepEqual(
      (await reply.getByRole('listitem').allInnerTexts()).map((t) => t.trim()),
      ['first item with bold text', 'second item with inline code', 'third item'],
    );
    assert.equal(await reply.locator('li strong').innerText(), 'bold');
    assert.equal(await reply.locator('li code').innerText(), 'inline code');

    const code = reply.locator('pre code');
    assert.equal(await code.count(), 1, 'one code block');
    assert.equal((await code.textContent())?.trimEnd(), 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}');
    assert.match((await code.getAttribute('class')) ?? '', /\blanguage-(ts|typescript)\b/);
    // The TypeScript grammar is a script of its own, loaded when the first such fence closes.
    await code.locator('span.hljs-keyword').first().waitFor({ timeout: 10_000 });
    const tokens = code.locator('span[class^="hljs-"]');
    assert.ok((await tokens.count()) >= 4, `highlighted: ${await tokens.count()} token spans`);
    const keywords = await code.locator('span.hljs-keyword').allTextContents();
    assert.ok(keywords.includes('export') && keywords.includes('function') && keywords.includes('return'), `keywords: ${keywords.join(', ')}`);

    const link = reply.getByRole('link', { name: 'ACP documentation' });
    assert.equal(await link.getAttribute('href'), 'https://agentclientprotocol.com/');
    const text = await reply.innerText();
    assert.ok(!text.includes('```') && !text.includes('## ') && !text.includes('**'), `no Markdown syntax left on screen:\n${text}`);
    // The message starts at its first block and ends at its last: no margin of theirs shows (the
    // groups' negative bottom margin gives the last block's back; not a `:last-child` rule, which
    // restyled the last block on every streamed refresh).
    const edges = await reply.locator('.markdown').first().evaluate((md: PageElement) => {
      const box = md.getBoundingClientRect();
      const blocks = Array.from(md.querySelectorAll(':scope > .md-group > *'));
      const first = blocks[0]?.getBoundingClientRect();
      const last = blocks[blocks.length - 1]?.getBoundingClientRect();
      return { blocks: blocks.length, top: (first?.top ?? NaN) - box.top, bottom: box.bottom - (last?.bottom ?? NaN) };
    });
    assert.ok(edges.blocks >= 4, `${edges.blocks} blocks`);
    assert.ok(Math.abs(edges.top) < 1 && Math.abs(edges.bottom) < 1, `the message hugs its blocks: ${JSON.stringify(edges)}`);
    await ui().shot('ui-render-markdown');
  });

  test('a thought streams open as "Thinking…" and collapses to "Thought for N s" once the answer starts', async () => {
    // Record every state the newest thought goes through, from inside the webview: its label, whether
    // it is open, and whether the answer has started to show.
    await conversation(chat).evaluate((log: PageElement) => {
      const w = globalThis as unknown as PageGlobalsOf<{ __thoughtStates: string[]; __thoughtObserver?: PageObserver }>;
      w.__thoughtObserver?.disconnect();
      w.__thoughtStates = [];
      const before = log.querySelectorAll('details.thought').length;
      const record = (): void => {
        const all = log.querySelectorAll('details.thought');
        const d = all.length > before ? all[all.length - 1] : undefined;
        if (d === undefined) {
          return;
        }
        const answer = (log.textContent ?? '').includes('Here is the') ? 'answer' : 'no-answer';
        const state = `${d.querySelector('.thought-label')?.textContent ?? ''}|${d.open ? 'open' : 'closed'}|${answer}`;
        if (w.__thoughtStates[w.__thoughtStates.length - 1] !== state) {
          w.__thoughtStates.push(state);
        }
      };
      w.__thoughtObserver = new w.MutationObserver(record);
      w.__thoughtObserver.observe(log, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await sendAndWaitForFooter(chat, 'Think first [thought]');
    const log = conversation(chat);
    await log.getByText('Here is the answer, after thinking it through.').waitFor({ timeout: 10_000 });
    const states = await log.evaluate(() => (globalThis as unknown as { __thoughtStates: string[] }).__thoughtStates);
    const trail = states.join(' → ');
    await ui().shot('ui-render-thought-collapsed');
    assert.ok(states.includes('Thinking…|open|no-answer'), `open and "Thinking…" while it streams: ${trail}`);
    const thought = log.locator('details.thought').last();
    const label = async (): Promise<string> => (await thought.locator('summary').innerText()).trim();
    // The scripted agent (like every ACP agent that sets messageId) sends the answer as its own
    // message after the thought: the thought ended when the answer started.
    const problems: string[] = [];
    if (await thought.evaluate((d: PageElement) => d.open === true)) {
      problems.push('the thought is still open after the turn');
    }
    const after = await label();
    if (!/^Thought for \d+ s$/.test(after)) {
      problems.push(`after the turn the thought is labelled "${after}", not "Thought for N s"`);
    }
    const overlap = states.filter((s) => s.startsWith('Thinking…') && s.endsWith('|answer'));
    if (overlap.length > 0) {
      problems.push(`it still said "Thinking…" after the answer started (states: ${trail})`);
    }
    // A finished turn's thought stays finished while a later turn runs.
    const turnsSoFar = await footers(chat).count();
    await send(chat, 'Count a little [slow n=8 ms=150]');
    await waitUntil('the next turn to stream', async () => highestTick((await log.getByRole('article', { name: 'Scripted' }).last().textContent()) ?? '') >= 3, 15_000);
    const during = await label();
    const openDuring = await thought.evaluate((d: PageElement) => d.open === true);
    if (during === 'Thinking…' || openDuring) {
      await ui().shot('ui-render-thought-thinking-again');
      problems.push(`while the next turn runs, the finished thought is labelled "${during}" and ${openDuring ? 'open' : 'closed'}`);
    }
    await waitForCount(footers(chat), turnsSoFar + 1, 'the next turn to end', 15_000);
    // Opening it shows the reasoning.
    await thought.locator('summary').click();
    await thought.getByText('The user wants to see reasoning.', { exact: false }).waitFor({ timeout: 5000 });
    await ui().shot('ui-render-thought-opened');
    assert.deepEqual(problems, [], 'the thought collapses and stops "Thinking…" once its answer starts');
  });

  test('a tool card goes Pending → In progress → Completed in its status badge', async () => {
    await send(chat, 'Run the slow tool [tool-steps ms=1500]');
    const card = conversation(chat).getByRole('article', { name: 'terminal: sleep 1.5' }).last();
    const badge = card.locator('.tool-status');
    await badge.getByText('Pending', { exact: true }).waitFor({ timeout: 15_000 });
    assert.match((await card.getAttribute('class')) ?? '', /\bstatus-pending\b/);
    await ui().shot('ui-render-tool-pending');
    await badge.getByText('In progress', { exact: true }).waitFor({ timeout: 5000 });
    assert.equal(await badge.locator('.codicon-modifier-spin').count(), 1, 'in progress spins');
    await ui().shot('ui-render-tool-in-progress');
    await badge.getByText('Completed', { exact: true }).waitFor({ timeout: 5000 });
    assert.equal(await badge.locator('.codicon-modifier-spin').count(), 0, 'completed does not spin');
    assert.match((await card.getAttribute('class')) ?? '', /\bstatus-completed\b/);
    await conversation(chat).getByText('The slow tool finished.').last().waitFor({ timeout: 10_000 });
    await ui().shot('ui-render-tool-completed');
  });

  test('a failing tool call shows Failed with its output; the other ten show Completed', async () => {
    await sendAndWaitForFooter(chat, 'Use every tool [tools]');
    const turn = await lastTurnEntries(chat);
    const cards = turn.filter((e) => hasClass(e, 'tool-card'));
    assert.equal(cards.length, 11, 'ten kinds and one failing call');
    const failed = cards.filter((c) => hasClass(c, 'status-failed'));
    const completed = cards.filter((c) => hasClass(c, 'status-completed'));
    assert.equal(failed.length, 1);
    assert.equal(completed.length, 10);
    const card = conversation(chat).getByRole('article', { name: 'terminal: npm run lint' }).last();
    await card.locator('.tool-status').getByText('Failed', { exact: true }).waitFor({ timeout: 5000 });
    // A failed card is expanded: its output is on screen.
    await card.getByText(/no-unused-vars/).waitFor({ timeout: 5000 });
    assert.equal(await conversation(chat).locator('.tool-card.status-pending, .tool-card.status-in_progress, .tool-status .codicon-modifier-spin').count(), 0, 'nothing left spinning');
    await card.scrollIntoViewIfNeeded();
    await ui().shot('ui-render-tool-failed');
  });

  test('a plan updated four times stays one checklist, updated in place, ending all completed', async () => {
    await conversation(chat).evaluate((log: PageElement) => {
      const w = globalThis as unknown as PageGlobalsOf<{ __planProgress: string[]; __planNodes: Set<PageElement>; __planObserver?: PageObserver }>;
      w.__planObserver?.disconnect();
      w.__planProgress = [];
      w.__planNodes = new Set();
      const old = new Set(Array.from(log.querySelectorAll('.entry-plan')));
      w.__planObserver = new w.MutationObserver(() => {
        for (const plan of Array.from(log.querySelectorAll('.entry-plan'))) {
          if (old.has(plan)) {
            continue;
          }
          w.__planNodes.add(plan);
          const progress = plan.querySelector('.plan-head .muted')?.textContent ?? '';
          if (w.__planProgress[w.__planProgress.length - 1] !== progress) {
            w.__planProgress.push(progress);
          }
        }
      });
      w.__planObserver.observe(log, { subtree: true, childList: true, characterData: true });
    });
    await sendAndWaitForFooter(chat, 'Make a plan [plan]');
    await conversation(chat).getByText('The plan is complete.').last().waitFor({ timeout: 10_000 });
    // What the observer saw while the turn was on screen (pinned to the bottom), read before the
    // transcript is scrolled through below: it is virtualized, and a row scrolled away and back is
    // built anew.
    const { progress, nodes } = await conversation(chat).evaluate(() => {
      const w = globalThis as unknown as { __planProgress: string[]; __planNodes: Set<unknown>; __planObserver?: { disconnect(): void } };
      w.__planObserver?.disconnect();
      return { progress: w.__planProgress, nodes: w.__planNodes.size };
    });
    const turn = await lastTurnEntries(chat);
    const plans = turn.filter((e) => hasClass(e, 'entry-plan'));
    assert.equal(plans.length, 1, 'exactly one plan in the turn');
    assert.equal(nodes, 1, 'one plan element for the whole turn (updated in place, never re-created)');
    assert.ok(progress.length >= 2, `the checklist changed while it was on screen: ${progress.join(' → ')}`);
    assert.equal(progress[progress.length - 1], '3 of 3 done');
    const plan = conversation(chat).getByRole('article', { name: 'Plan' }).last();
    assert.deepEqual(await plan.getByRole('listitem').evaluateAll((items: PageElement[]) => items.map((li) => li.className.includes('plan-completed'))), [true, true, true]);
    assert.deepEqual(
      (await plan.locator('.plan-text').allInnerTexts()).map((t) => t.trim()),
      ['Read the relevant files', 'Make the change', 'Run the tests'],
    );
    // The dock above the composer shows only unfinished plans.
    assert.equal(await chat.locator('.plan-dock').isVisible(), false, 'no dock for a finished plan');
    await ui().shot('ui-render-plan');
  });

  test('the usage gauge and the turn footer show the numbers the agent sent', async () => {
    // A fresh session, so the cumulative counters the agent reports are this turn's.
    await ui().command('Hermes: New Session');
    chat = await ui().chat();
    await conversation(chat).getByText(/Ask Scripted anything/).waitFor({ timeout: 30_000 });
    // Record what the cost label shows over the turn (the [usage] update comes mid-turn).
    await chat.locator('header.topbar').evaluate((header: PageElement) => {
      const w = globalThis as unknown as PageGlobalsOf<{ __costStates: string[]; __costObserver?: PageObserver }>;
      w.__costObserver?.disconnect();
      w.__costStates = [];
      w.__costObserver = new w.MutationObserver(() => {
        const cost = header.querySelector('.usage-cost');
        const state = cost === null || cost.hidden || cost.textContent === '' ? '(no cost)' : (cost.textContent ?? '');
        if (w.__costStates[w.__costStates.length - 1] !== state) {
          w.__costStates.push(state);
        }
      });
      w.__costObserver.observe(header, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const prompt = 'What does this cost? [usage]';
    const footer = await sendAndWaitForFooter(chat, prompt);
    const reply = await conversation(chat).getByText(/^Usage so far costs \$/).last().innerText();
    const stored = readAgentState(stateFile).find((s) => storedUserTexts(s).includes(prompt));
    assert.ok(stored !== undefined, 'the agent persisted the session');
    const u = stored.usage;
    assert.equal(reply.trim(), `Usage so far costs $${u.costUsd.toFixed(6)}.`);

    // Footer: this turn's tokens, as the prompt response reported them.
    const total = u.inputTokens + u.outputTokens + u.thoughtTokens;
    const footerText = await footer.innerText();
    assert.ok(footerText.includes('Completed'), footerText);
    assert.ok(
      footerText.includes(`${compact(u.inputTokens)} in · ${compact(u.outputTokens)} out · ${compact(total)} total tokens`),
      `footer "${footerText}" vs agent usage ${JSON.stringify(u)}`,
    );

    // Header gauge: used / size of the last usage_update (the agent's estimate: 10,000 + history / 4).
    let chars = 0;
    for (const t of stored.turns) {
      for (const upd of t.updates) {
        chars += JSON.stringify(upd).length;
      }
    }
    const used = 10_000 + Math.ceil(chars / 4);
    const meter = chat.getByRole('meter');
    await waitUntil('the gauge to show the last usage_update', async () => Number(await meter.getAttribute('value')) === used, 10_000);
    assert.equal(Number(await meter.getAttribute('max')), 131072);
    const usageText = (await chat.locator('.usage-text').innerText()).trim();
    assert.equal(usageText, `context ${compact(used)} / 131k`);
    const tip = (await chat.locator('.usage').getAttribute('title')) ?? '';
    assert.equal(tip.replace(/[^\d ]/g, '').replace(/\s+/g, ' ').trim(), `${used} 131072`, `tooltip: ${tip}`);
    await ui().shot('ui-render-usage');

    // Cost: the [usage] update carried the session's cumulative cost; the gauge shows it.
    const expectedCost = await chat.locator('body').evaluate(
      (_b, amount) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: amount < 1 ? 4 : 2 }).format(amount),
      u.costUsd,
    );
    const costStates = await chat.locator('body').evaluate(() => (globalThis as unknown as { __costStates: string[] }).__costStates);
    assert.ok(costStates.includes(expectedCost), `the [usage] update's cost was shown during the turn: ${costStates.join(' → ')}`);
    const cost = chat.locator('.usage-cost');
    // ACP: the cost is the session's cumulative cost; a later usage_update that omits it (the
    // end-of-turn context gauge) does not make it unknown.
    assert.ok(await cost.isVisible(), `the cost stays next to the gauge after the turn: ${costStates.join(' → ')}`);
    assert.equal((await cost.innerText()).trim(), expectedCost);
  });

  test('hostile Markdown executes nothing and links nowhere dangerous', async () => {
    const tabsBefore = await ui().page.locator('.tabs-container .tab').count();
    const payloads = [
      '<script>window.__pwned=1</script>',
      '<img src=x onerror="window.__pwned=2">',
      '[click](javascript:window.__pwned=3)',
      '<svg onload="window.__pwned=4"></svg>',
      '[cmd](command:workbench.action.quit)',
      '<iframe src="javascript:alert(1)">',
      '<a href="vscode://x">x</a>',
      '![x](https://example.com/x.png)',
    ];
    for (const p of payloads) {
      await sendAndWaitForFooter(chat, p);
    }
    const log = conversation(chat);
    // The transcript is virtualized (only the rows near the view have DOM): it is read a view at a
    // time from the top to the bottom, and what each view holds is checked.
    const report = await log.evaluate(async (root: PageElement) => {
      const w = globalThis as unknown as { __pwned?: unknown; requestAnimationFrame(cb: () => void): void; setTimeout(cb: () => void, ms: number): void };
      const doc = root.ownerDocument;
      const found = { texts: new Set<string>(), active: new Set<string>(), images: new Set<string>(), handlers: new Set<string>(), hrefs: new Set<string>(), blocked: new Set<string>() };
      const settled = async (): Promise<void> => {
        for (let i = 0; i < 400 && root.querySelectorAll('.entry-row.pending').length > 0; i++) {
          await new Promise((r) => w.setTimeout(() => r(undefined), 10));
        }
        await new Promise<void>((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => r())));
      };
      const read = (): void => {
        for (const e of Array.from(root.querySelectorAll('.entry'))) {
          found.texts.add((e.textContent ?? '').trim());
        }
        Array.from(root.querySelectorAll('script, iframe, frame, object, embed, svg, math, form, base, meta, link, style')).forEach((e) => found.active.add(e.outerHTML.slice(0, 120)));
        Array.from(root.querySelectorAll('img')).forEach((i) => found.images.add(i.getAttribute('src') ?? ''));
        Array.from(doc.querySelectorAll('*')).forEach((e) => Array.from(e.attributes).filter((a) => /^on/i.test(a.name)).forEach((a) => found.handlers.add(`${e.tagName}[${a.name}]`)));
        Array.from(root.querySelectorAll('[href], [src], [action], [formaction], [xlink\\:href]')).forEach((e) => found.hrefs.add(e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('action') ?? ''));
        Array.from(root.querySelectorAll('.md-blocked-link')).forEach((e) => found.blocked.add(`${e.tagName}:${e.textContent ?? ''}`));
      };
      root.scrollTop = 0;
      await settled();
      read();
      for (let step = 0; step < 2_000 && root.scrollTop + root.clientHeight < root.scrollHeight - 1; step++) {
        root.scrollTop += Math.max(50, root.clientHeight * 0.8);
        await settled();
        read();
      }
      root.scrollTop = root.scrollHeight;
      await settled();
      return {
        pwned: w.__pwned,
        texts: [...found.texts],
        active: [...found.active],
        images: [...found.images],
        handlers: [...found.handlers],
        hrefs: [...found.hrefs],
        blocked: [...found.blocked],
      };
    });
    // The raw HTML is shown as the text it is (echoed back by the agent as "You said: …").
    for (const echo of ['You said: <script>window.__pwned=1</script>', 'You said: <img src=x onerror="window.__pwned=2">', 'You said: <a href="vscode://x">x</a>']) {
      assert.ok(report.texts.some((t) => t.includes(echo)), `the echo "${echo}" is shown as text`);
    }
    assert.equal(report.pwned, undefined, 'no payload ran in the webview');
    assert.deepEqual(report.active, [], 'no active elements in the transcript');
    assert.deepEqual(report.images, [], 'no image was created (remote images become links)');
    assert.deepEqual(report.handlers, [], 'no inline event handler anywhere in the document');
    for (const href of report.hrefs) {
      assert.match(href, /^(?:https?:|mailto:|#$)/i, `only web links: ${href}`);
      assert.doesNotMatch(href, /^(?:javascript|command|vscode|data):/i);
    }
    // The dangerous links are plain text (in the prompt and in the echo).
    assert.ok(report.blocked.includes('SPAN:click') && report.blocked.includes('SPAN:cmd'), `blocked links: ${report.blocked.join(', ')}`);
    const imageLink = log.getByRole('link', { name: 'x', exact: true }).last();
    assert.equal(await imageLink.getAttribute('href'), 'https://example.com/x.png', 'the remote image is only a link');
    await ui().shot('ui-render-hostile');

    // Clicking the neutralised links does nothing.
    await log.locator('.md-blocked-link', { hasText: /^cmd$/ }).last().click();
    await log.locator('.md-blocked-link', { hasText: /^click$/ }).last().click();
    await ui().page.waitForTimeout(1000);
    assert.equal(await log.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned), undefined);
    assert.equal(await ui().page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned), undefined, 'nothing ran in the workbench either');
    await ui().page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await ui().page.locator('.tabs-container .tab').count(), tabsBefore, 'no editor opened');
    await waitForCount(chat.getByRole('textbox', { name: 'Message' }), 1, 'the chat to be alive');
    // The webview still works after the clicks (which scrolled the transcript up to the links:
    // back to the latest, where the new turn's footer will be).
    const jump = chat.getByRole('button', { name: 'Jump to latest' });
    if (await jump.isVisible()) {
      await jump.click();
    }
    await sendAndWaitForFooter(chat, 'still alive?');
    await log.getByText('You said: still alive?').waitFor({ timeout: 10_000 });

    // The webview document's own Content-Security-Policy.
    const csp = await chat.locator('meta[http-equiv="Content-Security-Policy"]').evaluateAll((metas: PageElement[]) => metas.map((m) => m.getAttribute('content') ?? ''));
    const ours = csp.find((c) => c.includes("script-src 'nonce-"));
    assert.ok(ours !== undefined, `a nonce CSP is served: ${JSON.stringify(csp)}`);
    assert.match(ours, /default-src 'none'/);
    assert.doesNotMatch(ours, /unsafe-inline|unsafe-eval/);
    assert.deepEqual(ui().nonLoopback, [], 'nothing was fetched from the network (no remote image)');
    await ui().shot('ui-render-hostile-after-clicks');
  });
});
