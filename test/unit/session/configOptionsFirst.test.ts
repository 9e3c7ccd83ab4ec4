import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ViewProjector, type ViewContext } from '../../../src/session/viewProjection';
import { replayAgentCommand, scriptedAgentCommand, startStack, tempWorkspace, type AgentStack } from '../../support/agentStack';
import { fixturesDir } from '../../support/paths';

const ctx: ViewContext = { agentName: 'agent', readOnly: false, acceptsImages: true, pendingPermissions: 0, now: 0, relativePath: (p) => p };

suite('composer selectors: config options first (ACP session-config-options)', () => {
  let stack: AgentStack | undefined;

  teardown(async () => {
    await stack?.dispose();
    stack = undefined;
  });

  test('Claude Agent (recorded) sends modes, models and configOptions: only its configOptions drive the selectors', async () => {
    const lab = tempWorkspace('hermes-lab-');
    stack = await startStack(replayAgentCommand(lab, path.join(fixturesDir, 'agents', 'claude-main.jsonl'), ['--segment', '1', '--stay']));
    await stack.controller.start();
    const state = stack.controller.state;
    assert.ok(state.modes !== undefined && state.models !== undefined, 'the legacy fields arrived (and stay in the state)');
    const header = new ViewProjector().snapshot(state, ctx).header;
    assert.equal(header.modes, undefined);
    assert.equal(header.models, undefined);
    assert.deepEqual(
      header.configOptions.map((o) => [o.id, o.category, o.type]),
      [
        ['mode', 'mode', 'select'],
        ['model', 'model', 'select'],
      ],
    );
    const model = header.configOptions[1];
    assert.deepEqual(model?.type === 'select' ? model.select.options.map((o) => o.id) : [], ['default', 'sonnet[1m]', 'opus[1m]', 'haiku']);
  });

  test('an agent without configOptions (Hermes 0.19, here the scripted agent) keeps its mode and model selectors', async () => {
    stack = await startStack(scriptedAgentCommand(tempWorkspace()));
    await stack.controller.start();
    const header = new ViewProjector().snapshot(stack.controller.state, ctx).header;
    assert.deepEqual(header.configOptions, []);
    assert.deepEqual(header.modes?.options.map((o) => o.id), ['default', 'accept_edits', 'dont_ask']);
    assert.deepEqual(header.models?.options.map((o) => o.id), ['scripted:fast', 'scripted:smart']);
  });
});
