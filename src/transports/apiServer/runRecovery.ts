import { isObject, type JsonObject } from '../../util/json';
import type { UnknownRunResolution } from '../../agentPort/transport';
import type { ApiHttp } from './apiHttp';

/**
 * Settles a run whose state a server restart lost: `POST /v1/runs/{id}/resolve-unknown` with the
 * `admission_id` and integer `execution_generation` exactly as the run's status gives them; the
 * server compare-and-sets, the lost head settles `interrupted` and the next queued run is released
 * (Hermes' HTTP resolve-unknown tests; feature-detected with `features.run_unknown_resolution`).
 * A stale generation or another admission is refused (409 `stale_generation` / `not_found`); it is
 * not retried — reread the status first. Not an exactly-once guarantee.
 */
export async function resolveUnknownRun(http: ApiHttp, runId: string): Promise<UnknownRunResolution> {
  const path = `/v1/runs/${encodeURIComponent(runId)}`;
  const status = await http.json('GET', path);
  const admission = findAdmission(status);
  if (admission === undefined) {
    const state = isObject(status) && typeof status.status === 'string' ? status.status : 'unknown';
    throw new Error(`Run ${runId} (status ${state}) has no admission to settle; only a run whose state was lost can be resolved.`);
  }
  const res = await http.json('POST', `${path}/resolve-unknown`, { admission_id: admission.admissionId, execution_generation: admission.generation });
  const r = isObject(res) ? res : {};
  return {
    runId: typeof r.run_id === 'string' ? r.run_id : runId,
    admissionId: typeof r.admission_id === 'string' ? r.admission_id : admission.admissionId,
    status: typeof r.status === 'string' ? r.status : '',
    outcome: typeof r.outcome === 'string' ? r.outcome : '',
  };
}

/** The status carries them at the top level or under `admission`. */
function findAdmission(status: unknown): { admissionId: string; generation: number } | undefined {
  if (!isObject(status)) {
    return undefined;
  }
  for (const o of [status, isObject(status.admission) ? status.admission : undefined]) {
    const rec: JsonObject | undefined = o;
    const gen = rec?.execution_generation ?? rec?.generation;
    if (rec !== undefined && typeof rec.admission_id === 'string' && typeof gen === 'number' && Number.isInteger(gen)) {
      return { admissionId: rec.admission_id, generation: gen };
    }
  }
  return undefined;
}
