import * as dom from '../dom';
import * as strings from '../strings';
import * as text from '../text';

/**
 * The modules the lazily loaded scripts use from the bundle rather than carrying their own copy:
 * `dom` (the window the app is mounted in, the id counter) and `strings` (the page's translations)
 * hold state that must be one; `text` is shared to stay small. scripts/build.mjs resolves the
 * chunks' imports of these files to this object (the names must match `sharedModules` there).
 */
export const sharedKey = '__hermesShared';

export function shareWithChunks(): void {
  (globalThis as unknown as Record<string, unknown>)[sharedKey] = { dom, strings, text };
}
