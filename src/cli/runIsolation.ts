import type { SessionController } from '../session/sessionController';
import { analyzeRequest } from '../permissions/analysis';
import { hostPolicyContext } from '../permissions/nodeFs';
import { CheckpointStore, type Checkpoint } from '../worktree/checkpoints';
import { Worktrees } from '../worktree/worktrees';
import type { RunOptions } from './args';

export interface WorktreeField {
  readonly path: string;
  readonly branch: string;
  /** The commit it started from. */
  readonly base: string;
}

export interface CheckpointField {
  readonly id: string;
  /** The paths the run changed, relative to the run's cwd. */
  readonly files: readonly string[];
}

/**
 * `--worktree` and `--checkpoints` for one run: the worktree made before any agent starts (its
 * folder becomes the run's cwd), the turn-start snapshot, the targets of every permission saved
 * before the answer reaches the agent, the manifest written once the agent is stopped.
 */
export class RunIsolation {
  private worktree: WorktreeField | undefined;
  private checkpoint: Checkpoint | undefined;
  private checkpointFailure: string | undefined;

  constructor(
    private readonly options: Pick<RunOptions, 'worktree' | 'checkpoints'>,
    private readonly diagnostic: (line: string) => void,
    private readonly worktrees = new Worktrees(),
    private readonly store = new CheckpointStore(),
  ) {}

  /** The cwd the run uses: `cwd`, or the new worktree's; an error message when no worktree could be made. */
  async prepare(cwd: string): Promise<{ cwd: string } | { error: string }> {
    if (this.options.worktree !== true) {
      return { cwd };
    }
    try {
      const made = await this.worktrees.create({ cwd, createdBy: 'runner' });
      this.worktree = { path: made.record.path, branch: made.record.branch, base: made.record.base };
      made.included.skipped.forEach((s) => this.diagnostic(`hermes-acp-run: .worktreeinclude: skipped ${s}`));
      this.diagnostic(`hermes-acp-run: worktree ${made.record.path} on branch ${made.record.branch} from ${made.record.base.slice(0, 12)}`);
      return { cwd: made.cwd };
    } catch (e) {
      return { error: `--worktree: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  /** Before the prompt: the turn-start snapshot of `cwd`. */
  async beginTurn(cwd: string): Promise<void> {
    if (this.options.checkpoints !== true) {
      return;
    }
    try {
      this.checkpoint = await this.store.begin(cwd);
    } catch (e) {
      this.checkpointFailure = e instanceof Error ? e.message : String(e);
      this.diagnostic(`hermes-acp-run: warning: --checkpoints: cannot snapshot ${cwd}: ${this.checkpointFailure}`);
    }
  }

  /** Every permission that names files to write: their content saved before the answer goes out. */
  watch(controller: SessionController, cwd: string): void {
    if (this.options.checkpoints !== true) {
      return;
    }
    controller.onDidChange(({ action }) => {
      const checkpoint = this.checkpoint;
      if (action.type !== 'permissionRequested' || checkpoint === undefined) {
        return;
      }
      const targets = analyzeRequest(action.toolCall, hostPolicyContext(cwd)).targets.flatMap((t) => (t.type === 'path' && t.access === 'write' ? [t.canonical] : []));
      if (targets.length > 0) {
        controller.holdAnswer(action.requestId, checkpoint.saveBefore(targets).catch((e: unknown) => this.diagnostic(`hermes-acp-run: warning: --checkpoints: ${e instanceof Error ? e.message : String(e)}`)));
      }
    });
  }

  /** After the agent is stopped: the fields `result` carries. */
  async finish(): Promise<{ worktree?: WorktreeField; checkpoint?: CheckpointField }> {
    let checkpoint: CheckpointField | undefined;
    if (this.checkpoint !== undefined) {
      try {
        checkpoint = await this.checkpoint.finish();
      } catch (e) {
        this.diagnostic(`hermes-acp-run: warning: --checkpoints: cannot write checkpoint ${this.checkpoint.id}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return { ...(this.worktree !== undefined ? { worktree: this.worktree } : {}), ...(checkpoint !== undefined ? { checkpoint } : {}) };
  }
}
