import * as path from 'node:path';

/**
 * Loads a module the build ships as a script of its own (`dist/<name>.js`, the `chunks` of
 * scripts/build.mjs) the first time it is needed, so that activation does not parse it (P4: the
 * extension bundle's budget). `dir` is the caller's `__dirname`: `dist/` inside a bundle; in the
 * test build (out/, one file per module) the transpiled module of the same name sits next to the
 * caller — the same relative place in both, as for the bzip2 worker.
 */
export function loadChunk<T>(dir: string, name: string): T {
  // A path known only at run time, so esbuild leaves the require to Node instead of inlining the chunk.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(dir, `${name}.js`)) as T;
}
