/** Corpus groups about paths: traversal, symlinks, targets hidden in patches/diffs/locations, and case/separator folding. */
import { claudeEdit, codexChanges, hermesPatch, hermesWrite, tool, type CorpusCase } from './corpusShapes';

const editSrc = (group: CorpusCase['group'], name: string, toolCall: CorpusCase['toolCall'], expect: CorpusCase['expect'], semantics?: CorpusCase['semantics']): CorpusCase => ({
  group,
  name,
  rules: 'editSrc',
  toolCall,
  expect,
  ...(semantics !== undefined ? { semantics } : {}),
});

const t = (name: string, path: string, expect: CorpusCase['expect']): CorpusCase => editSrc('traversal', name, hermesWrite(path), expect);

export const traversalCases: CorpusCase[] = [
  t('src/../.env climbs out of src to a sensitive file', 'src/../.env', 'ask'),
  t('src/./../x.txt climbs out of src', 'src/./../x.txt', 'ask'),
  t('src//../x.txt (double slash) climbs out of src', 'src//../x.txt', 'ask'),
  t('src/a/../../x.txt climbs out of src', 'src/a/../../x.txt', 'ask'),
  t('src/../../ leaves the workspace', 'src/../../escaped.txt', 'ask'),
  t('absolute path through src/.. to docs', '{WS}/src/../docs/readme.md', 'ask'),
  t('absolute path to the parent of the workspace', '{WS}/../x.txt', 'ask'),
  t('src/.. names the workspace folder itself', 'src/..', 'ask'),
  t('~ expands to the home folder, outside the workspace', '~/notes.txt', 'ask'),
  t('~root is another user: unreadable', '~root/x.txt', 'ask'),
  t('file: URI with encoded .. segments', 'file://{WS}/src/%2E%2E/docs/x.md', 'ask'),
  t('non-file URI scheme is not a path', 'vscode-remote://host{WS}/src/a.ts', 'ask'),
  t('a NUL byte in the path', 'src/a.ts\u0000.sh', 'ask'),
  editSrc('traversal', 'an empty path is unreadable', tool('edit', { path: '', content: 'x' }), 'ask'),
  editSrc('traversal', 'a path that is a number is unreadable', tool('edit', { path: 42, content: 'x' }), 'ask'),
  editSrc('traversal', 'paths[] with one file outside', tool('edit', { paths: ['src/a.ts', '{OUT}/secret.txt'], content: 'x' }), 'ask'),
  editSrc('traversal', 'an edit that names no file at all', tool('edit', { content: 'x' }), 'ask'),
  // Benign requests of the same shapes.
  t('benign: src/a.ts', 'src/a.ts', 'allow'),
  t('benign: absolute path inside src', '{WS}/src/a.ts', 'allow'),
  t('benign: ./src/new.ts (a new file)', './src/new.ts', 'allow'),
  t('benign: a new file in new folders under src', 'src/new/deep/file.ts', 'allow'),
  t('benign: a folder literally named %2e%2e (no decoding outside URIs)', 'src/%2e%2e/x.ts', 'allow'),
  t('benign: a name of three dots is a plain name on POSIX', 'src/.../x.ts', 'allow'),
  t('benign: src/x/../a.ts stays in src', 'src/x/../a.ts', 'allow'),
  t('benign: file: URI inside src', 'file://{WS}/src/b.ts', 'allow'),
  editSrc('traversal', 'benign: paths[] all inside src', tool('edit', { paths: ['src/a.ts', 'src/b.ts'], content: 'x' }), 'allow'),
];

const s = (name: string, path: string, expect: CorpusCase['expect']): CorpusCase => editSrc('symlink', name, hermesWrite(path), expect);

export const symlinkCases: CorpusCase[] = [
  s('src/link (→ workspace root) then .env', 'src/link/.env', 'ask'),
  s('src/link then docs: really outside src', 'src/link/docs/readme.md', 'ask'),
  s('src/out (→ outside folder) then an existing file', 'src/out/secret.txt', 'ask'),
  s('src/out then a new file: lands outside', 'src/out/new.txt', 'ask'),
  s('src/out then new folders: lands outside', 'src/out/a/b/c.txt', 'ask'),
  s('a dangling link would be created where it points', 'src/dangling', 'ask'),
  s('below a dangling link', 'src/dangling/x.txt', 'ask'),
  s('a symlink loop cannot be resolved', 'src/loop/x.txt', 'ask'),
  s('a harmless name that is a link to .env', 'src/envlink.ts', 'ask'),
  s('a hard link (the same file also outside)', 'src/hardlink.txt', 'ask'),
  s('absolute path through the link', '{WS}/src/link/.git/config', 'ask'),
  s('link, then .. (resolved after the link: outside src)', 'src/link/src/../docs/x.md', 'ask'),
  s('src/out/.. is the parent of the link target, not src', 'src/out/../escaped.txt', 'ask'),
  s('src/link/.. is the parent of the workspace, not src', 'src/link/../escaped.txt', 'ask'),
  editSrc('symlink', 'a read through a link to outside, with a read rule', tool('read', { path: 'src/out/secret.txt' }), 'ask'),
  // Benign.
  s('benign: src/link/src/a.ts is src/a.ts', 'src/link/src/a.ts', 'allow'),
  s('benign: src/selflink/a.ts is src/a.ts', 'src/selflink/a.ts', 'allow'),
  s('benign: a link to a file in src', 'src/alias.ts', 'allow'),
  s('benign: a new file under src/selflink', 'src/selflink/new.ts', 'allow'),
];

const h = (name: string, toolCall: CorpusCase['toolCall'], expect: CorpusCase['expect']): CorpusCase => editSrc('hidden targets', name, toolCall, expect);
const v4a = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');

export const hiddenTargetCases: CorpusCase[] = [
  h('V4A patch updating .env behind a src display path', hermesPatch('src/a.ts', v4a('*** Update File: .env', '@@', '-A=1', '+A=2')), 'ask'),
  h('V4A patch adding in src and updating a file outside', hermesPatch('src/x.ts', v4a('*** Add File: src/x.ts', '+x', '*** Update File: ../escaped.txt', '+y')), 'ask'),
  h('V4A patch moving a file to .git/', hermesPatch('src/a.ts', v4a('*** Update File: src/a.ts', '*** Move to: .git/config', '@@', '+x')), 'ask'),
  h('V4A (Hermes "Move File: a -> b") to docs', hermesPatch('src/a.ts', v4a('*** Move File: src/a.ts -> docs/a.ts')), 'ask'),
  h('V4A deleting a file outside src', hermesPatch('src/a.ts', v4a('*** Delete File: docs/readme.md')), 'ask'),
  h('Hermes multi-file display path "src/a.ts, .env"', hermesPatch('src/a.ts, .env', v4a('*** Update File: src/a.ts', '+x', '*** Update File: .env', '+y')), 'ask'),
  h('a patch marker with no file header is unreadable', hermesPatch('src/a.ts', v4a()), 'ask'),
  h('unified diff in rawInput whose +++ names .env', tool('edit', { path: 'src/a.ts', diff: '--- a/src/a.ts\n+++ b/.env\n@@ -1 +1 @@\n-a\n+b\n' }), 'ask'),
  h('git diff header renaming to docs', tool('edit', { path: 'src/a.ts', patch: 'diff --git a/src/a.ts b/docs/a.ts\nrename from src/a.ts\nrename to docs/a.ts\n' }), 'ask'),
  h('a second diff item outside src', { ...hermesWrite('src/a.ts'), content: [{ type: 'diff', path: 'src/a.ts', newText: 'x' }, { type: 'diff', path: '{OUT}/secret.txt', newText: 'y' }] }, 'ask'),
  h('the diff item names .env while rawInput says src', { ...hermesWrite('src/a.ts'), content: [{ type: 'diff', path: '.env', newText: 'x' }] }, 'ask'),
  h('a location outside src on an edit', { ...claudeEdit('src/a.ts'), locations: [{ path: 'src/a.ts' }, { path: 'docs/readme.md' }] }, 'ask'),
  h('Codex changes map with .env', codexChanges({ '{WS}/src/a.ts': { type: 'update', unified_diff: '@@\n-a\n+b\n' }, '{WS}/.env': { type: 'add', content: 'x' } }), 'ask'),
  h('Codex change moving a file out of src', codexChanges({ '{WS}/src/a.ts': { type: 'update', unified_diff: '@@\n-a\n+b\n', move_path: '{WS}/docs/a.ts' } }), 'ask'),
  h('nested arguments.input.file_path names .env', tool('edit', { tool: 'x', arguments: { input: { file_path: '.env', content: 'x' } } }), 'ask'),
  h('old_path/new_path renaming out of the workspace', tool('move', { old_path: 'src/a.ts', new_path: '{OUT}/a.ts' }), 'ask'),
  h('opencode filePath to .git', tool('edit', { filePath: '.git/config', newString: 'x' }), 'ask'),
  h('abs_path outside the workspace', tool('edit', { abs_path: '{OUT}/secret.txt', content: 'x' }), 'ask'),
  h('Gemini absolute_path to a key file', tool('edit', { absolute_path: '{WS}/src/server.key', content: 'x' }), 'ask'),
  h('notebook_path to .env.local', tool('edit', { notebook_path: 'src/.env.local', new_source: 'x' }), 'ask'),
  h('file content that is itself a patch touching .env', tool('edit', { path: 'src/fix.patch', content: '--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-a\n+b\n' }), 'ask'),
  h('a path key holding an object', tool('edit', { path: { nested: 'src/a.ts' }, content: 'x' }), 'ask'),
  // Benign.
  h('benign: V4A patch entirely under src', hermesPatch('src/a.ts, src/b.ts', v4a('*** Update File: src/a.ts', '+x', '*** Add File: src/b.ts', '+y')), 'allow'),
  h('benign: unified diff under src', tool('edit', { path: 'src/a.ts', diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n' }), 'allow'),
  h('benign: Codex changes under src', codexChanges({ '{WS}/src/a.ts': { type: 'update', unified_diff: '@@\n-a\n+b\n', move_path: null } }), 'allow'),
  h('benign: Claude Edit in src', claudeEdit('{WS}/src/a.ts'), 'allow'),
  h('benign: opencode filePath in src', tool('edit', { filePath: '{WS}/src/a.ts', oldString: 'a', newString: 'b' }), 'allow'),
  h('benign: new file under src (diff without oldText)', { ...hermesWrite('src/new.ts'), content: [{ type: 'diff', path: 'src/new.ts', newText: 'x' }] }, 'allow'),
];

const w = (name: string, path: string, expect: CorpusCase['expect']): CorpusCase => editSrc('folding', name, hermesWrite(path), expect, 'win32');
const d = (name: string, path: string, expect: CorpusCase['expect']): CorpusCase => editSrc('folding', name, hermesWrite(path), expect, 'darwin');

export const foldingCases: CorpusCase[] = [
  w('Windows: SRC\\.ENV is src/.env', 'SRC\\.ENV', 'ask'),
  w('Windows: src\\..\\.env', 'src\\..\\.env', 'ask'),
  w('Windows: mixed separators climbing out', 'src/..\\..\\escaped.txt', 'ask'),
  w('Windows: trailing dot names .env', 'src\\.env.', 'ask'),
  w('Windows: trailing spaces name .env', 'src\\.env  ', 'ask'),
  w('Windows: alternate data stream of .env', 'src\\.env::$DATA', 'ask'),
  w('Windows: .GIT folder', 'src\\.GIT\\config', 'ask'),
  w('Windows: a name of dots and spaces is unreadable', 'src\\. .\\x.ts', 'ask'),
  w('Windows: another drive', 'D:\\ws\\src\\a.ts', 'ask'),
  w('Windows: a UNC path', '\\\\server\\share\\src\\a.ts', 'ask'),
  w('Windows: device path to .env', '\\\\?\\{WS}\\src\\.env', 'ask'),
  w('Windows: id_RSA key', 'src\\keys\\ID_RSA', 'ask'),
  w('Windows: upper-case SRC is src (benign)', 'SRC\\A.TS', 'allow'),
  w('Windows: backslashes (benign)', 'src\\a.ts', 'allow'),
  w('Windows: forward slashes (benign)', 'src/a.ts', 'allow'),
  w('Windows: absolute with the root in another case (benign)', '{WSUPPER}\\src\\a.ts', 'allow'),
  w('Windows: trailing dot on a normal name (benign)', 'src\\a.ts.', 'allow'),
  d('macOS: src/.ENV', 'src/.ENV', 'ask'),
  d('macOS: SRC/../.Env', 'SRC/../.Env', 'ask'),
  d('macOS: src/.Git/config', 'src/.Git/config', 'ask'),
  d('macOS: SRC/LINK/.env', 'SRC/LINK/.env', 'ask'),
  d('macOS: upper-case SRC is src (benign)', 'SRC/a.ts', 'allow'),
  d('macOS: root in another case (benign)', '{WSUPPER}/src/a.ts', 'allow'),
  editSrc('folding', 'Linux: SRC is another folder than src', hermesWrite('SRC/a.ts'), 'ask'),
  editSrc('folding', 'Linux: src/.ENV is still sensitive', hermesWrite('src/.ENV'), 'ask'),
  editSrc('folding', 'Linux: backslash is part of a name, not a separator (benign)', hermesWrite('src/a\\b.ts'), 'allow'),
];
