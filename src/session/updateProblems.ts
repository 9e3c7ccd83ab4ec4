import type { UpdateProblem } from '../agentPort/agentConnection';

/** How many different problems one chat shows before it only points at the traffic log. */
const maxNotices = 25;

/**
 * Turns the connection's reports of malformed `session/update`s into chat notices: one per
 * distinct problem (an agent that repeats a mistake on every chunk must not bury the chat), at most
 * {@link maxNotices}, then one last notice saying that further ones are only in the traffic log.
 */
export class UpdateProblemNotices {
  private readonly seen = new Set<string>();
  private capped = false;

  noticeFor(p: UpdateProblem): { readonly title: string; readonly detail: string } | undefined {
    // Counts differ from one message to the next ("1 of 3 items"); the mistake is the same.
    const key = `${p.kind}\u0000${p.updateKind ?? ''}\u0000${p.reason.replace(/\d+/g, '#')}`;
    if (this.seen.has(key) || this.capped) {
      return undefined;
    }
    if (this.seen.size >= maxNotices) {
      this.capped = true;
      return {
        title: 'The agent keeps sending updates that are not valid ACP',
        detail: 'Further problems are only written to the traffic log (Hermes: Show Traffic).',
      };
    }
    this.seen.add(key);
    const where = 'The chat goes on; the message is in the traffic log (Hermes: Show Traffic).';
    return p.kind === 'rejected'
      ? { title: 'Ignored an update from the agent that is not valid ACP', detail: `${p.reason}. ${where}` }
      : { title: 'Part of an update from the agent was not valid ACP and was left out', detail: `${p.reason}. ${where}` };
  }
}
