// Writes l10n/bundle.l10n.json: every string the extension passes to vscode.l10n.t (src/views, and
// src/app and src/session, whose Localize the extension fills with vscode.l10n.t), and every
// string the webview passes to t() (the host hands the same bundle to the webview), keyed by the
// English text — the source file translators copy to bundle.l10n.<locale>.json.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const strings = new Map();
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      walk(p);
    } else if (p.endsWith('.ts')) {
      const text = readFileSync(p, 'utf8');
      for (const m of text.matchAll(/(?:l10n\.t|\bt)\(\s*'((?:[^'\\]|\\.)*)'/g)) {
        const s = m[1].replace(/\\'/g, "'").replace(/\\\\/g, '\\');
        strings.set(s, s);
      }
    }
  }
}
walk(join(root, 'src', 'session'));
walk(join(root, 'src', 'app'));
walk(join(root, 'src', 'views'));
walk(join(root, 'src', 'webview'));
const sorted = Object.fromEntries([...strings].sort(([a], [b]) => a.localeCompare(b)));
const file = join(root, 'l10n', 'bundle.l10n.json');
if (process.argv.includes('--check')) {
  // The checks stage: a string the code shows that the bundle lacks is one translators never see.
  const shipped = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const missing = Object.keys(sorted).filter((k) => !(k in shipped));
  const gone = Object.keys(shipped).filter((k) => !(k in sorted));
  if (missing.length > 0 || gone.length > 0) {
    console.error(`l10n/bundle.l10n.json is stale: ${missing.length} string(s) missing (${missing.slice(0, 3).map((k) => JSON.stringify(k)).join(', ')}${missing.length > 3 ? ', …' : ''}), ${gone.length} no longer used. Run npm run l10n and commit it.`);
    process.exit(1);
  }
  console.log(`l10n/bundle.l10n.json: ${strings.size} strings, up to date`);
} else {
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`l10n/bundle.l10n.json: ${strings.size} strings`);
}
