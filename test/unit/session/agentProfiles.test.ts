/**
 * Per-agent data read right: tool names, arguments, usage. Shapes as the agents send them
 * (reference/agents-in-the-wild.md, hermes-acp.md §6–7, the published packages named in
 * src/session/agentProfiles.ts); the end-to-end checks on recorded transcripts are in
 * test/unit/cli/fixtureNames.test.ts and replays.test.ts.
 */
import * as assert from 'node:assert/strict';
import { agentProfiles, genericProfile, profileFor } from '../../../src/session/agentProfiles';
import { isPartial, toolInput, toolName, type ToolFacts } from '../../../src/session/toolIdentity';
import { chunkUsage, parseQuotaUsage, turnTokens } from '../../../src/session/usage';

function profile(id: string): (typeof agentProfiles)[number] {
  const p = agentProfiles.find((x) => x.id === id);
  assert.ok(p !== undefined, id);
  return p;
}

const call = (over: Partial<ToolFacts>): ToolFacts => ({ toolCallId: 'c1', title: '', kind: 'other', ...over });

suite('agent profiles', () => {
  test('chosen by agentInfo.name, else by the program run; unknown agents get the generic profile', () => {
    assert.equal(profileFor('hermes-agent', 'env').id, 'hermes');
    assert.equal(profileFor('@zed-industries/claude-agent-acp', undefined).id, 'claude');
    assert.equal(profileFor(undefined, 'codex-acp').id, 'codex');
    assert.equal(profileFor('something-new', 'qwen').id, 'qwen');
    assert.equal(profileFor('something-new', 'something').id, 'generic');
    assert.equal(new Set(agentProfiles.flatMap((p) => p.names)).size, agentProfiles.flatMap((p) => p.names).length, 'no name selects two profiles');
  });

  test('Hermes: approval rawInput.tool, perm-check ids, 0.19 titles and newer `tool: preview` titles', () => {
    const hermes = profile('hermes');
    const cases: [Partial<ToolFacts>, string][] = [
      [{ toolCallId: 'edit-approval-1', title: 'Approve edit: /w/a.txt', kind: 'edit', rawInput: { tool: 'patch', arguments: { path: '/w/a.txt' } } }, 'patch'],
      [{ toolCallId: 'perm-check-2', title: 'delete in root path: rm -r /w/x', kind: 'execute', rawInput: { command: 'rm -r /w/x' } }, 'terminal'],
      [{ title: 'patch (replace): /w/a.txt', kind: 'edit' }, 'patch'],
      [{ title: 'read: /w/a.txt', kind: 'read' }, 'read_file'],
      [{ title: 'write: /w/new.txt', kind: 'edit' }, 'write_file'],
      [{ title: 'terminal: ls -la', kind: 'execute' }, 'terminal'],
      [{ title: 'web search: acp spec', kind: 'fetch' }, 'web_search'],
      [{ title: 'todo (3 items)', kind: 'other' }, 'todo'],
      [{ title: 'read_file: /w/a.txt', kind: 'read' }, 'read_file'],
      [{ title: 'mcp_github_search', kind: 'other' }, 'mcp_github_search'],
      [{ title: 'Something the agent wrote', kind: 'other' }, 'other'],
    ];
    for (const [facts, name] of cases) {
      assert.equal(toolName(hermes, call(facts)), name, JSON.stringify(facts));
    }
    assert.deepEqual(toolInput(hermes, { tool: 'write_file', arguments: { path: 'n.txt', content: 'x' } }, undefined), { path: 'n.txt', content: 'x' });
    assert.deepEqual(toolInput(hermes, { command: 'ls' }, undefined), { command: 'ls' });
  });

  test('Claude, Qwen, Gemini, Codex, pi, Cline: names where each puts them', () => {
    assert.equal(toolName(profile('claude'), call({ title: 'Terminal', kind: 'execute', meta: { claudeCode: { toolName: 'Bash' } } })), 'Bash');
    assert.equal(toolName(profile('claude'), call({ title: 'Read File', kind: 'read' })), 'read', 'no _meta yet: the kind, never the title');
    assert.equal(toolName(profile('qwen'), call({ title: 'WriteFile a.txt', kind: 'edit', meta: { toolName: 'write_file' } })), 'write_file');
    assert.equal(toolName(profile('gemini'), call({ toolCallId: 'run_shell_command__run_shell_command_1796_0', title: 'ls -la', kind: 'execute' })), 'run_shell_command');
    assert.equal(toolName(profile('gemini'), call({ toolCallId: 'abc', title: 'ls', kind: 'execute' })), 'execute');
    assert.equal(toolName(profile('codex'), call({ title: 'Edit /w/a', kind: 'edit', rawInput: { changes: {} } })), 'apply_patch');
    assert.equal(toolName(profile('codex'), call({ title: 'Read a', kind: 'read', rawInput: { command: ['cat', 'a'] } })), 'exec_command');
    assert.equal(toolName(profile('pi'), call({ title: 'edit', kind: 'edit' })), 'edit');
    assert.equal(toolName(profile('pi'), call({ title: 'npm test --silent', kind: 'execute' })), 'execute', 'bash titles are commands');
    assert.equal(toolName(profile('cline'), call({ title: 'read_files: {"paths":["a"]}', kind: 'read' })), 'read_files');
    assert.equal(toolName(genericProfile, call({ title: 'x', kind: 'fetch', name: 'web_fetch' })), 'web_fetch');
  });

  test('arguments that are not known yet: empty, still streaming (pi partialArgs, Qwen preparing)', () => {
    const pi = profile('pi');
    const qwen = profile('qwen');
    for (const empty of [undefined, null, '', {}, []]) {
      assert.equal(toolInput(genericProfile, empty, undefined), undefined, JSON.stringify(empty));
    }
    assert.equal(isPartial(pi, { partialArgs: '{"pa' }, undefined), true);
    assert.equal(toolInput(pi, { partialArgs: '{"pa' }, undefined), undefined);
    assert.deepEqual(toolInput(pi, { path: 'a' }, undefined), { path: 'a' });
    assert.equal(toolInput(qwen, { path: 'a' }, { phase: 'preparing', toolName: 'write_file' }), undefined);
    assert.deepEqual(toolInput(qwen, { path: 'a' }, { toolName: 'write_file' }), { path: 'a' });
    assert.deepEqual(toolInput(genericProfile, { partialArgs: 'x' }, undefined), { partialArgs: 'x' }, 'only pi marks partialArgs as streaming');
  });

  test('usage in _meta: Gemini quota, Qwen chunks, summed per call', () => {
    assert.deepEqual(parseQuotaUsage({ quota: { token_count: { input_tokens: 10, output_tokens: 5 }, model_usage: [] } }), { inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    assert.equal(parseQuotaUsage({ quota: { token_count: { input_tokens: '10' } } }), undefined);
    assert.equal(parseQuotaUsage(undefined), undefined);
    const call = { usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110, cachedReadTokens: 7 } };
    const summed = chunkUsage(chunkUsage(undefined, call), call);
    assert.deepEqual(summed, { inputTokens: 200, outputTokens: 20, totalTokens: 220, cachedReadTokens: 14 });
    assert.equal(chunkUsage(summed, { timestamp: 1 }), summed, 'a chunk without usage adds nothing');
    assert.equal(chunkUsage(undefined, { usage: { inputTokens: 5 }, parentToolCallId: 'sub' }), undefined, "a sub-agent's call is not the turn's");
  });

  test('one reading for the chat and the runner: the first source of the profile that holds any', () => {
    const response = { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, meta: { quota: { token_count: { input_tokens: 10, output_tokens: 5 } } } };
    const [gemini, pi, qwen] = [profile('gemini'), profile('pi'), profile('qwen')];
    assert.deepEqual(turnTokens(gemini.usage, response), { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, source: 'promptMetaQuota' });
    assert.deepEqual(turnTokens(['promptUsage'], response)?.source, 'promptUsage');
    assert.equal(turnTokens(pi.usage, response), undefined, 'pi reports none');
    assert.deepEqual(turnTokens(qwen.usage, { chunks: { inputTokens: 7, outputTokens: 1, totalTokens: 8 } })?.usage, { inputTokens: 7, outputTokens: 1, totalTokens: 8 });
  });
});
