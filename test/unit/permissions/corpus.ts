/** Every case of the permission corpus, and how a case runs against the pure policy. */
import type * as acp from '@agentclientprotocol/sdk';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PermissionPolicy } from '../../../src/permissions/policy';
import type { PathSemantics, PolicyDecision } from '../../../src/permissions/types';
import { commandCases } from './corpusCommands';
import { kindCases, sensitiveCases } from './corpusNames';
import { foldingCases, hiddenTargetCases, symlinkCases, traversalCases } from './corpusPaths';
import { commandOptions, editOptions, ruleSets, substitute, workspaceTree, type CorpusCase, type Semantics } from './corpusShapes';
import { FakeFs, type FakeEntry } from './fakeFs';

export const corpus: readonly CorpusCase[] = [
  ...traversalCases,
  ...symlinkCases,
  ...hiddenTargetCases,
  ...foldingCases,
  ...sensitiveCases,
  ...commandCases,
  ...kindCases,
];

export const semanticsOf: Record<Semantics, PathSemantics> = {
  posix: { flavor: 'posix', caseInsensitive: false },
  darwin: { flavor: 'posix', caseInsensitive: true },
  win32: { flavor: 'win32', caseInsensitive: true },
};

export interface Places {
  readonly WS: string;
  readonly WSUPPER: string;
  readonly OUT: string;
  readonly HOME: string;
}

export const simulatedPlaces: Record<Semantics, Places> = {
  posix: { WS: '/ws', WSUPPER: '/WS', OUT: '/outside', HOME: '/home/u' },
  darwin: { WS: '/ws', WSUPPER: '/WS', OUT: '/outside', HOME: '/Users/u' },
  win32: { WS: 'C:\\ws', WSUPPER: 'C:\\WS', OUT: 'C:\\outside', HOME: 'C:\\Users\\u' },
};

/** The request a case sends: its tool call with the placeholders filled in, and Hermes' options for its kind. */
export function requestOf(c: CorpusCase, index: number, places: Places): acp.RequestPermissionRequest {
  const toolCall = substitute({ ...c.toolCall, toolCallId: `case-${index}` }, { ...places });
  return { sessionId: 's', toolCall, options: c.toolCall.kind === 'execute' ? commandOptions : editOptions };
}

/** The workspace tree with the placeholders filled in, for the simulated file system. */
export function treeFor(places: Places): Record<string, FakeEntry> {
  return Object.fromEntries(Object.entries(workspaceTree).map(([k, v]) => [substitute(k, { ...places }), substitute(v, { ...places })]));
}

/** Runs a case through the pure module on the simulated file system of its platform. */
export function decideSimulated(c: CorpusCase, index: number): PolicyDecision {
  const semantics = c.semantics ?? 'posix';
  const places = simulatedPlaces[semantics];
  const sem = semanticsOf[semantics];
  const set = ruleSets[c.rules];
  const policy = new PermissionPolicy(set.rules, {
    cwd: places.WS,
    roots: [places.WS],
    home: places.HOME,
    semantics: sem,
    fs: new FakeFs(sem, treeFor(places)),
    sensitive: 'sensitivePaths' in set ? set.sensitivePaths : [],
  });
  return policy.evaluate(requestOf(c, index, places));
}

/**
 * Creates the workspace tree for real (files, folders, symbolic and hard links). Entries under
 * `{HOME}` are left out unless `home` is a scratch folder: the real home folder is never touched.
 */
export function createTree(places: Places, withHome: boolean): void {
  for (const [where, entry] of Object.entries(workspaceTree)) {
    if (where.startsWith('{HOME}') && !withHome) {
      continue;
    }
    const p = substitute(where, { ...places });
    fs.mkdirSync(path.dirname(p), { recursive: true });
    if (typeof entry === 'object' && 'hardlinkOf' in entry) {
      fs.linkSync(substitute(entry.hardlinkOf, { ...places }), p);
    } else if (typeof entry === 'object') {
      fs.symlinkSync(substitute(entry.link, { ...places }), p);
    } else if (entry === 'dir') {
      fs.mkdirSync(p, { recursive: true });
    } else {
      fs.writeFileSync(p, 'original\n');
    }
  }
}

/** The same placeholders on this machine (for the runner). */
export function realPlaces(root: string, home: string): Places {
  const ws = path.join(root, 'ws');
  return { WS: ws, WSUPPER: ws.toUpperCase(), OUT: path.join(root, 'outside'), HOME: home };
}
