import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkFetchUrl, fetchBytes } from './download';

/** An icon as two files, for light and dark themes. */
export interface IconFiles {
  readonly light: string;
  readonly dark: string;
}

const maxIconBytes = 64 * 1024;
// Registry icons are monochrome with `currentColor` (build_registry.py checks it). Shown as an
// image, currentColor is black: the theme colour is substituted per variant instead.
const themeColours = { light: '#424242', dark: '#c5c5c5' } as const;

function looksLikeSvg(text: string): boolean {
  return /<svg[\s>]/i.test(text.slice(0, 4096)) && !/<script|<foreignObject/i.test(text);
}

/**
 * The icon at `url` as cached light/dark SVG files in `dir` (fetched once, keyed by URL), or
 * undefined when it cannot be had quickly — the picker then shows a generic icon.
 */
export async function iconFiles(url: string, dir: string, timeoutMs = 5_000): Promise<IconFiles | undefined> {
  const key = createHash('sha256').update(url).digest('hex').slice(0, 16);
  const files: IconFiles = { light: path.join(dir, `${key}-light.svg`), dark: path.join(dir, `${key}-dark.svg`) };
  if ((await stat(files.dark).catch(() => undefined)) !== undefined) {
    return files;
  }
  let text: string;
  try {
    const parsed = checkFetchUrl(url, { allowFile: true });
    text =
      parsed.protocol === 'file:'
        ? (await readFile(fileURLToPath(parsed))).subarray(0, maxIconBytes + 1).toString('utf8')
        : (await fetchBytes(url, { maxBytes: maxIconBytes, idleTimeoutMs: timeoutMs })).toString('utf8');
  } catch {
    return undefined;
  }
  if (text.length > maxIconBytes || !looksLikeSvg(text)) {
    return undefined;
  }
  await mkdir(dir, { recursive: true });
  await writeFile(files.light, text.replace(/currentColor/gi, themeColours.light));
  await writeFile(files.dark, text.replace(/currentColor/gi, themeColours.dark));
  return files;
}
