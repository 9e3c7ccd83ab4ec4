// Builds every program in this repository with esbuild.
//   node scripts/build.mjs               extension, webview, CLI, the scripted agent and the real-agents rig into dist/
//   node scripts/build.mjs --production  the same, minified, no source maps
//   node scripts/build.mjs --tests       also transpiles src/ and test/ to out/ for mocha
//   node scripts/build.mjs --watch       rebuilds on change
import * as esbuild from 'esbuild';
import { mkdirSync, writeFileSync, existsSync, cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const withTests = args.has('--tests');
const watch = args.has('--watch');

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
};

/** @type {esbuild.BuildOptions[]} */
const builds = [
  {
    ...common,
    entryPoints: { extension: 'src/extension.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...common,
    entryPoints: { scriptedAgent: 'test/agents/scriptedAgent.ts' },
    outdir: 'dist/agents',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // The real-agents rig (scripts/realAgents.mjs, test/realAgents/README.md); not shipped.
    ...common,
    entryPoints: { modelServer: 'test/realAgents/modelServerCli.ts', loadSession: 'test/realAgents/loadSession.ts', rig: 'test/realAgents/rig.ts', scrubTraffic: 'test/realAgents/scrubTraffic.ts' },
    outdir: 'dist/realAgents',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    ...common,
    entryPoints: { main: 'src/webview/main.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    minify: true,
    loader: { '.ttf': 'file', '.css': 'css' },
  },
];

const present = builds.filter((b) => Object.values(b.entryPoints).every((p) => existsSync(join(root, p))));

if (withTests) {
  present.push({
    absWorkingDir: root,
    entryPoints: ['src', 'test', 'bench'].filter((d) => existsSync(join(root, d))).map((d) => `${d}/**/*.ts`),
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
if (watch) {
  for (const b of present) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
  console.log('[build] watching for changes');
} else {
  const results = await Promise.all(present.map((b) => esbuild.build(b)));
  results.forEach((r, i) => {
    if (r.metafile) {
      for (const [file, info] of Object.entries(r.metafile.outputs)) {
        if (file.endsWith('.js') || file.endsWith('.css')) {
          metas[file] = info.bytes;
        }
      }
    }
    void i;
  });
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist', 'sizes.json'), JSON.stringify(metas, null, 2) + '\n');
  const shown = Object.entries(metas)
    .filter(([f]) => !f.startsWith('out/'))
    .map(([f, b]) => `${f} ${(b / 1024).toFixed(1)} KB`);
  if (shown.length > 0) {
    console.log(`[build] ${shown.join(', ')}`);
  }
  if (existsSync(join(root, 'node_modules/@vscode/codicons/dist'))) {
    cpSync(join(root, 'node_modules/@vscode/codicons/dist/codicon.css'), join(root, 'dist/webview/codicon.css'));
    cpSync(join(root, 'node_modules/@vscode/codicons/dist/codicon.ttf'), join(root, 'dist/webview/codicon.ttf'));
  }
}
