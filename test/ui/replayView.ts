import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { HostMessage } from '../../src/protocol/webviewProtocol';
import type { SessionController } from '../../src/session/sessionController';
import type { ViewContext } from '../../src/session/viewProjection';
import type { ChatSession } from '../../src/app/chatSession';
import { WebviewChannel, type WebviewLike } from '../../src/views/chat/webviewChannel';
import type { Disposable } from '../../src/util/disposable';
import { repoRoot } from '../support/paths';
import type { PageGlobals } from './pageTypes';

/** The harness and fake-host modules are plain ESM; these are the parts used here. */
export interface BrowserModule {
  launchBrowser(o?: { artifactsDir?: string; viewport?: { width: number; height: number } }): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }>;
  screenshot(page: Page, name: string, o?: { fullPage?: boolean }): Promise<string>;
}
export interface FakeHostModule {
  startFakeHost(o?: { port?: number }): Promise<{ url: string; origin: string; close(): Promise<void> }>;
}

export async function importEsm<T>(...segments: string[]): Promise<T> {
  return (await import(path.join(repoRoot, ...segments))) as T;
}

/** A new page of the fake host, once its webview has said `webview/ready`. */
export async function openFakeHostPage(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => ((globalThis as unknown as { __posted?: { type: string }[] }).__posted ?? []).some((m) => m.type === 'webview/ready'));
  return page;
}

/** Two animation frames: what changed has been laid out and painted (and resize observers have run). */
export function twoFrames(page: Page): Promise<void> {
  return page.evaluate(() => {
    const w = globalThis as unknown as PageGlobals;
    return new Promise<void>((r) => w.requestAnimationFrame(() => w.requestAnimationFrame(() => r())));
  });
}

/**
 * The page side of `vscode.Webview` for the fake host: host → webview messages are delivered in
 * order with `window.__deliver`, and what the webview posts (`window.__posted`) is polled and
 * handed to the listeners, like VS Code's `onDidReceiveMessage`.
 */
export class PageWebview implements WebviewLike, Disposable {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners = new Set<(raw: unknown) => void>();
  private read = 0;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Every message the webview posted, in order. */
  readonly posted: unknown[] = [];
  /** Every message delivered to the webview, in order. */
  readonly delivered: HostMessage[] = [];
  /** Deliveries that failed (the page's `__deliver` threw, or the page went away), with why. */
  readonly deliveryErrors: string[] = [];

  constructor(readonly page: Page) {
    this.poll();
  }

  postMessage(message: HostMessage): Promise<boolean> {
    const copy = JSON.parse(JSON.stringify(message)) as HostMessage;
    const done = this.queue.then(async () => {
      if (this.disposed) {
        return false;
      }
      await this.page.evaluate((m) => (globalThis as unknown as { __deliver(m: unknown): void }).__deliver(m), copy);
      this.delivered.push(copy);
      return true;
    });
    const settled = done.catch((e: unknown) => {
      this.deliveryErrors.push(`${copy.type}: ${String(e).slice(0, 200)}`);
      return false;
    });
    this.queue = settled;
    return settled;
  }

  onDidReceiveMessage(listener: (raw: unknown) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Resolves once everything posted so far has been delivered. */
  async idle(): Promise<void> {
    await this.queue;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
  }

  private poll(): void {
    this.timer = setTimeout(() => {
      void this.page
        .evaluate((from) => ((globalThis as unknown as { __posted?: unknown[] }).__posted ?? []).slice(from), this.read)
        .then(
          (fresh) => {
            this.read += fresh.length;
            for (const m of fresh) {
              this.posted.push(m);
              for (const l of this.listeners) {
                l(m);
              }
            }
          },
          () => undefined,
        )
        .finally(() => {
          if (!this.disposed) {
            this.poll();
          }
        });
    }, 25);
  }
}

/** A permission prompt as the webview showed it while it was pending. */
export interface SeenPermission {
  readonly requestId: string;
  readonly title: string;
  readonly buttons: string[];
  /** What the recorded client answered: an option id, or `cancelled`. */
  readonly recorded: string;
  /** What the webview posted when its button was clicked (`permission/choose`). */
  posted?: { requestId: string; optionId: string };
}

/**
 * One session controller shown in one fake-host page through the REAL `WebviewChannel`
 * (snapshot on `webview/ready`, then coalesced `session/patch`es with consecutive `seq`). Permission
 * answers the recorded client gave are given by clicking the webview's own buttons.
 */
export class ReplayView implements Disposable {
  readonly webview: PageWebview;
  readonly channel: WebviewChannel;
  readonly permissions: SeenPermission[] = [];
  readonly consoleErrors: string[] = [];
  private readonly answering = new Set<string>();
  private readonly chooseOriginal: (requestId: string, optionId: string, answeredBy?: string) => boolean;
  private readonly dismissOriginal: (requestId: string) => boolean;
  private failures: string[] = [];

  constructor(
    readonly page: Page,
    readonly controller: SessionController,
    options: { agentName: string; workspace: string; onPermissionShown?: (view: ReplayView, seen: SeenPermission) => Promise<void> },
  ) {
    page.on('console', (m) => {
      if (m.type() === 'error') {
        this.consoleErrors.push(m.text());
      }
    });
    page.on('pageerror', (e) => this.consoleErrors.push(String(e)));
    this.webview = new PageWebview(page);
    const context = (): ViewContext => ({
      agentName: options.agentName,
      readOnly: false,
      acceptsImages: true,
      pendingPermissions: controller.pendingPermissions.length,
      now: Date.now(),
      relativePath: (p) => (path.isAbsolute(p) && p.startsWith(options.workspace + path.sep) ? path.relative(options.workspace, p) : p),
    });
    // The channel only needs the chat's controller and change event.
    const chat = { controller, onDidChange: controller.onDidChange } as unknown as ChatSession;
    this.channel = new WebviewChannel(this.webview, {
      context,
      flushMs: 16,
      onMessage: (message) => {
        if (message.type === 'permission/choose') {
          const seen = this.permissions.find((p) => p.requestId === message.requestId);
          if (seen !== undefined) {
            seen.posted = { requestId: message.requestId, optionId: message.optionId };
          }
          this.answering.delete(message.requestId);
          this.chooseOriginal(message.requestId, message.optionId);
        }
      },
    });
    this.chooseOriginal = controller.choosePermission.bind(controller);
    this.dismissOriginal = controller.dismissPermission.bind(controller);
    const descriptor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(controller) as object, 'pendingPermissions');
    const allPending = (): SessionController['pendingPermissions'] => (descriptor?.get?.call(controller) ?? []) as SessionController['pendingPermissions'];
    const answering = this.answering;
    // The fixture driver answers through the controller; route its answers through the webview,
    // and hide requests being answered there from its search for the next pending one.
    Object.defineProperty(controller, 'pendingPermissions', {
      configurable: true,
      get: () => allPending().filter((p) => !answering.has(p.requestId)),
    });
    (controller as { choosePermission: SessionController['choosePermission'] }).choosePermission = (requestId, optionId) => {
      this.answering.add(requestId);
      void this.answerInWebview(requestId, optionId, options.onPermissionShown).catch((e: unknown) => {
        this.failures.push(`permission ${requestId}: ${String(e)}`);
        this.answering.delete(requestId);
        this.chooseOriginal(requestId, optionId);
      });
      return true;
    };
    (controller as { dismissPermission: SessionController['dismissPermission'] }).dismissPermission = (requestId) => {
      this.answering.add(requestId);
      void this.answerInWebview(requestId, 'cancelled', options.onPermissionShown)
        .catch((e: unknown) => this.failures.push(`permission ${requestId}: ${String(e)}`))
        .finally(() => {
          this.answering.delete(requestId);
          this.dismissOriginal(requestId);
        });
      return true;
    };
    this.channel.bind(chat);
  }

  /** Problems met while answering permissions in the webview. */
  get errors(): readonly string[] {
    return this.failures;
  }

  /** Sends what is pending now and waits until the webview has it and has painted it. */
  async settle(): Promise<void> {
    this.channel.flush();
    await this.webview.idle();
    await twoFrames(this.page);
  }

  dispose(): void {
    this.channel.dispose();
    this.webview.dispose();
  }

  /**
   * Waits for the pending prompt in the webview, records its buttons, then clicks the option the
   * recorded client chose; the webview's `permission/choose` reaches the controller through the
   * channel. A recorded `cancelled` has no button: it is answered after the prompt was seen.
   */
  private async answerInWebview(
    requestId: string,
    optionId: string,
    onShown: ((view: ReplayView, seen: SeenPermission) => Promise<void>) | undefined,
  ): Promise<void> {
    const entry = this.controller.state.entries.find((e) => e.kind === 'tool' && e.permission?.requestId === requestId);
    const title = entry?.kind === 'tool' ? entry.title : '';
    const option = entry?.kind === 'tool' ? entry.permission?.options.find((o) => o.optionId === optionId) : undefined;
    const offered = entry?.kind === 'tool' ? (entry.permission?.options.length ?? 0) : 0;
    // The prompt inside this request's own card (an earlier card may still show its prompt until
    // the webview gets the patch that answered it).
    const card = this.page.locator(`[data-entry-id="${entry?.id ?? '(none)'}"]`);
    const group = card.getByRole('group', { name: /^Permission requested/ });
    await group.getByRole('button').first().waitFor({ state: 'visible', timeout: 10_000 });
    // One button per offered option (read once all are there).
    const shownBy = Date.now() + 10_000;
    while ((await group.getByRole('button').count()) < offered && Date.now() < shownBy) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const buttons = (await group.getByRole('button').locator('.label').allTextContents()).map((t) => t.trim());
    const seen: SeenPermission = { requestId, title, buttons, recorded: optionId };
    this.permissions.push(seen);
    await onShown?.(this, seen);
    if (option === undefined) {
      return; // cancelled: the caller answers it
    }
    await group.getByRole('button', { name: option.name, exact: true }).click();
    const deadline = Date.now() + 10_000;
    while (seen.posted === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    if (seen.posted === undefined) {
      throw new Error(`the webview posted no permission/choose for ${requestId}`);
    }
  }
}
