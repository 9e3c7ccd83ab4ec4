/**
 * `POST /v1/runs/{id}/resolve-unknown` and `features.run_unknown_resolution`: newer than Hermes
 * v0.19.0 and not recorded. This part of the fake API Server (`--generation next`) follows the
 * documented contract only (reference/hermes-contracts.md §4): a preseeded run `run_lost` whose
 * state a restart lost (`status: unknown`, `admission_id: adm-7`, `execution_generation: 3`).
 */
import type { ServerResponse } from 'node:http';
import type { Json } from './gatewayRecordings';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, message: string, code: string): void {
  send(res, status, { error: { message, type: 'invalid_request_error', code } });
}

export class ResolveUnknown {
  private status: Json = { object: 'hermes.run', run_id: 'run_lost', status: 'unknown', admission_id: 'adm-7', execution_generation: 3, session_id: 'api-session' };

  /** The recorded capabilities plus the documented feature flag. */
  capabilities(recorded: Json): Json {
    const features = typeof recorded.features === 'object' && recorded.features !== null ? (recorded.features as Json) : {};
    return { ...recorded, features: { ...features, run_unknown_resolution: true } };
  }

  handles(runId: string): boolean {
    return runId === 'run_lost';
  }

  route(res: ServerResponse, method: string, action: string | undefined, body: Json): void {
    if (method === 'GET' && action === undefined) {
      send(res, 200, this.status);
      return;
    }
    if (method !== 'POST' || action !== '/resolve-unknown') {
      fail(res, 404, 'no such route for run_lost', 'not_found');
      return;
    }
    const keys = Object.keys(body);
    if (keys.length !== 2 || !keys.includes('admission_id') || !keys.includes('execution_generation')) {
      fail(res, 409, 'expected exactly admission_id and execution_generation', 'invalid_params');
      return;
    }
    if (body.admission_id !== this.status.admission_id) {
      fail(res, 409, 'no such admission for this run', 'not_found');
      return;
    }
    if (this.status.status !== 'unknown' || body.execution_generation !== this.status.execution_generation) {
      fail(res, 409, 'the admission moved on', 'stale_generation');
      return;
    }
    this.status = { ...this.status, status: 'interrupted', execution_generation: Number(this.status.execution_generation) + 1 };
    send(res, 200, { run_id: 'run_lost', admission_id: body.admission_id, status: 'terminal', outcome: 'interrupted' });
  }
}
