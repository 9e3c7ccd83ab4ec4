// Static checks of package.json against the code (after vscode-pull-request-github's check-commands.js):
// - every contributed command is in src/views/commandIds.ts and vice versa (the extension-host suite
//   checks that they are also registered at runtime);
// - settings that choose what is spawned are machine-scoped;
// - no `*` activation; every %key% has a string in package.nls.json; walkthrough media exist.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8'));
const ids = readFileSync(join(root, 'src/views/commandIds.ts'), 'utf8');
const problems = [];

// Only the CommandId block declares commands (ViewId and ContextKey follow it).
const commandBlock = ids.slice(ids.indexOf('export const CommandId'), ids.indexOf('export type CommandIdValue'));
const declared = new Set([...commandBlock.matchAll(/:\s*'(hermes\.[A-Za-z]+)'/g)].map((m) => m[1]));
const contributed = new Set(pkg.contributes.commands.map((c) => c.command));
for (const c of contributed) {
  if (!declared.has(c)) problems.push(`command ${c} is contributed but not in CommandId`);
}
for (const c of declared) {
  if (!contributed.has(c)) problems.push(`command ${c} is in CommandId but not contributed`);
}
for (const c of pkg.contributes.commands) {
  if (c.category !== 'Hermes') problems.push(`command ${c.command} lacks category "Hermes"`);
}
for (const key of ['hermes.agents', 'hermes.defaultAgent', 'hermes.registry.url']) {
  if (pkg.contributes.configuration.properties[key]?.scope !== 'machine') problems.push(`${key} must be machine-scoped`);
}
for (const [key, prop] of Object.entries(pkg.contributes.configuration.properties)) {
  if (prop.markdownDescription === undefined) problems.push(`${key} has no markdownDescription`);
}
if ((pkg.activationEvents ?? []).includes('*')) problems.push('activationEvents must not contain "*"');
if (JSON.stringify(pkg.extensionKind) !== '["workspace"]') problems.push('extensionKind must be ["workspace"]');
if (pkg.capabilities?.untrustedWorkspaces === undefined) problems.push('capabilities.untrustedWorkspaces must be declared');
for (const m of JSON.stringify(pkg).matchAll(/%([A-Za-z0-9_.]+)%/g)) {
  if (typeof nls[m[1]] !== 'string') problems.push(`missing package.nls.json string "${m[1]}"`);
}
for (const w of pkg.contributes.walkthroughs ?? []) {
  for (const s of w.steps) {
    const md = s.media?.markdown;
    if (md !== undefined && !existsSync(join(root, md))) problems.push(`walkthrough media ${md} is missing`);
  }
}

if (problems.length > 0) {
  console.error(`manifest check: ${problems.length} problem(s)\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(`manifest check: ${contributed.size} commands, ${Object.keys(pkg.contributes.configuration.properties).length} settings, ok`);
