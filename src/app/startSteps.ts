import type { AgentHost } from '../host/agentHost';
import type { Localize } from '../util/l10n';
import { recogniseStderr } from './stderrCauses';

/** What a chat's start steps need from the chat: its status line and its agent. */
export interface StartStepsChat {
  readonly host: AgentHost;
  readonly status: string | undefined;
  showStatus(status: string | undefined): void;
}

/**
 * The steps of a chat's start (the agent, then the session), each under a status line. While one
 * runs, a line on the agent's stderr that names a known cause (it refuses root, lacks credentials)
 * is added to the status at once: the step may otherwise wait for its deadline (`session/new`:
 * 120 s) before it fails. `active` and `endedBy` tell the chat's exit watch that an exit ended the
 * start (the same exit the step failed with): its card is the start error's, not a crash notice.
 */
export class StartSteps {
  private running = 0;
  private failedWith: unknown;

  constructor(
    private readonly chat: StartStepsChat,
    private readonly t: Localize,
  ) {}

  get active(): boolean {
    return this.running > 0;
  }

  /** Whether `error` is what the last step failed with (an exit seen after its step ended). */
  endedBy(error: unknown): boolean {
    return error === this.failedWith;
  }

  async run<T>(status: string, step: () => Promise<T>): Promise<{ value: T } | { error: unknown }> {
    this.chat.showStatus(status);
    this.running++;
    this.failedWith = undefined;
    const stderr = this.chat.host.onStderrLine((line) => {
      const cause = recogniseStderr(line, this.t);
      if (cause !== undefined && this.chat.status?.startsWith(status) === true) {
        this.chat.showStatus(`${status} ${cause.summary}`);
      }
    });
    try {
      return { value: await step() };
    } catch (error) {
      this.failedWith = error;
      return { error };
    } finally {
      stderr.dispose();
      this.running--;
      this.chat.showStatus(undefined);
    }
  }
}
