// Builds every program in this repository with esbuild.
//   node scripts/build.mjs               extension, webview, CLI, the scripted agent and the real-agents rig into dist/
//   node scripts/build.mjs --production  the same, minified, no source maps
//   node scripts/build.mjs --tests       also transpiles src/ and test/ to out/ for mocha
//   node scripts/build.mjs --watch       rebuilds on change
//   node scripts/build.mjs --production --shipped --outdir DIR
//                                        only what the extension package ships, into DIR instead of dist/
//                                        (scripts/package.mjs stages the .vsix this way)
//
// Every build says whether its files ship in the extension package (`ship`). The files of the
// shipping builds are listed in <outdir>/package-files.json; test/checks/checkPackage.mjs fails when
// the .vsix lacks one of them, so a new chunk or helper script cannot be left out of the package.
import * as esbuild from 'esbuild';
import { chmodSync, mkdirSync, writeFileSync, existsSync, cpSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const withTests = args.has('--tests');
const watch = args.has('--watch');
const shippedOnly = args.has('--shipped');
const outdirArg = process.argv.indexOf('--outdir');
/** Where the bundles go: dist/ by default; scripts/package.mjs builds a staged copy elsewhere. */
const outRoot = outdirArg > 0 && process.argv[outdirArg + 1] !== undefined ? process.argv[outdirArg + 1] : join(root, 'dist');

/** @type {esbuild.BuildOptions} */
const common = {
  absWorkingDir: root,
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  metafile: true,
  legalComments: 'none',
  // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow; its ES module build
  // bundles (the unbundled test build keeps the UMD one, which Node loads as is).
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

/** Modules loaded lazily by `loadChunk` (src/util/lazyChunk.ts), shipped as `dist/<name>.js`. */
const chunks = { extensionCore: 'src/views/extensionCore.ts', registryUnpack: 'src/registry/registryUnpack.ts', processSpawn: 'src/process/processSpawn.ts', connectTransport: 'src/host/connectTransport.ts', acpConnection: 'src/acp/acpConnection.ts', mcpServers: 'src/mcp/mcpServers.ts', registryBrowse: 'src/views/registry/registryBrowse.ts' };

/** @type {esbuild.BuildOptions[]} */
const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    ship: true,
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: { cli: 'src/cli/main.ts' },
    ship: true,
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // The bzip2 decompressor's worker thread (src/registry/bunzip2.ts loads it from next to the
    // extension), and the chunks that src/util/lazyChunk.ts requires on first use rather than at
    // activation (P4: the extension bundle stays under 500 KB). Any bundle that reaches a chunk
    // needs it in its own folder (see the rig's below); test/unit/util/lazyChunk.test.ts runs them.
    ...common,
    entryPoints: { bunzip2Worker: 'src/registry/bunzip2Worker.ts', ...chunks },
    ship: true,
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // registryBrowse runs in the extension host, which provides `vscode`.
    external: ['vscode'],
  },
  {
    // The agents' watchdog (src/process/launcher.ts starts one per agent from next to the extension).
    ...common,
    entryPoints: { watchdog: 'src/process/watchdog.ts' },
    ship: true,
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // The scripted agent ships as the Demo agent (src/views/configuration.ts).
    ...common,
    entryPoints: { scriptedAgent: 'test/agents/scriptedAgent.ts' },
    ship: true,
    outdir: 'dist/agents',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // An agent that ignores stdin EOF, for the process-hygiene tests; not shipped.
    ...common,
    entryPoints: { stubbornAgent: 'test/agents/stubbornAgent.ts' },
    ship: false,
    outdir: 'dist/agents',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // The real-agents rig (scripts/realAgents.mjs, test/realAgents/README.md); not shipped.
    ...common,
    entryPoints: { modelServer: 'test/realAgents/modelServerCli.ts', loadSession: 'test/realAgents/loadSession.ts', rig: 'test/realAgents/rig.ts', scrubTraffic: 'test/realAgents/scrubTraffic.ts', processSpawn: chunks.processSpawn },
    ship: false,
    outdir: 'dist/realAgents',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: { main: 'src/webview/main.ts' },
    ship: true,
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    minify: true,
    // UI text keeps its characters (…, →, ⟨⟩) instead of \uXXXX escapes; the page is UTF-8.
    charset: 'utf8',
    // DOMPurify's ES module (the package's default), not its prebuilt purify.min.js: 0.6 KB larger
    // minified, but the prebuilt file sanitized about 3× slower in Chromium (every string and regex
    // call goes through a wrapper that spreads `arguments`), the biggest cost of rendering Markdown
    // (bench/README.md, P2).
    loader: { '.ttf': 'file', '.css': 'css' },
  },
];

// The webview: highlight.js's engine and each grammar of src/webview/highlight/languages.json are
// scripts of their own (dist/webview/hljs/), loaded when a fence first needs them.
const grammars = Object.keys(JSON.parse(readFileSync(join(root, 'src/webview/highlight/languages.json'), 'utf8')).grammars);
/** `grammar:<name>` entries: the official grammar, handed to the webview through its mailbox. */
const grammarEntries = {
  name: 'grammar-entries',
  setup(b) {
    b.onResolve({ filter: /^grammar:/ }, (a) => ({ path: a.path.slice('grammar:'.length), namespace: 'grammar' }));
    b.onLoad({ filter: /.*/, namespace: 'grammar' }, (a) => ({
      contents: `import grammar from 'highlight.js/lib/languages/${a.path}';\nimport { publishGrammar } from './src/webview/highlight/mailbox';\npublishGrammar(${JSON.stringify(a.path)}, grammar);\n`,
      resolveDir: root,
      loader: 'ts',
    }));
  },
};
/**
 * The webview uses marked's Lexer only, with `gfm` and `breaks` (src/webview/markdown/blockLexer.ts),
 * never `pedantic`. marked ships one pre-bundled module whose default instance (`new Marked()`, set
 * up at load) keeps its parser and renderers alive; exporting just the Lexer lets esbuild drop them
 * (−11 KB). The `pedantic` rule tables, and the emphasis rules only the pedantic inline table uses,
 * are built at load by calls esbuild must keep, so they are cut out of the text (−0.9 KB each);
 * a lexer asked for them would get the normal rules. Fails the build if marked's layout changes
 * (each cut must match exactly once, and the names must be gone after).
 */
const markedLexerOnly = {
  name: 'marked-lexer-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]marked[\\/]lib[\\/]marked\.esm\.js$/ }, (a) => {
      const changed = () => {
        throw new Error('marked.esm.js has changed: update the marked-lexer-only plugin in scripts/build.mjs');
      };
      let text = readFileSync(a.path, 'utf8');
      const once = (s) => (text.split(s).length === 2 ? text.indexOf(s) : changed());
      // `from` up to the `}` or `,` that ends the declaration before `to`.
      const cut = (from, to) => {
        const start = once(from);
        const end = once(to) + 1;
        if (end <= start) {
          changed();
        }
        text = text.slice(0, start) + text.slice(end);
      };
      cut(',nt={...fe,', '},rt=/');
      cut(',Dt={...me,', '},pe={...me,');
      // Dt's own emphasis rules gt, xt and Tt, with their sources (dt, mt, Rt) and gt's quote class (at).
      cut('at=/[\\p{Pi}\\p{Ps}"\']/u', ',Ae=/');
      cut('dt=/^(?:\\*+(?:((?!\\*)(?!openQuote)', ',ze="');
      cut('mt="^[^_*]*?__', ',bt=g(');
      cut('Rt="^[^_*]*?\\\\*', ',Ot=g(');
      text = text.slice(0, once(',pedantic:nt}')) + '}' + text.slice(once(',pedantic:nt}') + ',pedantic:nt}'.length);
      text = text.slice(0, once(',pedantic:Dt}')) + '}' + text.slice(once(',pedantic:Dt}') + ',pedantic:Dt}'.length);
      // (`dt` is also an HTML tag name in a `|` list, `gt` an entity, `at` a method.)
      if (/\b(?:nt|Dt)\b/.test(text) || /(?<![\w$.&|])(?:at|dt|gt|mt|xt|Rt|Tt)(?![\w$|])/.test(text)) {
        changed();
      }
      const instance = text.indexOf('var v=new ne;');
      const exports = /export\{[^}]*\bw as Lexer\b[^}]*\};/.exec(text.slice(instance));
      if (instance < 0 || exports === null) {
        changed();
      }
      return { contents: `${text.slice(0, instance)}export{w as Lexer};${text.slice(instance + exports.index + exports[0].length)}`, loader: 'js' };
    });
  },
};
builds.find((b) => b.entryPoints.main !== undefined).plugins = [markedLexerOnly];
const webviewScripts = { platform: 'browser', format: 'iife', target: 'chrome120', minify: true, ship: true, outdir: 'dist/webview/hljs' };
/**
 * The cards chunk (dist/webview/cards.js, src/webview/lazy/cards.ts) uses the bundle's own `dom`,
 * `strings` and `text` (src/webview/lazy/shared.ts publishes them): a copy would have no window,
 * no translations and a second id counter. Any other webview module it reached would be a second
 * copy too, so the build fails when one is bundled that is not listed here.
 */
const sharedModules = ['dom', 'strings', 'text'];
const cardsOwn = /^src\/webview\/(cards\/entry|lazy\/cards|ansi|render\/(signInCard|mcpSummary|question|rewriteEditor|slashMenu|mentionMenu|listboxMenu|notice|turnEnd|plan|heldPrompt|findBar|findInChat|permission|permissionCheck|terminalItem|pastedImages|permissionKeys))\.ts$/;
const sharedWithBundle = {
  name: 'shared-with-bundle',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (a) => {
      const target = join(a.resolveDir, a.path);
      const name = sharedModules.find((m) => target === join(root, 'src/webview', m));
      return name === undefined ? undefined : { path: name, namespace: 'shared' };
    });
    b.onLoad({ filter: /.*/, namespace: 'shared' }, (a) => ({
      contents: `const shared = globalThis.__hermesShared;\nif (shared === undefined) { throw new Error('cards.js runs only inside the webview bundle'); }\nmodule.exports = shared[${JSON.stringify(a.path)}];\n`,
      loader: 'js',
    }));
    b.onEnd((r) => {
      const strays = Object.keys(r.metafile?.inputs ?? {}).filter((f) => f.startsWith('src/') && !cardsOwn.test(f));
      if (strays.length > 0) {
        throw new Error(`dist/webview/cards.js would carry its own copy of ${strays.join(', ')}: share it (scripts/build.mjs, src/webview/lazy/shared.ts) or list it as the chunk's own`);
      }
    });
  },
};
builds.push(
  { ...common, ...webviewScripts, outdir: 'dist/webview', charset: 'utf8', entryPoints: { cards: 'src/webview/cards/entry.ts' }, plugins: [sharedWithBundle] },
  { ...common, ...webviewScripts, entryPoints: { core: 'src/webview/highlight/coreEntry.ts' } },
  { ...common, ...webviewScripts, entryPoints: Object.fromEntries(grammars.map((g) => [g, `grammar:${g}`])), plugins: [grammarEntries] },
);

const unmarked = builds.filter((b) => typeof b.ship !== 'boolean').map((b) => Object.keys(b.entryPoints).join(', '));
if (unmarked.length > 0) {
  throw new Error(`scripts/build.mjs: say whether the extension package ships ${unmarked.join('; ')} (ship: true or false)`);
}
/** An esbuild options object from a build of the list: its outdir under `outRoot`, `ship` taken off. */
const toEsbuild = ({ ship: _ship, ...b }) => (b.outdir !== undefined && b.outdir.startsWith('dist') ? { ...b, outdir: join(outRoot, b.outdir.slice('dist'.length)) } : b);
const present = builds
  .filter((b) => !shippedOnly || b.ship)
  .filter((b) => Object.values(b.entryPoints).every((p) => p.startsWith('grammar:') || existsSync(join(root, p))));

// src/acp/sdkSchema.ts imports the SDK's generated schemas by path (the package does not export
// them); Node refuses that deep import, so in out/ this one file is bundled with the schemas inside
// (zod stays external: one zod for everything).
const sdkSchemaEntry = 'src/acp/sdkSchema.ts';

if (withTests) {
  // Start from an empty out/: a module that became a folder (src/webview/markdown.ts →
  // markdown/index.ts) would otherwise be shadowed by its stale transpiled file.
  rmSync(join(root, 'out'), { recursive: true, force: true });
  present.push({
    absWorkingDir: root,
    entryPoints: { 'src/acp/sdkSchema': sdkSchemaEntry },
    outdir: 'out',
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  present.push({
    absWorkingDir: root,
    entryPoints: ['src', 'test', 'bench']
      .filter((d) => existsSync(join(root, d)))
      .flatMap((d) => readdirSync(join(root, d), { recursive: true }).map((f) => `${d}/${f.replaceAll('\\', '/')}`))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== sdkSchemaEntry),
    outdir: 'out',
    outbase: '.',
    bundle: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
}

const metas = {};
/** A metafile output path (relative to the repository) as `dist/…`, wherever `outRoot` is. */
const distName = (file) => {
  const rel = relative(outRoot, join(root, file)).replaceAll('\\', '/');
  return rel.startsWith('..') ? file : `dist/${rel}`;
};
if (watch) {
  for (const b of present) {
    const ctx = await esbuild.context(toEsbuild(b));
    await ctx.watch();
  }
  console.log('[build] watching for changes');
} else {
  const results = await Promise.all(present.map((b) => esbuild.build(toEsbuild(b))));
  /** Every file the shipping builds wrote (no source maps): what the package must contain. */
  const shipped = new Set();
  results.forEach((r, i) => {
    for (const [file, info] of Object.entries(r.metafile?.outputs ?? {})) {
      const name = distName(file);
      if (file.endsWith('.js') || file.endsWith('.css')) {
        metas[name] = info.bytes;
      }
      if (present[i].ship === true && !file.endsWith('.map')) {
        shipped.add(name);
      }
    }
  });
  mkdirSync(outRoot, { recursive: true });
  writeFileSync(join(outRoot, 'sizes.json'), JSON.stringify(metas, null, 2) + '\n');
  const lazy = Object.entries(metas).filter(([f]) => f.startsWith('dist/webview/hljs/') && f.endsWith('.js'));
  const shown = Object.entries(metas)
    .filter(([f]) => !f.startsWith('out/') && !f.startsWith('dist/webview/hljs/'))
    .map(([f, b]) => `${f} ${(b / 1024).toFixed(1)} KB`);
  if (lazy.length > 0) {
    const largest = Math.max(...lazy.map(([, b]) => b));
    shown.push(`dist/webview/hljs/*.js ${lazy.length} files (largest ${(largest / 1024).toFixed(1)} KB)`);
  }
  if (shown.length > 0) {
    console.log(`[build] ${shown.join(', ')}`);
  }
  if (withTests) {
    // out/ holds transpiled files only; JSON the sources import is copied next to them.
    cpSync(join(root, 'src/webview/highlight/languages.json'), join(root, 'out/src/webview/highlight/languages.json'));
  }
  if (existsSync(join(root, 'node_modules/@vscode/codicons/dist'))) {
    // The webview's icon font: copied, not built, and loaded by the chat page (webviewHtml.ts).
    for (const f of ['codicon.css', 'codicon.ttf']) {
      cpSync(join(root, 'node_modules/@vscode/codicons/dist', f), join(outRoot, 'webview', f));
      shipped.add(`dist/webview/${f}`);
    }
  }
  writeFileSync(join(outRoot, 'package-files.json'), JSON.stringify([...shipped].sort(), null, 2) + '\n');
  // hermes-acp-run: executable, so a symbolic link on PATH runs it (README: "from anywhere").
  if (existsSync(join(outRoot, 'cli.js'))) {
    chmodSync(join(outRoot, 'cli.js'), 0o755);
  }
}
