/** The rig's scenarios: what the scripted model does, the runner's permission policy, the prompt. */
import type { ScenarioName } from './scenarioScript';

export interface RigScenario {
  readonly id: string;
  readonly server: ScenarioName;
  readonly permissions: 'allow' | 'deny';
  readonly prompt: string;
  /** The runner's `--timeout`. */
  readonly timeoutSec: number;
  /** Send SIGINT to the runner once the reply streams. */
  readonly interrupt: boolean;
  /** After the run, start the agent again and `session/load` the run's session. */
  readonly loadAfter: boolean;
  /** Exit codes the runner's README promises for this scenario. */
  readonly expectedExit: readonly number[];
}

const editPrompt = 'In rig-target.txt, replace "Hello world" with "Hello ACP".';

export const rigScenarios: readonly RigScenario[] = [
  { id: 'text', server: 'text', permissions: 'deny', prompt: 'Say hello.', timeoutSec: 300, interrupt: false, loadAfter: true, expectedExit: [0] },
  { id: 'edit-allow', server: 'edit', permissions: 'allow', prompt: editPrompt, timeoutSec: 300, interrupt: false, loadAfter: false, expectedExit: [0] },
  { id: 'edit-deny', server: 'edit', permissions: 'deny', prompt: editPrompt, timeoutSec: 300, interrupt: false, loadAfter: false, expectedExit: [0, 1] },
  {
    id: 'shell',
    server: 'shell',
    permissions: 'allow',
    prompt: 'Run the shell command: echo rig-shell-ok > rig-shell-proof.txt',
    timeoutSec: 300,
    interrupt: false,
    loadAfter: false,
    expectedExit: [0],
  },
  // Opt-in (issue 38): the agent's todo tool with a three-step plan; the runner writes `plan` events.
  { id: 'plan', server: 'plan', permissions: 'allow', prompt: 'Write a three-step plan with your todo tool.', timeoutSec: 300, interrupt: false, loadAfter: false, expectedExit: [0] },
  { id: 'error429', server: 'error429', permissions: 'deny', prompt: 'Say hello.', timeoutSec: 240, interrupt: false, loadAfter: false, expectedExit: [75] },
  { id: 'error500', server: 'error500', permissions: 'deny', prompt: 'Say hello.', timeoutSec: 240, interrupt: false, loadAfter: false, expectedExit: [75] },
  { id: 'sigint', server: 'slow', permissions: 'deny', prompt: 'Count slowly.', timeoutSec: 300, interrupt: true, loadAfter: false, expectedExit: [130] },
  // Not in the default set: `--scenarios error400,flaky` adds them.
  { id: 'error400', server: 'error400', permissions: 'deny', prompt: 'Say hello.', timeoutSec: 240, interrupt: false, loadAfter: false, expectedExit: [1] },
  { id: 'flaky', server: 'flaky', permissions: 'deny', prompt: 'Say hello.', timeoutSec: 240, interrupt: false, loadAfter: false, expectedExit: [0] },
];

export const defaultScenarioIds = ['text', 'edit-allow', 'edit-deny', 'shell', 'error429', 'error500', 'sigint'];
