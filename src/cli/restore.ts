import { CheckpointStore } from '../worktree/checkpoints';
import { ExitCode } from './exitCodes';

/** `hermes-acp-run --restore ID [--cwd DIR]`: the files of checkpoint ID of DIR put back; one line per file on stdout. */
export async function restoreCheckpoint(id: string, cwd: string, store = new CheckpointStore(), out: (line: string) => void = (l) => process.stdout.write(`${l}\n`), err: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<number> {
  try {
    const r = await store.restore(cwd, id);
    r.restored.forEach((p) => out(`restored ${p}`));
    r.removed.forEach((p) => out(`removed ${p}`));
    r.unsaved.forEach((p) => err(`hermes-acp-run: ${p} was too large to keep in checkpoint ${id}: not restored`));
    err(`hermes-acp-run: checkpoint ${id}: ${r.restored.length} restored, ${r.removed.length} removed`);
    return r.unsaved.length === 0 ? 0 : ExitCode.failed;
  } catch (e) {
    err(`hermes-acp-run: ${e instanceof Error ? e.message : String(e)}`);
    return ExitCode.failed;
  }
}
