/**
 * The files a patch text touches. Agents put patches in many places (Hermes' V4A `patch`
 * argument and multi-file diff items, Codex' `apply_patch` input, unified diffs in `rawInput`),
 * so any string of a request that looks like a patch is read for its file headers; a string that
 * looks like one but names no file is reported, and the request is then asked.
 */

/** `*** Begin Patch` / `*** Add File: x` … (V4A, used by Hermes and Codex' apply_patch). */
const v4aMarker = /^\*\*\* (?:Begin Patch|(?:Add|Update|Delete) File:|Move (?:to|File):)/m;
const v4aFile = /^\*\*\*\s+(?:Add|Update|Delete)\s+File:\s*(.*?)\s*$/gm;
const v4aMoveTo = /^\*\*\*\s+Move\s+to:\s*(.*?)\s*$/gm;
/** Hermes' older spelling: `*** Move File: a -> b`. */
const v4aMoveFile = /^\*\*\*\s+Move\s+File:\s*(.*?)\s*->\s*(.*?)\s*$/gm;

/** Unified diff headers: `--- a/x` + `+++ b/x`, and `diff --git a/x b/y`. */
const unifiedMarker = /^(?:--- \S.*\n\+\+\+ \S|diff --git )/m;
const unifiedHeader = /^(?:---|\+\+\+) (.+?)(?:\t.*)?$/gm;
const gitHeader = /^diff --git (\S+) (\S+)$/gm;
const renameHeader = /^(?:rename|copy) (?:from|to) (.+)$/gm;

export interface PatchPaths {
  readonly paths: readonly string[];
  /** The text looks like a patch but no file could be read from it. */
  readonly unreadable: boolean;
}

export function looksLikePatch(text: string): boolean {
  return v4aMarker.test(text) || unifiedMarker.test(text);
}

function all(re: RegExp, text: string, groups: readonly number[]): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(re)) {
    for (const g of groups) {
      const v = m[g];
      if (v !== undefined && v !== '') {
        out.push(v);
      }
    }
  }
  return out;
}

/** `a/src/x.ts` → `src/x.ts` (git's prefixes); `/dev/null` is no file. */
function gitPath(p: string): string | undefined {
  const unquoted = /^"(.*)"$/.exec(p)?.[1] ?? p;
  if (unquoted === '/dev/null') {
    return undefined;
  }
  return /^[ab]\//.test(unquoted) ? unquoted.slice(2) : unquoted;
}

export function patchPaths(text: string): PatchPaths {
  const paths: string[] = [];
  if (v4aMarker.test(text)) {
    paths.push(...all(v4aFile, text, [1]), ...all(v4aMoveTo, text, [1]), ...all(v4aMoveFile, text, [1, 2]));
  }
  if (unifiedMarker.test(text)) {
    const headers = [...all(unifiedHeader, text, [1]), ...all(gitHeader, text, [1, 2]), ...all(renameHeader, text, [1])];
    paths.push(...headers.map(gitPath).filter((p): p is string => p !== undefined));
  }
  const unique = [...new Set(paths)];
  return { paths: unique, unreadable: unique.length === 0 && looksLikePatch(text) };
}
