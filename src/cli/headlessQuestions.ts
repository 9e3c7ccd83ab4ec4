import type { ClarifyAnswer, ConnectionAnswer, ConnectionRequest, QuestionPort, SecretAnswer, SecretRequest, ClarifyRequest } from '../agentPort/questionPort';
import type { EventBody, QuestionEvent } from './events';

const reason = 'nobody to answer in a headless run';

/**
 * The runner's question port for the TUI Gateway: nobody is there to answer, so every question is
 * cancelled at once — clarify with `{}`, a masked prompt with the empty value (Hermes: skipped), a
 * connection card settled `continue` with every target declined — and a `question` event says so.
 * Answering at once (rather than leaving the port out, which the gateway hears as -32601) lets the
 * agent carry on with what it has, as it does when a user dismisses the prompt.
 */
export class HeadlessQuestions implements QuestionPort {
  constructor(private readonly emit: (body: EventBody<QuestionEvent>) => void) {}

  clarify(q: ClarifyRequest): Promise<ClarifyAnswer> {
    this.say(q.requestId, 'clarify', q.questions.map((x) => x.text), `${reason}; answered {} (cancelled)`);
    return Promise.resolve({ kind: 'cancelled' });
  }

  secret(q: SecretRequest): Promise<SecretAnswer> {
    this.say(q.requestId, q.kind, [q.prompt], `${reason}; answered with no value (skipped)`, q.envVar);
    return Promise.resolve({ kind: 'declined' });
  }

  connection(q: ConnectionRequest): Promise<ConnectionAnswer> {
    const what = q.targets.map((t) => `${t.action} ${t.name}`.trim());
    this.say(q.requestId, 'connection', [q.reason, ...what].filter((s) => s !== ''), `${reason}; every target declined`);
    return Promise.resolve({ settledBy: 'continue', targets: q.targets.map((t) => ({ name: t.name, state: 'declined', detail: reason })) });
  }

  private say(requestId: string, kind: QuestionEvent['kind'], questions: readonly string[], why: string, envVar?: string): void {
    this.emit({ type: 'question', request_id: requestId, kind, questions, ...(envVar !== undefined ? { env_var: envVar } : {}), outcome: 'cancelled', reason: why });
  }
}
