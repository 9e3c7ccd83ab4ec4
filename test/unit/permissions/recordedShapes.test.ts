/**
 * Every `rawInput` shape of every permission request in the recorded transcripts (test/fixtures:
 * Hermes, Claude, Codex, the SDK example, and the npm agents the rig recorded), through the pure
 * policy on a simulated file system: the policy reads every target the request names (no "cannot
 * read" problem, so nothing is "always asked" for want of reading it), an allow rule allows it, and
 * the same request naming a file outside the workspace is asked about. One test per shape.
 */
import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeTarget } from '../../../src/permissions/analysis';
import { PermissionPolicy } from '../../../src/permissions/policy';
import { readFixture } from '../../agents/fixtureFile';
import { fixturesDir } from '../../support/paths';
import { semanticsOf } from './corpus';
import { FakeFs } from './fakeFs';

interface Shape {
  readonly file: string;
  readonly line: number;
  /** Where the recording's workspace was. */
  readonly workspace: string;
  readonly request: acp.RequestPermissionRequest;
}

/** The workspace each recording ran in (test/fixtures/README.md), with `<LAB>` as `/lab`. */
function workspaceOf(file: string): string {
  const agent = /agents\/(claude|codex)-/.exec(file)?.[1];
  if (agent !== undefined) {
    return `/tmp/ws/${agent}`;
  }
  return file.includes('sdk-example') ? '/home/user/project' : '/lab/ws';
}

function* fixtureFiles(dir: string): Generator<string> {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) {
      yield* fixtureFiles(p);
    } else if (name.endsWith('.jsonl')) {
      yield p;
    }
  }
}

/** One request per agent and `rawInput` shape (its sorted keys), the first one recorded. */
function recordedShapes(): Map<string, Shape> {
  const shapes = new Map<string, Shape>();
  // ACP recordings only: the gateway, API Server and start-failure recordings have other formats.
  const acpRecordings = ['hermes', 'agents', 'realAgents'].flatMap((d) => [...fixtureFiles(path.join(fixturesDir, d))]);
  for (const file of acpRecordings) {
    const rel = path.relative(fixturesDir, file);
    for (const e of readFixture(file)) {
      if (e.type !== 'frame' || e.method !== 'session/request_permission') {
        continue;
      }
      const msg = JSON.parse(e.raw.split('<LAB>').join('/lab')) as { params: acp.RequestPermissionRequest };
      const raw = msg.params.toolCall.rawInput;
      const keys = raw !== null && typeof raw === 'object' ? Object.keys(raw).sort().join(',') : '';
      const key = `${path.basename(rel, '.jsonl').split('-')[0] ?? rel} {${keys}}`;
      if (!shapes.has(key)) {
        shapes.set(key, { file: rel, line: e.line, workspace: workspaceOf(rel), request: msg.params });
      }
    }
  }
  return shapes;
}

function policyFor(workspace: string): PermissionPolicy {
  const sem = semanticsOf.posix;
  return new PermissionPolicy([{ effect: 'allow', description: 'allow everything' }], {
    cwd: workspace,
    roots: [workspace],
    home: '/home/u',
    semantics: sem,
    fs: new FakeFs(sem, { [`${workspace}/.keep`]: 'file', '/outside/.keep': 'file' }),
    sensitive: [],
  });
}

/** The request with the workspace's folder renamed to one outside it. */
function movedOutside(shape: Shape): acp.RequestPermissionRequest {
  return JSON.parse(JSON.stringify(shape.request).split(shape.workspace).join('/outside')) as acp.RequestPermissionRequest;
}

/** What each shape must check (describeTarget), as the recording names it. */
const expectedTargets: Readonly<Record<string, readonly string[]>> = {
  'claude {file_path,new_string,old_string,replace_all}': ['write hello.txt'],
  'claude {command,description}': ['run touch created-by-shell.txt', 'run echo created'],
  'claude {content,file_path}': ['write new.txt'],
  'codex {call_id,changes,started_at_ms,turn_id}': ['write hello.txt'],
  // The argv `bash -lc …` and its `parsed_cmd` name the same two commands: each checked once.
  'codex {available_decisions,call_id,command,cwd,parsed_cmd,proposed_execpolicy_amendment,started_at_ms,turn_id}': [
    'run touch created-by-shell.txt',
    'run echo created',
    'read .',
  ],
  'sdk {content,path}': ['write config.json'],
  'edits {arguments,tool}': ['write hello.txt'],
  'main {arguments,tool}': ['write hello.txt'],
  'main {command,description}': ['run rm -r /lab/ws/scratch'],
  // Cline's run_commands: `commands: [string]`, each one a command (not the title).
  'cline {commands}': ['run echo rig-shell-ok (output redirected to rig-shell-proof.txt)', 'write rig-shell-proof.txt'],
  // Cline's read_files: `files: [{path}]`.
  'cline {files}': ['read rig-target.txt'],
  'cline {input}': ['write rig-target.txt'],
  'gemini {}': ['write rig-target.txt'],
  'opencode {diff,filepath}': ['write rig-target.txt'],
  'opencode {command}': ['run echo rig-shell-ok (output redirected to rig-shell-proof.txt)', 'write rig-shell-proof.txt'],
  'qwen {file_path,new_string,old_string}': ['write rig-target.txt'],
};

suite('permission policy: every rawInput shape in the recorded transcripts', () => {
  const shapes = recordedShapes();

  test('the recordings hold the shapes this suite names (and no unnamed one)', () => {
    assert.deepEqual([...shapes.keys()].sort(), Object.keys(expectedTargets).sort());
  });

  for (const [key, shape] of shapes) {
    test(`${key} (${shape.file}:${shape.line}): every target read, allowed by a rule; outside the workspace, asked`, () => {
      const decision = policyFor(shape.workspace).evaluate(shape.request);
      assert.deepEqual(decision.analysis.problems, [], 'nothing the policy could not read');
      assert.deepEqual(decision.analysis.targets.map(describeTarget).map((d) => d.replace(/ \(.*rule.*\)$/, '')), expectedTargets[key]);
      const redirect = decision.analysis.targets.some((t) => t.type === 'command' && t.blockers.length > 0) || decision.analysis.targets.some((t) => t.type === 'path' && t.access === 'write' && t.source.includes('redirect'));
      assert.equal(decision.effect, redirect ? 'ask' : 'allow', decision.effect === 'ask' ? decision.reason : decision.rule);
      // A request naming its files by absolute path (Cline's patch names them relative to its cwd).
      if (decision.analysis.targets.some((t) => t.type === 'path') && JSON.stringify(shape.request.toolCall).includes(shape.workspace)) {
        const outside = policyFor(shape.workspace).evaluate(movedOutside(shape));
        assert.equal(outside.effect, 'ask', `outside the workspace: ${outside.analysis.targets.map(describeTarget).join(' | ')}`);
      }
    });
  }
});
