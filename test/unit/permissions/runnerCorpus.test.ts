import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { events, killLeftovers, ofType, runCli, scriptedAgent, tempDir, type Event } from '../cli/cliHarness';
import { corpus, createTree, realPlaces, requestOf, type Places } from './corpus';
import { ruleSets, type RuleSetName, type Semantics } from './corpusShapes';

/**
 * The permission corpus end to end: the scripted agent (`[permission-file]`) sends every case as
 * a real `session/request_permission` to `hermes-acp-run --permissions FILE`, which answers through
 * the same policy as the extension. Nobody is there to ask, so "ask" must come back as the reject
 * option with "nobody to ask"; "reject" as the reject option chosen by a rule; "allow" as allow_once.
 * Windows and macOS cases run with `HERMES_ACP_PATH_SEMANTICS` on this machine's file system.
 */
suite('permission corpus: end to end through hermes-acp-run', function () {
  this.timeout(120_000);
  let root: string;
  let places: Places;
  const runs = new Map<string, Promise<Map<string, Event>>>();

  suiteSetup(() => {
    root = tempDir('hermes-perm-corpus-');
    places = realPlaces(root, os.homedir());
    createTree(places, false);
  });
  suiteTeardown(() => {
    killLeftovers();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** One runner process per rule set and platform; its `permission` events by tool call id. */
  function run(rules: RuleSetName, semantics: Semantics): Promise<Map<string, Event>> {
    const key = `${rules}-${semantics}`;
    let pending = runs.get(key);
    if (pending === undefined) {
      pending = (async () => {
        const requests = corpus.flatMap((c, i) => (c.rules === rules && (c.semantics ?? 'posix') === semantics ? [requestOf(c, i, places)] : []));
        const requestFile = path.join(root, `${key}.requests.json`);
        fs.writeFileSync(requestFile, JSON.stringify(requests.map((r) => ({ toolCall: r.toolCall, options: r.options }))));
        const rulesFile = path.join(root, `${key}.rules.json`);
        fs.writeFileSync(rulesFile, JSON.stringify(ruleSets[rules]));
        const cli = await runCli(
          ['-q', `[permission-file path=${requestFile}]`, '--format', 'stream-json', '--permissions', rulesFile, '--cwd', places.WS, '--', ...scriptedAgent],
          { cwd: root, env: { HERMES_ACP_PATH_SEMANTICS: semantics }, timeoutMs: 100_000 },
        );
        assert.equal(cli.code, 0, cli.stderr);
        const answered = new Map(ofType(events(cli), 'permission').map((e) => [String(e.tool_call_id), e]));
        assert.equal(answered.size, requests.length, `every request answered (${key})`);
        return answered;
      })();
      runs.set(key, pending);
    }
    return pending;
  }

  for (const [i, c] of corpus.entries()) {
    test(`${c.group} [${c.semantics ?? 'posix'}]: ${c.name} → ${c.expect === 'allow' ? 'allowed' : 'denied'}`, async () => {
      const answered = await run(c.rules, c.semantics ?? 'posix');
      const e = answered.get(`case-${i}`);
      assert.ok(e !== undefined, 'answered');
      const rule = String(e.rule);
      const detail = `${rule}\n  checked: ${JSON.stringify(e.targets)}`;
      if (c.expect === 'allow') {
        assert.equal(e.optionId, 'allow_once', detail);
      } else {
        assert.equal(e.optionId, 'deny', detail);
        assert.equal(rule.includes('nobody to ask'), c.expect === 'ask', `${c.expect}: ${detail}`);
      }
      assert.ok(Array.isArray(e.targets), 'the event lists what was checked');
    });
  }
});
