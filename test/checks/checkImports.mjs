// The import rules of ARCHITECTURE.md "Layers" (issue 39), read from the source itself:
// - every import between files of src/ — static `import` and `export … from` (type-only ones
//   included: a type is a dependency too), dynamic `import()`, `require()` — found by the TypeScript
//   compiler's own pre-processor (`ts.preProcessFile`, which skips comments and strings);
// - no cycle of files anywhere in src/;
// - each room imports only the rooms its row of the layer table names (below), so the agent port
//   stays at the bottom, no protocol room knows another or the host above them, and the session
//   layer talks to agents only through the port;
// - a file in a room the table does not know fails too (a new room needs a row).
//   node test/checks/checkImports.mjs          check src/
//   node test/checks/checkImports.mjs --graph  also print who imports whom, room by room
//   node test/checks/checkImports.mjs --mermaid  also print it as a mermaid flowchart (src/util left
//                                                 out: every room may use it), as in ARCHITECTURE.md
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsFiles } from './tsFiles.mjs';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'src');

/**
 * The layer table: room → the rooms it may import (its own files always). A room is a folder of
 * src/ (`src/transports` has three: its shared files, and one per protocol adapter), or
 * `extension.ts`. Keep in step with ARCHITECTURE.md "Layers" and eslint.config.mjs.
 */
const layers = {
  util: [],
  protocol: [],
  agentPort: ['util'],
  process: ['util'],
  wire: ['agentPort', 'process', 'util'],
  acp: ['agentPort', 'wire', 'process', 'util'],
  transports: ['agentPort', 'wire', 'process', 'util'],
  'transports/jsonRpc': ['transports', 'agentPort', 'wire', 'process', 'util'],
  'transports/tuiGateway': ['transports', 'transports/jsonRpc', 'agentPort', 'wire', 'process', 'util'],
  // Hermes names its tools alike on both: the API Server's streams reuse the gateway's `toolKind`.
  'transports/apiServer': ['transports', 'transports/tuiGateway', 'agentPort', 'wire', 'process', 'util'],
  host: ['acp', 'transports', 'transports/jsonRpc', 'transports/tuiGateway', 'transports/apiServer', 'agentPort', 'wire', 'process', 'util'],
  session: ['agentPort', 'protocol', 'util'],
  permissions: ['protocol', 'util'],
  changes: ['session', 'util'],
  worktree: ['permissions', 'process', 'util'],
  registry: ['host', 'agentPort', 'wire', 'process', 'util'],
  mcp: ['registry', 'wire', 'util'],
  app: ['worktree', 'host', 'acp', 'session', 'permissions', 'mcp', 'changes', 'registry', 'agentPort', 'wire', 'process', 'protocol', 'util'],
  cli: ['app', 'worktree', 'host', 'acp', 'session', 'permissions', 'mcp', 'registry', 'agentPort', 'wire', 'process', 'protocol', 'util'],
  views: ['app', 'worktree', 'host', 'acp', 'session', 'permissions', 'changes', 'registry', 'mcp', 'agentPort', 'wire', 'process', 'protocol', 'util'],
  'extension.ts': ['views', 'app', 'worktree', 'host', 'acp', 'session', 'permissions', 'changes', 'registry', 'mcp', 'agentPort', 'wire', 'process', 'protocol', 'util'],
  webview: ['protocol'],
};
/** Rooms with sub-rooms of their own; any other nested folder belongs to its top folder (src/views/chat is src/views). */
const splitRooms = new Set(['transports/jsonRpc', 'transports/tuiGateway', 'transports/apiServer']);

function roomOf(rel) {
  const parts = rel.split('/').slice(1);
  if (parts.length === 1) {
    return parts[0];
  }
  const two = `${parts[0]}/${parts[1]}`;
  return parts.length > 2 && splitRooms.has(two) ? two : parts[0];
}

const toRel = (p) => relative(root, p).split(sep).join('/');

/** The file a relative specifier names (as the bundler and tsc resolve it), or undefined outside src/. */
function resolveImport(fromFile, spec) {
  const base = resolve(dirname(fromFile), spec);
  for (const candidate of [`${base}.ts`, `${base}.d.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) {
      return candidate.startsWith(src + sep) ? toRel(candidate) : undefined;
    }
  }
  return undefined;
}

const problems = [];
/** @type {Map<string, string[]>} file → the src files it imports */
const graph = new Map();
for (const file of tsFiles(src)) {
  const rel = toRel(file);
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) {
      continue;
    }
    const target = resolveImport(file, fileName);
    if (target === undefined) {
      if (!existsSync(resolve(dirname(file), fileName)) && !existsSync(`${resolve(dirname(file), fileName)}.ts`)) {
        problems.push(`${rel}: imports "${fileName}", which names no file`);
      }
      continue;
    }
    targets.push(target);
  }
  graph.set(rel, targets);
}

// Rooms.
const roomEdges = new Map();
for (const [file, targets] of graph) {
  const from = roomOf(file);
  const allowed = layers[from];
  if (allowed === undefined) {
    problems.push(`${file}: room "src/${from}" is not in the layer table (test/checks/checkImports.mjs, ARCHITECTURE.md "Layers")`);
    continue;
  }
  for (const target of targets) {
    const to = roomOf(target);
    if (to === from) {
      continue;
    }
    if (!roomEdges.has(from)) {
      roomEdges.set(from, new Set());
    }
    roomEdges.get(from).add(to);
    if (!allowed.includes(to)) {
      problems.push(`${file} imports ${target}: src/${from} may import only ${allowed.length === 0 ? 'nothing else in src' : allowed.map((r) => `src/${r}`).join(', ')}`);
    }
  }
}

// Cycles: strongly connected components of the file graph (Tarjan), each shown as one loop.
function cycles() {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const indexOf = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), indexOf.get(w)));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) {
        found.push(component);
      }
    }
  };
  for (const v of graph.keys()) {
    if (!indexOf.has(v)) {
      visit(v);
    }
  }
  return found;
}

/** One loop through a component, from its first file back to it (breadth-first, so a shortest one). */
function loopThrough(component) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const path = [v];
        for (let p = previous.get(v); p !== undefined; p = previous.get(p)) {
          path.unshift(p);
        }
        return [...path, start];
      }
      if (members.has(w) && !previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

for (const component of cycles()) {
  problems.push(`a cycle of ${component.length} file(s): ${loopThrough(component).join(' → ')}`);
}

if (process.argv.includes('--graph')) {
  for (const room of Object.keys(layers)) {
    console.log(`${room.padEnd(22)} → ${[...(roomEdges.get(room) ?? [])].sort().join(', ')}`);
  }
}

if (process.argv.includes('--mermaid')) {
  const id = (room) => room.replace(/[/.]/g, '_');
  console.log('flowchart TD');
  for (const room of Object.keys(layers).filter((r) => r !== 'util')) {
    console.log(`  ${id(room)}["${room}"]`);
  }
  for (const room of Object.keys(layers)) {
    for (const to of [...(roomEdges.get(room) ?? [])].sort()) {
      if (to !== 'util') {
        console.log(`  ${id(room)} --> ${id(to)}`);
      }
    }
  }
}

if (problems.length > 0) {
  console.error(`checkImports: ${problems.length} problem(s)\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
const edges = [...graph.values()].reduce((n, t) => n + t.length, 0);
console.log(`checkImports: ${graph.size} files under src/, ${edges} imports between them; no cycle; every room imports only what its row of the layer table allows`);
