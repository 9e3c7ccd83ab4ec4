import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../util/json';
import { looksLikePatch, patchPaths } from './patchPaths';
import type { TargetAccess } from './types';

/**
 * Everything a permission request names, before any file system look-up: every path in the shapes
 * real agents send, every command, and what could not be read. Sources, as recorded in
 * test/fixtures and read in the agents' public code:
 * - Hermes: `rawInput {tool, arguments:{path, content | old_string/new_string | mode:"patch", patch}}`,
 *   diff items with full texts, a V4A multi-file patch as a diff whose path is `"a, b"`;
 *   commands `rawInput {command, description}`.
 * - Claude: `file_path`, `command` (string); Gemini: `file_path`, `absolute_path`, `dir_path`, the
 *   command only in the title; opencode: `filePath`; Codex: `changes {path: {type, unified_diff,
 *   move_path}}`, `command` as argv (`["/bin/bash","-lc","…"]`), `cmd`, `parsed_cmd`, `cwd`.
 * - Cline: `read_files {files: [{path}]}`, `run_commands {commands: [string]}`, `apply_patch {input}`
 *   (test/fixtures/realAgents/cline-*.jsonl).
 */
export interface RawPath {
  readonly value: string;
  readonly source: string;
  /** Known to be written (diffs, patches, write arguments), else decided by the judged kind. */
  readonly write: boolean;
}

export type RawCommand = { readonly text: string; readonly source: string } | { readonly argv: readonly string[]; readonly source: string };

export interface RawTargets {
  readonly paths: readonly RawPath[];
  readonly commands: readonly RawCommand[];
  /** `rawInput` says the tool writes (content, old/new strings, patches). */
  readonly writes: boolean;
  /** The working directory the request names for its command (Codex `cwd`). */
  readonly commandCwd: string | undefined;
  readonly problems: readonly string[];
}

const singlePathKeys = new Set([
  'path',
  'file_path',
  'filePath',
  'filepath',
  'file',
  'filename',
  'abs_path',
  'absolute_path',
  'absolutePath',
  'notebook_path',
  'dir_path',
  'dirPath',
  'directory',
  'old_path',
  'new_path',
  'oldPath',
  'newPath',
  'move_path',
  'movePath',
  'source_path',
  'destination_path',
  'target_file',
  'targetFile',
]);
const listPathKeys = new Set(['paths', 'files', 'file_paths', 'filePaths']);
/** Keys whose presence means the tool writes. */
const writeKeys = new Set(['content', 'new_string', 'old_string', 'new_str', 'old_str', 'newText', 'new_text', 'edits', 'patch', 'diff', 'unified_diff', 'changes', 'new_path', 'newPath', 'move_path', 'movePath', 'insert_line']);
const commandKeys = new Set(['command', 'cmd', 'script']);
/** Keys holding several commands (Cline's run_commands: `commands: [string]`). */
const commandListKeys = new Set(['commands']);
const maxDepth = 6;
const maxValues = 2000;

class Collector {
  readonly paths: RawPath[] = [];
  readonly commands: RawCommand[] = [];
  readonly problems: string[] = [];
  writes = false;
  commandCwd: string | undefined;
  visited = 0;

  path(value: unknown, source: string, write: boolean): void {
    if (typeof value === 'string' && value !== '') {
      this.paths.push({ value, source, write });
    } else if (value !== undefined && value !== null) {
      this.problems.push(`${source} is not a path: ${JSON.stringify(value)?.slice(0, 80) ?? typeof value}`);
    }
  }

  patch(text: string, source: string): void {
    const found = patchPaths(text);
    if (found.unreadable) {
      this.problems.push(`${source} looks like a patch but names no file`);
    }
    for (const p of found.paths) {
      this.paths.push({ value: p, source: `${source} (patch header)`, write: true });
    }
  }
}

function walk(value: unknown, at: string, depth: number, out: Collector): void {
  if (++out.visited > maxValues) {
    if (out.visited === maxValues + 1) {
      out.problems.push('rawInput is too large to check completely');
    }
    return;
  }
  if (typeof value === 'string') {
    if (looksLikePatch(value)) {
      out.patch(value, at);
    }
    return;
  }
  if (depth > maxDepth) {
    out.problems.push(`${at} is nested too deeply to check`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, `${at}[${i}]`, depth + 1, out));
    return;
  }
  if (!isObject(value)) {
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    const here = `${at}.${key}`;
    if (writeKeys.has(key)) {
      out.writes = true;
    }
    if (singlePathKeys.has(key)) {
      out.path(v, here, writeKeys.has(key));
    } else if (listPathKeys.has(key)) {
      if (Array.isArray(v)) {
        // Paths, or objects naming them (Cline's read_files: `files: [{path}]`).
        v.forEach((item, i) => (isObject(item) ? walk(item, `${here}[${i}]`, depth + 1, out) : out.path(item, `${here}[${i}]`, false)));
      } else {
        out.path(v, here, false);
      }
    } else if (key === 'changes' && isObject(v)) {
      // Codex: `changes` maps each file to its change (`move_path` for renames).
      for (const file of Object.keys(v)) {
        out.path(file, `${here} key`, true);
      }
    } else if (commandKeys.has(key)) {
      command(v, here, out);
      continue;
    } else if (commandListKeys.has(key) && Array.isArray(v) && v.every((c): c is string => typeof c === 'string')) {
      v.forEach((c, i) => out.commands.push({ text: c, source: `${here}[${i}]` }));
      continue;
    } else if (key === 'cwd' && typeof v === 'string') {
      out.commandCwd ??= v;
      continue;
    }
    walk(v, here, depth + 1, out);
  }
}

function command(v: unknown, source: string, out: Collector): void {
  if (typeof v === 'string') {
    out.commands.push({ text: v, source });
  } else if (Array.isArray(v) && v.every((w): w is string => typeof w === 'string')) {
    out.commands.push({ argv: v, source });
  } else if (v !== undefined && v !== null) {
    out.problems.push(`${source} is not a command: ${JSON.stringify(v)?.slice(0, 80) ?? typeof v}`);
  }
}

export function rawTargets(toolCall: acp.ToolCallUpdate): RawTargets {
  const out = new Collector();
  for (const [i, l] of (toolCall.locations ?? []).entries()) {
    out.path(l.path, `locations[${i}]`, false);
  }
  for (const [i, c] of (toolCall.content ?? []).entries()) {
    if (c.type !== 'diff') {
      continue;
    }
    out.writes = true;
    if (looksLikePatch(c.newText)) {
      // Hermes' multi-file V4A patch: `path` is a display list ("a, b"); the headers are the truth.
      out.patch(c.newText, `content[${i}].newText`);
      for (const p of c.path.split(/,\s+/)) {
        out.path(p, `content[${i}].path`, true);
      }
    } else {
      out.path(c.path, `content[${i}].path`, true);
    }
  }
  walk(toolCall.rawInput, 'rawInput', 0, out);
  const kind = toolCall.kind ?? undefined;
  if (out.commands.length === 0 && kind === 'execute' && typeof toolCall.title === 'string' && toolCall.title.trim() !== '') {
    // Gemini sends a shell command only as the title.
    out.commands.push({ text: toolCall.title, source: 'title' });
  }
  return { paths: out.paths, commands: out.commands, writes: out.writes, commandCwd: out.commandCwd, problems: out.problems };
}

/** The kind judged from content: a command ⇒ execute; something written ⇒ the declared write kind, else edit. */
export function judgeKind(declared: acp.ToolKind | undefined, raw: RawTargets): acp.ToolKind | undefined {
  if (raw.commands.length > 0) {
    return 'execute';
  }
  if (raw.writes || raw.paths.some((p) => p.write)) {
    return declared === 'delete' || declared === 'move' ? declared : 'edit';
  }
  return declared;
}

export function accessFor(kind: acp.ToolKind | undefined, p: RawPath): TargetAccess {
  return p.write || kind === 'edit' || kind === 'delete' || kind === 'move' ? 'write' : 'read';
}
