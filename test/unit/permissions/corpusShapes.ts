/**
 * The permission corpus: request shapes (as real agents send them, see test/fixtures and
 * src/permissions/requestTargets.ts), rule sets, the workspace every case runs in, and the case type.
 * Strings may hold `{WS}` (the workspace folder; `{WSUPPER}` in upper case), `{OUT}` (a folder outside it) and `{HOME}`;
 * they are replaced per run (simulated file system, or real temp folders for the runner).
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { PermissionRule } from '../../../src/permissions/types';
import type { FakeEntry } from './fakeFs';

export type Group = 'traversal' | 'symlink' | 'hidden targets' | 'folding' | 'sensitive' | 'commands' | 'kind spoofing';
export type Expect = 'allow' | 'ask' | 'reject';
export type Semantics = 'posix' | 'win32' | 'darwin';
export type RuleSetName = keyof typeof ruleSets;

export interface CorpusCase {
  readonly group: Group;
  readonly name: string;
  readonly rules: RuleSetName;
  readonly semantics?: Semantics;
  readonly toolCall: Omit<acp.ToolCallUpdate, 'toolCallId'>;
  readonly expect: Expect;
}

export const ruleSets = {
  editSrc: { rules: [{ kind: ['edit'], path: 'src/**', effect: 'allow', description: 'edits under src' }] },
  allowAll: { rules: [{ effect: 'allow', description: 'allow everything' }], sensitivePaths: ['*.secret', 'config/prod'] },
  commands: {
    rules: [
      { command: 'rm *', effect: 'reject', description: 'never rm' },
      { command: 'git push *', effect: 'reject', description: 'never push' },
      { kind: ['execute'], command: 'ls *', effect: 'allow', description: 'ls' },
      { command: 'git status', effect: 'allow', description: 'git status' },
      { command: 'npm test *', effect: 'allow', description: 'tests' },
      { command: 'grep *', effect: 'allow', description: 'grep' },
      { command: 'echo *', effect: 'allow', description: 'echo' },
      { command: 'cat *', effect: 'allow', description: 'cat' },
    ],
  },
  readFetch: {
    rules: [
      { kind: ['read'], effect: 'allow', description: 'reads' },
      { kind: ['fetch'], effect: 'allow', description: 'fetches' },
      { kind: ['edit'], path: 'src/**', effect: 'allow', description: 'edits under src' },
    ],
  },
} as const satisfies Record<string, { readonly rules: readonly PermissionRule[]; readonly sensitivePaths?: readonly string[] }>;

/** The workspace of every case: created for real for the runner, simulated for the pure module. */
export const workspaceTree: Readonly<Record<string, FakeEntry>> = {
  '{WS}/src/a.ts': 'file',
  '{WS}/src/link': { link: '..' },
  '{WS}/src/selflink': { link: '.' },
  '{WS}/src/out': { link: '{OUT}' },
  '{WS}/src/dangling': { link: '{OUT}/missing' },
  '{WS}/src/loop': { link: 'loop' },
  '{WS}/src/envlink.ts': { link: '../.env' },
  '{WS}/src/alias.ts': { link: 'a.ts' },
  '{WS}/docs/readme.md': 'file',
  '{WS}/.env': 'file',
  '{WS}/.git/config': 'file',
  '{OUT}/secret.txt': 'file',
  '{HOME}/.ssh/id_rsa': 'file',
  '{OUT}/linked.txt': 'file',
  // A second name of {OUT}/linked.txt (created after it).
  '{WS}/src/hardlink.txt': { hardlinkOf: '{OUT}/linked.txt' },
};

const diffOf = (path: string): acp.ToolCallContent => ({ type: 'diff', path, oldText: '', newText: 'new text\n' });

/** Hermes' edit approval (`edit-approval-N`): write_file arguments plus a whole-file diff. */
export function hermesWrite(path: string): CorpusCase['toolCall'] {
  return { title: `Approve edit: ${path}`, kind: 'edit', status: 'pending', content: [diffOf(path)], rawInput: { tool: 'write_file', arguments: { path, content: 'new text\n' } } };
}

/** Hermes' V4A patch (`patch` with `mode: "patch"`): the diff carries the raw patch. */
export function hermesPatch(displayPath: string, patch: string): CorpusCase['toolCall'] {
  return {
    title: `Approve edit: ${displayPath}`,
    kind: 'edit',
    status: 'pending',
    content: [{ type: 'diff', path: displayPath, newText: patch }],
    rawInput: { tool: 'patch', arguments: { mode: 'patch', patch } },
  };
}

/** Claude's Edit: `file_path` + old/new strings, a snippet diff and a location. */
export function claudeEdit(path: string): CorpusCase['toolCall'] {
  return {
    title: 'Edit',
    kind: 'edit',
    content: [{ type: 'diff', path, oldText: 'a', newText: 'b' }],
    locations: [{ path }],
    rawInput: { file_path: path, old_string: 'a', new_string: 'b', replace_all: false },
  };
}

/** Any tool with a given kind and `rawInput`. */
export function tool(kind: acp.ToolKind | undefined, rawInput: unknown, extra: Partial<CorpusCase['toolCall']> = {}): CorpusCase['toolCall'] {
  return { title: 'tool', ...(kind !== undefined ? { kind } : {}), rawInput, ...extra };
}

/** Hermes' dangerous-command check (`perm-check-N`): `rawInput {command, description}`. */
export function hermesCommand(command: string): CorpusCase['toolCall'] {
  return {
    title: `dangerous: ${command}`,
    kind: 'execute',
    status: 'pending',
    content: [{ type: 'content', content: { type: 'text', text: `$ ${command}` } }],
    rawInput: { command, description: 'dangerous' },
  };
}

/** Codex' exec approval: the command as argv, usually `["/bin/bash", "-lc", "…"]`, and its cwd. */
export function codexExec(argv: readonly string[], cwd = '{WS}'): CorpusCase['toolCall'] {
  return { title: argv.join(' '), kind: 'execute', status: 'pending', rawInput: { call_id: 'c', command: argv, cwd, parsed_cmd: [] } };
}

/** Codex' patch approval: `changes` maps each file to its change. */
export function codexChanges(changes: Record<string, unknown>): CorpusCase['toolCall'] {
  const first = Object.keys(changes)[0] ?? '';
  return { title: `Edit ${first}`, kind: 'edit', status: 'pending', content: [diffOf(first)], locations: [{ path: first }], rawInput: { call_id: 'c', changes } };
}

export const editOptions: acp.PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow edit', kind: 'allow_once' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
];

export const commandOptions: acp.PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_session', name: 'Allow for session', kind: 'allow_always' },
  { optionId: 'allow_always', name: 'Allow always', kind: 'allow_always' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
  { optionId: 'deny_always', name: 'Deny always', kind: 'reject_always' },
];

/** Replaces the placeholders in every string of `value`, object keys included (Codex' `changes`). */
export function substitute<T>(value: T, vars: Readonly<Record<string, string>>): T {
  const json = JSON.stringify(value).replace(/\{(WSUPPER|WS|OUT|HOME)\}/g, (m, name: string) => {
    const v = vars[name];
    return v === undefined ? m : JSON.stringify(v).slice(1, -1);
  });
  return JSON.parse(json) as T;
}
