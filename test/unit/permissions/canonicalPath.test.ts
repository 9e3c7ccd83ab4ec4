import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { canonicalize, comparisonKey, locateInRoots } from '../../../src/permissions/canonicalPath';
import { nodePermissionFs } from '../../../src/permissions/nodeFs';
import type { PathSemantics } from '../../../src/permissions/types';
import { createTree, realPlaces, semanticsOf, simulatedPlaces, treeFor } from './corpus';
import { FakeFs } from './fakeFs';

const posix = semanticsOf.posix;

suite('canonical paths', () => {
  test('the simulated file system resolves like the real one (same tree, every corpus path shape)', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-canon-')));
    try {
      const places = realPlaces(root, path.join(root, 'home'));
      createTree(places, true);
      const fake = new FakeFs(posix, treeFor(places));
      const probes = ['src/a.ts', 'src/link/.env', 'src/link/docs', 'src/out/secret.txt', 'src/out/new.txt', 'src/selflink/a.ts', 'src/envlink.ts', 'src/alias.ts', 'src/dangling', 'src/dangling/x', 'src/loop/x', 'src/a.ts/x', 'src/out/../x', 'src/link/../x', 'nope/deeper', 'src/hardlink.txt'];
      for (const probe of probes) {
        const real = canonicalize(probe, { cwd: places.WS, home: places.HOME, semantics: posix, fs: nodePermissionFs });
        const simulated = canonicalize(probe, { cwd: places.WS, home: places.HOME, semantics: posix, fs: fake });
        assert.deepEqual('canonical' in simulated, 'canonical' in real, probe);
        if ('canonical' in real && 'canonical' in simulated) {
          assert.equal(simulated.canonical, real.canonical, probe);
        }
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('.. applies after the links before it, like the OS', () => {
    const places = simulatedPlaces.posix;
    const fake = new FakeFs(posix, treeFor(places));
    const at = (p: string): string => {
      const c = canonicalize(p, { cwd: places.WS, home: places.HOME, semantics: posix, fs: fake });
      return 'canonical' in c ? c.canonical : c.problem;
    };
    assert.equal(at('src/out/../x.txt'), '/x.txt');
    assert.equal(at('src/link/src/a.ts'), '/ws/src/a.ts');
    assert.equal(at('src/new/../a.ts'), '/ws/src/a.ts', 'past the existing prefix, names are taken as written');
    assert.match(at('src/loop'), /ELOOP/);
    assert.match(at('src/dangling'), /missing target/);
  });

  test('macOS: links are found whatever the case of their names', () => {
    const places = simulatedPlaces.darwin;
    const fake = new FakeFs(semanticsOf.darwin, treeFor(places));
    const c = canonicalize('Src/Out/secret.txt', { cwd: places.WS, home: places.HOME, semantics: semanticsOf.darwin, fs: fake });
    assert.deepEqual(c, { canonical: '/outside/secret.txt' });
  });

  test('Windows: drive letters, separators, device prefixes, trailing dots and streams fold', () => {
    const sem: PathSemantics = semanticsOf.win32;
    const places = simulatedPlaces.win32;
    const fake = new FakeFs(sem, treeFor(places));
    const at = (p: string): string => {
      const c = canonicalize(p, { cwd: places.WS, home: places.HOME, semantics: sem, fs: fake });
      return 'canonical' in c ? c.canonical : `problem: ${c.problem}`;
    };
    assert.equal(at('SRC\\A.TS'), 'C:\\ws\\src\\a.ts');
    assert.equal(at('c:/WS/src/a.ts'), 'C:\\ws\\src\\a.ts');
    assert.equal(at('\\\\?\\C:\\ws\\src\\.env. '), 'C:\\ws\\src\\.env');
    assert.equal(at('src\\notes.txt:secret:$DATA'), 'C:\\ws\\src\\notes.txt');
    assert.match(at('C:src\\a.ts'), /another drive/);
    assert.match(at('src\\. \\x'), /dots and spaces/);
    assert.equal(locateInRoots('c:\\WS\\Src\\a.ts', ['C:\\ws'], sem), 'Src/a.ts');
    assert.equal(locateInRoots('C:\\wsx\\a.ts', ['C:\\ws'], sem), undefined, 'a sibling with the same prefix is outside');
    assert.equal(comparisonKey('C:\\WS\\', sem), 'c:/ws');
  });

  test('several workspace folders: the innermost holds the target; outside all is undefined', () => {
    assert.equal(locateInRoots('/a/b/c.ts', ['/a', '/a/b'], posix), 'c.ts');
    assert.equal(locateInRoots('/a/x.ts', ['/a', '/a/b'], posix), 'x.ts');
    assert.equal(locateInRoots('/c/x.ts', ['/a', '/a/b'], posix), undefined);
    assert.equal(locateInRoots('/a', ['/a'], posix), '');
    assert.equal(locateInRoots('/ab/x', ['/a'], posix), undefined);
  });

  test('URIs, ~ and unusable values', () => {
    const fake = new FakeFs(posix, {});
    const at = (p: string): string => {
      const c = canonicalize(p, { cwd: '/ws', home: '/home/u', semantics: posix, fs: fake });
      return 'canonical' in c ? c.canonical : `problem: ${c.problem}`;
    };
    assert.equal(at('file:///ws/a%20b.ts'), '/ws/a b.ts');
    assert.match(at('file://evil.example/ws/a.ts'), /problem/);
    assert.match(at('https://example.com/a'), /not a file path/);
    assert.equal(at('~/x'), '/home/u/x');
    assert.match(at('~bob/x'), /another user/);
    assert.match(at(''), /unusable/);
  });
});
