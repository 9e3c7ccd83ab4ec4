/**
 * Instruments the real workbench for the UI hardening suites: which frames hold the chat, what the
 * chat's webview posts to the workbench (link clicks, messages to the extension), Content-Security-
 * Policy violations, a DOM audit of everything the chat shows, and the workbench's visible state
 * (so a command that ran — a new editor, a terminal, a hidden side bar — is seen).
 */
import type { Frame, FrameLocator, Locator, Page } from 'playwright-core';
import { footers, pinnedWebview, send, sendAndWaitForFooter } from './uiHelpers';

/** Sends a prompt once the composer accepts it (a big payload may keep the previous turn busy). */
export function sendPrompt(chat: FrameLocator, text: string): Promise<void> {
  return send(chat, text, 120_000);
}

export { footers as turnFooters };

/** Sends a prompt and waits for its turn footer; returns it. */
export function sendAndWaitForTurn(chat: FrameLocator, text: string, timeoutMs = 60_000): Promise<Locator> {
  return sendAndWaitForFooter(chat, text, timeoutMs, 120_000);
}

/** The chat's document (`inner`) and the VS Code webview host page around it (`outer`). */
export interface ChatFrames {
  readonly outer: Frame;
  readonly inner: Frame;
}

/** The frames of the visible Hermes chat (the side bar's, unless `index` picks another). */
export async function chatFrames(page: Page, timeoutMs = 30_000): Promise<ChatFrames> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const f of page.frames()) {
      const outer = f.parentFrame();
      if (outer === null || outer === page.mainFrame()) {
        continue;
      }
      const title = await f.title().catch(() => '');
      if (title === 'Hermes') {
        return { outer, inner: f };
      }
    }
    if (Date.now() > deadline) {
      throw new Error('no Hermes chat frame');
    }
    await page.waitForTimeout(200);
  }
}

/** What the probes recorded since they were installed. */
export interface ProbeRecord {
  /** `did-click-link` messages (the workbench opens these URIs). */
  readonly clickedLinks: string[];
  /** Messages the chat posted to the extension (their `type`). */
  readonly hostMessages: string[];
  /** `securitypolicyviolation` events in the chat document. */
  readonly cspViolations: string[];
}

interface OuterGlobals {
  __hermesProbe?: { clickedLinks: string[]; hostMessages: string[] };
  MessagePort: { prototype: { postMessage: (this: unknown, message: unknown, ...rest: unknown[]) => void } };
}

interface InnerGlobals {
  __hermesCsp?: string[];
  document: { addEventListener(type: string, cb: (e: { violatedDirective: string; blockedURI: string; sample?: string }) => void): void };
}

/**
 * Wraps `MessagePort.postMessage` in the webview host page: every message the chat sends to the
 * workbench goes through its one port (VS Code's `hostMessaging`), link clicks included. In the
 * chat document, records CSP violations. Idempotent.
 */
export async function installProbes(frames: ChatFrames): Promise<void> {
  await frames.outer.evaluate(() => {
    const w = globalThis as unknown as OuterGlobals;
    if (w.__hermesProbe !== undefined) {
      return;
    }
    const probe = { clickedLinks: [] as string[], hostMessages: [] as string[] };
    w.__hermesProbe = probe;
    const original = w.MessagePort.prototype.postMessage;
    w.MessagePort.prototype.postMessage = function (this: unknown, message: unknown, ...rest: unknown[]): void {
      try {
        const m = message as { channel?: string; data?: { uri?: string; message?: { type?: string } } } | null;
        if (m?.channel === 'did-click-link') {
          probe.clickedLinks.push(String(m.data?.uri ?? ''));
        } else if (m?.channel === 'onmessage') {
          const inner = m.data?.message as { type?: string; message?: { type?: string } } | undefined;
          probe.hostMessages.push(String(inner?.type ?? inner?.message?.type ?? 'unknown'));
        }
      } catch {
        // recording must never break the webview
      }
      original.call(this, message, ...rest);
    };
  });
  await frames.inner.evaluate(() => {
    const w = globalThis as unknown as InnerGlobals;
    if (w.__hermesCsp !== undefined) {
      return;
    }
    const seen: string[] = [];
    w.__hermesCsp = seen;
    w.document.addEventListener('securitypolicyviolation', (e) => {
      seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample ?? ''}`.trim());
    });
  });
}

export async function readProbes(frames: ChatFrames): Promise<ProbeRecord> {
  const outer = await frames.outer.evaluate(() => {
    const p = (globalThis as unknown as OuterGlobals).__hermesProbe;
    return { clickedLinks: [...(p?.clickedLinks ?? [])], hostMessages: [...(p?.hostMessages ?? [])] };
  });
  const cspViolations = await frames.inner.evaluate(() => [...((globalThis as unknown as InnerGlobals).__hermesCsp ?? [])]);
  return { ...outer, cspViolations };
}

/** The parts of the workbench a command would visibly change. */
export interface WorkbenchState {
  readonly tabs: string[];
  readonly panelVisible: boolean;
  readonly terminals: number;
  readonly sideBarVisible: boolean;
  readonly quickInputVisible: boolean;
  readonly dialogs: number;
  readonly url: string;
}

export async function workbenchState(page: Page): Promise<WorkbenchState> {
  return {
    tabs: (await page.locator('.tabs-container .tab').allTextContents()).map((t) => t.trim()),
    panelVisible: await page.locator('.part.panel').first().isVisible().catch(() => false),
    terminals: await page.locator('.terminal-wrapper').count(),
    sideBarVisible: await page.locator('.part.sidebar').first().isVisible().catch(() => false),
    quickInputVisible: await page.locator('.quick-input-widget').first().isVisible().catch(() => false),
    dialogs: await page.locator('.monaco-dialog-box').count(),
    url: page.url(),
  };
}

/** The differences between two workbench states, in words ("" when none). */
export function stateChanges(before: WorkbenchState, after: WorkbenchState): string[] {
  const out: string[] = [];
  if (before.tabs.join('\n') !== after.tabs.join('\n')) {
    out.push(`editor tabs ${JSON.stringify(before.tabs)} → ${JSON.stringify(after.tabs)}`);
  }
  if (before.panelVisible !== after.panelVisible) {
    out.push(`panel ${before.panelVisible ? 'hidden' : 'shown'}`);
  }
  if (before.terminals !== after.terminals) {
    out.push(`terminals ${before.terminals} → ${after.terminals}`);
  }
  if (before.sideBarVisible !== after.sideBarVisible) {
    out.push(`side bar ${after.sideBarVisible ? 'shown' : 'hidden'}`);
  }
  if (before.quickInputVisible !== after.quickInputVisible) {
    out.push(`quick input ${after.quickInputVisible ? 'opened' : 'closed'}`);
  }
  if (before.dialogs !== after.dialogs) {
    out.push(`dialogs ${before.dialogs} → ${after.dialogs}`);
  }
  if (before.url !== after.url) {
    out.push(`workbench navigated ${before.url} → ${after.url}`);
  }
  return out;
}

/** One thing the DOM audit found (element path and what is wrong). */
export interface AuditFinding {
  readonly where: string;
  readonly what: string;
}

interface AuditNode {
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly className: unknown;
  readonly attributes: ArrayLike<{ readonly name: string; readonly value: string }>;
  readonly parentElement: AuditNode | null;
  getAttribute(name: string): string | null;
}

interface AuditLog {
  scrollTop: number;
  readonly clientHeight: number;
  readonly scrollHeight: number;
  querySelector(s: string): AuditLog | null;
  querySelectorAll(s: string): ArrayLike<unknown>;
  getBoundingClientRect(): { readonly top: number; readonly bottom: number };
}

/**
 * Audits everything under the chat's `#app`: no active or foreign elements (script, iframe, object,
 * embed, svg, math, form, base, meta, link, style, template, media…), no event-handler or style
 * attributes, and no URL attribute other than web links, `#` and data: images. The transcript is
 * virtualized (issue 43: only the entries near the view have DOM), so the audit scrolls it from the
 * top to the bottom a view at a time and audits every element each view holds (`elements` counts
 * each element once, `views` the views read); then it leaves the transcript at the bottom.
 */
export async function auditChatDom(inner: Frame): Promise<{ findings: AuditFinding[]; elements: number; views: number }> {
  return inner.evaluate(async () => {
    const g = globalThis as unknown as {
      document: { getElementById(id: string): { querySelectorAll(s: string): ArrayLike<AuditNode>; querySelector(s: string): AuditLog | null } | null };
      requestAnimationFrame(cb: () => void): void;
      setTimeout(cb: () => void, ms: number): void;
    };
    const app = g.document.getElementById('app');
    const findings: AuditFinding[] = [];
    if (app === null) {
      return { findings: [{ where: 'document', what: 'no #app' }], elements: 0, views: 0 };
    }
    const banned = new Set([
      'script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'svg', 'math', 'form', 'base', 'meta', 'link', 'style',
      'template', 'noscript', 'video', 'audio', 'source', 'track', 'marquee', 'portal', 'html', 'head', 'body', 'dialog', 'canvas', 'picture', 'slot',
    ]);
    const urlAttrs = new Set(['href', 'src', 'xlink:href', 'action', 'formaction', 'srcdoc', 'data', 'poster', 'background', 'srcset', 'ping', 'codebase', 'cite', 'longdesc', 'lowsrc', 'dynsrc']);
    const describe = (e: AuditNode): string => {
      const parts: string[] = [];
      for (let n: AuditNode | null = e; n !== null && parts.length < 4; n = n.parentElement) {
        const cls = typeof n.className === 'string' && n.className !== '' ? `.${n.className.trim().split(/\s+/).slice(0, 2).join('.')}` : '';
        parts.unshift(`${n.localName}${cls}`);
      }
      return parts.join(' > ');
    };
    const audited = new WeakSet<AuditNode>();
    const seen = new Set<string>();
    let elements = 0;
    let textareas = 0;
    const found = (f: AuditFinding): void => {
      const key = `${f.where}\u0000${f.what}`;
      if (!seen.has(key)) {
        seen.add(key);
        findings.push(f);
      }
    };
    const audit = (): void => {
      const all = Array.from(app.querySelectorAll('*'));
      textareas = Math.max(textareas, all.filter((e) => e.localName === 'textarea').length);
      for (const e of all) {
        if (audited.has(e)) {
          continue;
        }
        audited.add(e);
        elements++;
        check(e);
      }
    };
    const check = (e: AuditNode): void => {
      const name = e.localName;
      if (banned.has(name) || (e.namespaceURI !== null && e.namespaceURI !== 'http://www.w3.org/1999/xhtml')) {
        found({ where: describe(e), what: `<${name}> (${e.namespaceURI ?? 'no namespace'})` });
      }
      if (name === 'input' && e.getAttribute('type') !== 'checkbox') {
        found({ where: describe(e), what: `input type=${e.getAttribute('type') ?? '(none)'}` });
      }
      for (const a of Array.from(e.attributes)) {
        const attr = a.name.toLowerCase();
        if (attr.startsWith('on')) {
          found({ where: describe(e), what: `event handler ${attr}="${a.value.slice(0, 80)}"` });
        } else if (attr === 'style' && a.value.trim() !== '' && name !== 'textarea') {
          // (the composer sizes itself through CSSOM; an empty style attribute is inert)
          found({ where: describe(e), what: `style="${a.value.slice(0, 80)}"` });
        } else if (urlAttrs.has(attr)) {
          const v = a.value.trim();
          const ok =
            (attr === 'href' && /^(?:https?:|mailto:|#$)/i.test(v)) ||
            (attr === 'src' && name === 'img' && /^data:image\/(?:png|jpe?g|gif|webp|bmp|avif);base64,/i.test(v));
          if (!ok) {
            found({ where: describe(e), what: `${attr}="${v.slice(0, 100)}"` });
          }
        }
      }
    };
    // The transcript a view at a time, top to bottom, waiting each time for the rows the host fills in.
    const settled = async (): Promise<void> => {
      for (let i = 0; i < 400 && (log?.querySelectorAll('.entry-row.pending').length ?? 0) > 0; i++) {
        await new Promise((r) => g.setTimeout(() => r(undefined), 10));
      }
      await new Promise<void>((r) => g.requestAnimationFrame(() => r()));
      await new Promise<void>((r) => g.requestAnimationFrame(() => r()));
    };
    const log = app.querySelector('[role="log"]');
    let views = 1;
    if (log !== null) {
      log.scrollTop = 0;
      await settled();
    }
    audit();
    for (let step = 0; log !== null && step < 10_000 && log.scrollTop + log.clientHeight < log.scrollHeight - 1; step++) {
      // A row that starts in view is in the DOM whole, however tall (a huge message): on to its end in one step.
      const viewTop = log.getBoundingClientRect().top;
      const ends = Array.from(log.querySelectorAll('.entry-row') as ArrayLike<AuditLog>).map((r) => r.getBoundingClientRect()).filter((b) => b.top < viewTop + log.clientHeight);
      const hugeEnd = Math.max(0, ...ends.map((b) => b.bottom - viewTop - log.clientHeight));
      log.scrollTop += Math.max(50, log.clientHeight * 0.8, hugeEnd);
      await settled();
      audit();
      views++;
    }
    if (log !== null) {
      log.scrollTop = log.scrollHeight;
      await settled();
      audit();
    }
    if (textareas > 1) {
      findings.push({ where: '#app', what: `${textareas} textareas (only the composer expected)` });
    }
    return { findings, elements, views };
  });
}

/** The Content-Security-Policy the chat document was served with, and the nonces of its scripts. */
export async function servedPolicy(inner: Frame): Promise<{ policies: string[]; scripts: { nonce: string; src: string; type: string; text: string }[]; html: string }> {
  return inner.evaluate(() => {
    const g = globalThis as unknown as {
      document: {
        querySelectorAll(s: string): ArrayLike<{ getAttribute(n: string): string | null; nonce?: string; textContent: string | null }>;
        documentElement: { outerHTML: string };
      };
    };
    const policies = Array.from(g.document.querySelectorAll('meta[http-equiv="Content-Security-Policy" i]')).map((m) => m.getAttribute('content') ?? '');
    const scripts = Array.from(g.document.querySelectorAll('script')).map((s) => ({ nonce: s.nonce ?? '', src: s.getAttribute('src') ?? '', type: s.getAttribute('type') ?? '', text: (s.textContent ?? '').slice(0, 4000) }));
    return { policies, scripts, html: g.document.documentElement.outerHTML.slice(0, 4000) };
  });
}

/** Directive → sources of a policy string. */
export function parsePolicy(policy: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name !== undefined && name !== '') {
      out.set(name.toLowerCase(), sources);
    }
  }
  return out;
}

/**
 * Tries, from inside the chat document, what the CSP must refuse: an inline script without the
 * nonce, `eval` (inside a script that carries the nonce, which must itself run: the positive
 * control), a remote image and an inline style attribute. Returns what actually happened.
 */
export async function probeCspEnforcement(
  inner: Frame,
  nonce: string,
): Promise<{ inlineScriptRan: boolean; noncedScriptRan: boolean; evalResult: 'ran' | 'refused' | 'not tried'; violations: string[] }> {
  return inner.evaluate(async (n) => {
    interface El {
      textContent: string | null;
      setAttribute(name: string, v: string): void;
      remove(): void;
    }
    const g = globalThis as unknown as {
      __hermesCsp?: string[];
      __hermesInlineRan?: boolean;
      __hermesNoncedRan?: boolean;
      __hermesEvalRan?: boolean;
      document: { createElement(t: string): El; body: { appendChild(e: El): void } };
      setTimeout(cb: () => void, ms: number): void;
    };
    const before = g.__hermesCsp?.length ?? 0;
    const inline = g.document.createElement('script');
    inline.textContent = 'globalThis.__hermesInlineRan = true;';
    g.document.body.appendChild(inline);
    const nonced = g.document.createElement('script');
    nonced.setAttribute('nonce', n);
    // eval in a task of its own: code on the stack of a DevTools-protocol evaluation is exempt from the CSP's eval check.
    nonced.textContent =
      "globalThis.__hermesNoncedRan = true; setTimeout(function () { try { eval('1 + 1'); globalThis.__hermesEvalRan = true; } catch (e) { globalThis.__hermesEvalRan = false; } }, 0);";
    g.document.body.appendChild(nonced);
    const img = g.document.createElement('img');
    img.setAttribute('src', 'https://xss-beacon.invalid/csp-probe.png');
    g.document.body.appendChild(img);
    const styled = g.document.createElement('div');
    styled.setAttribute('style', 'color: red');
    g.document.body.appendChild(styled);
    await new Promise<void>((r) => g.setTimeout(r, 500));
    for (const e of [inline, nonced, img, styled]) {
      e.remove();
    }
    return {
      inlineScriptRan: g.__hermesInlineRan === true,
      noncedScriptRan: g.__hermesNoncedRan === true,
      evalResult: g.__hermesEvalRan === true ? ('ran' as const) : g.__hermesEvalRan === false ? ('refused' as const) : ('not tried' as const),
      violations: (g.__hermesCsp ?? []).slice(before),
    };
  }, nonce);
}

/**
 * The chat's frame locator (like support.ts `chat()`), with a patient wait: a chat shown again
 * re-creates its webview and re-renders the whole transcript, which takes a while when the
 * transcript holds megabytes of hostile content.
 */
export async function patientChat(page: Page, timeoutMs = 120_000): Promise<FrameLocator> {
  const deadline = Date.now() + timeoutMs;
  const outer = page.locator('iframe.webview.ready');
  for (;;) {
    const n = await outer.count();
    for (let i = 0; i < n; i++) {
      const inner = await pinnedWebview(page, outer.nth(i));
      const title = await inner.locator('title').first().textContent({ timeout: 2000 }).catch(() => null);
      if (title?.trim() === 'Hermes') {
        return inner;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`no Hermes chat webview within ${timeoutMs} ms`);
    }
    await page.waitForTimeout(500);
  }
}
