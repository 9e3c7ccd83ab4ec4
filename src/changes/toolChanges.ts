import type * as acp from '@agentclientprotocol/sdk';

/** A file a tool call says it changes (or will change), with its diff when it carries one. */
export interface FileMention {
  readonly path: string;
  readonly diff?: { readonly oldText: string | undefined; readonly newText: string };
}

/** Tool kinds whose locations name files the call changes (reads and searches name files too, but leave them alone). */
const changingKinds: ReadonlySet<acp.ToolKind> = new Set(['edit', 'delete', 'move']);

/**
 * The files a `tool_call` / `tool_call_update` (or a permission request's tool call) names as
 * changed: every `diff` content item, and the locations of edit/delete/move calls. `kind` is the
 * call's kind as known so far (updates often omit it). A multi-file patch (Hermes' V4A
 * `*** Begin Patch`) names its files in its text; those are returned without a diff.
 */
export function fileMentions(call: Pick<acp.ToolCallUpdate, 'content' | 'locations' | 'kind'>, kind?: acp.ToolKind): FileMention[] {
  const out = new Map<string, FileMention>();
  for (const c of call.content ?? []) {
    if (c.type !== 'diff') {
      continue;
    }
    if (c.newText.startsWith('*** Begin Patch')) {
      for (const p of patchPaths(c.newText)) {
        out.set(p, out.get(p) ?? { path: p });
      }
      continue;
    }
    if (/,\s*\//.test(c.path)) {
      // Several paths joined in one diff (Hermes): the paths without a diff.
      for (const p of c.path.split(/,\s*/)) {
        if (p !== '') {
          out.set(p, out.get(p) ?? { path: p });
        }
      }
      continue;
    }
    out.set(c.path, { path: c.path, diff: { oldText: c.oldText ?? undefined, newText: c.newText } });
  }
  const k = call.kind ?? kind;
  if (k !== undefined && k !== null && changingKinds.has(k)) {
    for (const loc of call.locations ?? []) {
      if (!out.has(loc.path)) {
        out.set(loc.path, { path: loc.path });
      }
    }
  }
  return [...out.values()];
}

/** Paths named by a V4A patch (`*** Update File: p`, `*** Add File: p`, `*** Delete File: p`, `*** Move to: p`). */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Update File|Add File|Delete File|Move to): (.+)$/gm)) {
    const p = m[1]?.trim();
    if (p !== undefined && p !== '' && !paths.includes(p)) {
      paths.push(p);
    }
  }
  return paths;
}

/**
 * The file's text before a tool call's change, from what is on disk now and the call's diff:
 * the diff may arrive before the agent writes (disk = before) or after (disk = after). A whole
 * file diff already applied gives `oldText`; a snippet already applied is put back in place.
 * Undefined: the file did not exist. `certain` is false when the disk matches neither side.
 */
export function textBefore(disk: string | undefined, diff: FileMention['diff']): { readonly text: string | undefined; readonly certain: boolean } {
  if (diff === undefined) {
    return { text: disk, certain: true };
  }
  const { oldText, newText } = diff;
  if (disk === undefined) {
    // Not written yet (a new file), or deleted already: nothing to restore but the diff's old side.
    return { text: oldText === undefined || oldText === '' ? undefined : oldText, certain: oldText === undefined || oldText === '' };
  }
  if (oldText !== undefined && disk === oldText) {
    return { text: disk, certain: true };
  }
  if (disk === newText && newText !== oldText) {
    // Already written. ACP's absent oldText means a new file; Hermes sends "" for one.
    return { text: oldText === undefined || oldText === '' ? undefined : oldText, certain: true };
  }
  if (oldText !== undefined && oldText !== '' && newText !== '' && once(disk, newText) && !disk.includes(oldText)) {
    // A snippet (Claude, opencode) already applied: put the old snippet back.
    const at = disk.indexOf(newText);
    return { text: disk.slice(0, at) + oldText + disk.slice(at + newText.length), certain: true };
  }
  if (oldText !== undefined && oldText !== '' && disk.includes(oldText)) {
    return { text: disk, certain: true };
  }
  return { text: disk, certain: false };
}

function once(text: string, needle: string): boolean {
  const at = text.indexOf(needle);
  return at >= 0 && !text.includes(needle, at + 1);
}
