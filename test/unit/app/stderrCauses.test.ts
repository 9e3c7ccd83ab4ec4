import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentExitedError, AgentTimeoutError } from '../../../src/agentPort/agentErrors';
import { describeStartError } from '../../../src/app/startErrors';
import { lastLines, recogniseStderr } from '../../../src/app/stderrCauses';
import { fixturesDir } from '../../support/paths';

/** The stderr lines of a recording in test/fixtures/startFailures. */
function recordedStderr(file: string): string {
  const text = fs.readFileSync(path.join(fixturesDir, 'startFailures', file), 'utf8');
  if (file.endsWith('.txt')) {
    return text;
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { dir: string; text: string })
    .filter((e) => e.dir === 'stderr')
    .map((e) => e.text)
    .join('\n');
}

const agent = { id: 'a', name: 'Agent', command: 'agent', args: [], env: {} };

suite('stderr causes: what a failed start likely means (recorded output, with benign twins)', () => {
  test('recorded: Claude Code as root, npx ETARGET, npx E404', () => {
    assert.equal(recogniseStderr(recordedStderr('claude-code-acp-0.16.0-root.jsonl'))?.kind, 'root');
    const etarget = recogniseStderr(recordedStderr('npx-gemini-cli-0.27.3-etarget.jsonl'));
    assert.equal(etarget?.kind, 'missingVersion');
    assert.equal(etarget.summary, 'The package version @google/gemini-cli@0.27.3 does not exist on the npm registry (ETARGET).');
    const e404 = recogniseStderr(recordedStderr('npx-e404.stderr.txt'));
    assert.equal(e404?.kind, 'missingPackage');
    assert.equal(e404.summary, 'The package was not found on the registry (https://registry.npmjs.org/@example-does-not-exist-xyz%2fagent).');
  });

  const corpus: [string, string | undefined][] = [
    // root, and twins that mention root without refusing it
    ['Error: this program must not be run as root', 'root'],
    ['refusing to run as root; use a regular user', 'root'],
    ['workspace root: /home/me/project', undefined],
    ['running with sudo privileges is supported', undefined],
    // credentials, and twins
    ['Error: OPENAI_API_KEY environment variable is not set', 'credentials'],
    ['Please log in with `gemini auth login` first', 'credentials'],
    ['401 Unauthorized: invalid x-api-key', 'credentials'],
    ['Authentication required. Run `codex login`.', 'credentials'],
    ['Loaded API key from the keychain', undefined],
    ['credentials file found at ~/.config/agent/credentials.json', undefined],
    // packages and the network, and twins
    ['npm error notarget No matching version found for pi-acp@9.9.9.', 'missingVersion'],
    ['  × No solution found when resolving tool dependencies:', 'missingPackage'],
    ['npm error network request to https://registry.npmjs.org/pi-acp failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org', 'registryUnreachable'],
    ['npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported', undefined],
    ['served 404 pages: 0', undefined],
    // missing programs, and twins
    ['/bin/sh: 1: pi: not found', 'missingProgram'],
    ["Error: Cannot find module '@anthropic-ai/claude-agent-sdk'", 'missingProgram'],
    ["ModuleNotFoundError: No module named 'hermes_cli'", 'missingProgram'],
    ['config.yaml: No such file or directory (using defaults)', undefined],
    ['[scripted-agent] started, pid 1234, modes + legacy models', undefined],
  ];
  for (const [line, kind] of corpus) {
    test(`${kind ?? 'nothing'}: ${line}`, () => {
      assert.equal(recogniseStderr(line)?.kind, kind);
    });
  }

  test('the last line that names a cause wins; the card shows at most the last 12 lines', () => {
    assert.equal(recogniseStderr('Please log in first\nnpm error code ETARGET')?.kind, 'missingVersion');
    const many = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');
    assert.equal(lastLines(many).split('\n').length, 12);
    assert.equal(lastLines(many).split('\n')[0], 'line 18');
  });

  test('the start-error card: the cause in words, the lines as a log; without a cause the lines alone', () => {
    const exit = describeStartError(new AgentExitedError(1, null, recordedStderr('npx-gemini-cli-0.27.3-etarget.jsonl'), false), agent);
    assert.match(exit.detail ?? '', /^Likely cause: The package version @google\/gemini-cli@0\.27\.3/);
    assert.match(exit.log ?? '', /^npm error code ETARGET/);
    const plain = describeStartError(new AgentExitedError(3, null, 'Traceback (most recent call last):\n  boom', false), agent);
    assert.equal(plain.detail, undefined);
    assert.equal(plain.log, 'Traceback (most recent call last):\n  boom');
    const silent = describeStartError(new AgentExitedError(3, null, '', false), agent);
    assert.equal(silent.detail, 'It wrote nothing to stderr; the traffic log shows what it sent.');
    const hang = describeStartError(new AgentTimeoutError('session/new', 120_000), agent, undefined, undefined, 'still loading plugins…');
    assert.equal(hang.detail, 'Its last lines of output are below; the traffic log has everything it sent.');
    assert.equal(hang.log, 'still loading plugins…');
  });
});
