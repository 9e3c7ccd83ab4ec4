import * as assert from 'node:assert/strict';
import { ViewProjector } from '../../src/session/viewProjection';
import type { ToolContentView } from '../../src/protocol/sessionView';
import { api, useScriptedAgent, waitFor } from './support';

suite('terminals (terminal/* from the agent, live in the tool card)', () => {
  test("a terminal's output shows live in its card and stays after release", async () => {
    await useScriptedAgent({}, 'terminal-agent');
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    const turn = chat.submit([{ type: 'text', text: '[terminal cmd=for i in 1 2 3 4; do echo tick $i; sleep 0.3; done]' }]);
    const terminalView = (): Extract<ToolContentView, { type: 'terminal' }> | undefined => {
      const projector = new ViewProjector();
      const view = projector.snapshot(chat.controller.state, a.manager.viewContext(chat));
      for (const e of view.entries) {
        if (e.kind === 'tool') {
          for (const c of e.content) {
            if (c.type === 'terminal') {
              return c;
            }
          }
        }
      }
      return undefined;
    };
    const live = await waitFor('live output', () => {
      const t = terminalView();
      return t !== undefined && t.running && t.output.includes('tick 1') && !t.output.includes('tick 4') ? t : undefined;
    });
    assert.equal(live.running, true);
    const result = await turn;
    assert.equal(result?.kind, 'ended');
    const done = terminalView();
    assert.ok(done !== undefined);
    assert.match(done.output, /tick 1\ntick 2\ntick 3\ntick 4/);
    assert.equal(done.running, false);
    assert.equal(done.exitCode, 0);
    const released = a.manager.terminals.snapshot(done.terminalId);
    assert.equal(released?.released, true, 'the agent released it; the card still shows the output');
  });
});
