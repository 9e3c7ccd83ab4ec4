import type { Page } from 'playwright-core';
import type { UiSession } from './support';
import { waitUntil } from './uiHelpers';

/**
 * Runs a palette command that opens a quick pick of its own (so the widget stays open). The palette
 * lists the commands known when it opens: until the extension's contributions are in, reopen it.
 */
export async function paletteCommand(page: Page, title: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const row = widget.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: title }) }).first();
  await waitUntil(`"${title}" in the command palette`, async () => {
    await page.keyboard.press('F1');
    await widget.locator('.quick-input-box input').first().fill(`>${title}`);
    if (await row.waitFor({ timeout: 3_000 }).then(() => true, () => false)) {
      return true;
    }
    await page.keyboard.press('Escape');
    return false;
  }, 60_000, 500);
  await row.click();
}

/**
 * Waits for a notification in the notification center (headless, the workbench files them there
 * without a toast), then clears the center.
 */
export async function notice(vs: UiSession, text: RegExp): Promise<void> {
  const item = vs.page.locator('.notifications-center .notification-list-item').filter({ hasText: text }).first();
  await waitUntil(`the notification ${String(text)}`, async () => {
    await vs.command('Notifications: Show Notifications');
    return item.waitFor({ timeout: 2_000 }).then(() => true, () => false);
  }, 60_000, 500);
  await vs.shot(`registry-notice-${String(text).replace(/\W+/g, '-').slice(1, 40)}`);
  await vs.command('Notifications: Clear All Notifications');
}

/** The registry pick's rows, by label. */
export function registryRow(page: Page, label: string): ReturnType<Page['locator']> {
  return page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${label}\\s*$`) }) });
}

