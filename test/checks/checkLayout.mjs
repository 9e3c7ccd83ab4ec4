// Static checks of the source layout (issue 21, ARCHITECTURE.md "Rooms"):
// - no .ts file under src/ is over 400 lines (one concept per file);
// - only the VS Code shell (src/views, src/extension.ts) imports `vscode` — the core, the
//   application layer, the runner and the webview never do (ESLint's zones say the same per folder;
//   this also catches a new folder nobody added to a zone);
// - `child_process` is imported by exactly one module, the process launcher (src/process/launcher.ts):
//   agents, terminals, checks and watchdogs all start through it (issue 21), and so does execa
//   (loaded lazily from its own chunk, src/process/processSpawn.ts, which nothing else imports).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsFiles } from './tsFiles.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'src');
const maxLines = 400;
const shell = (rel) => rel === 'src/extension.ts' || rel.startsWith('src/views/');
const launcherModule = 'src/process/launcher.ts';
/** execa, re-exported as a chunk of its own (dist/processSpawn.js) that only the launcher loads. */
const execaChunk = 'src/process/processSpawn.ts';
const importsOf = (name) => new RegExp(`(?:\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\brequire\\s*\\(\\s*|^\\s*import\\s+)['"]${name}['"]`, 'm');
const importsChildProcess = importsOf('(?:node:)?child_process');
const importsExeca = importsOf('execa');
const spawners = [];
const importsVscode = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]vscode['"]/m;

const problems = [];
let files = 0;
let longest = { rel: '', lines: 0 };
for (const file of tsFiles(src)) {
  files++;
  const rel = relative(root, file).split(sep).join('/');
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > longest.lines) {
    longest = { rel, lines };
  }
  if (lines > maxLines) {
    problems.push(`${rel}: ${lines} lines (at most ${maxLines}: split it along its seams)`);
  }
  if (importsChildProcess.test(text) || (importsExeca.test(text) && rel !== execaChunk)) {
    spawners.push(rel);
  }
  if (!shell(rel) && importsVscode.test(text)) {
    problems.push(`${rel}: imports vscode (only src/views and src/extension.ts may)`);
  }
}

if (spawners.length !== 1 || spawners[0] !== launcherModule) {
  problems.push(`child_process/execa imported by ${spawners.length === 0 ? 'no module' : spawners.join(', ')} (exactly one may: ${launcherModule}, the process launcher)`);
}

if (problems.length > 0) {
  console.error(`checkLayout: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`checkLayout: ${files} files under src/, the longest ${longest.rel} (${longest.lines} lines); vscode only in the shell; child_process only in ${launcherModule}`);
