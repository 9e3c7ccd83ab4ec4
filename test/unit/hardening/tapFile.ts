/** Reads what agentTap.ts recorded: the lines a client wrote to an agent, per tap process. */
import * as fs from 'node:fs';

export interface TapRecord {
  readonly pid: number;
  readonly t: number;
  readonly kind: 'child' | 'in' | 'out' | 'stderr' | 'stdin-end' | 'exit' | 'sigterm';
  readonly text: string;
}

export function readTap(file: string): TapRecord[] {
  if (!fs.existsSync(file)) {
    return [];
  }
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as TapRecord];
      } catch {
        return [];
      }
    });
}

export interface WireResponse {
  readonly id: string | number;
  readonly outcome: { readonly outcome: string; readonly optionId?: string } | undefined;
  readonly error: unknown;
}

/** JSON-RPC responses the client wrote to the agent under tap process `pid`. */
export function tapResponses(records: readonly TapRecord[], pid: number): Map<string | number, WireResponse> {
  const out = new Map<string | number, WireResponse>();
  for (const r of records) {
    if (r.pid !== pid || r.kind !== 'in') {
      continue;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(r.text);
    } catch {
      continue;
    }
    if (typeof msg !== 'object' || msg === null || 'method' in msg || !('id' in msg)) {
      continue;
    }
    const m = msg as { id: string | number; result?: { outcome?: { outcome: string; optionId?: string } }; error?: unknown };
    out.set(m.id, { id: m.id, outcome: m.result?.outcome, error: m.error });
  }
  return out;
}

/** The real agent's pid (the tap's child) for tap process `pid`. */
export function tapChild(records: readonly TapRecord[], pid: number): number | undefined {
  const r = records.find((x) => x.pid === pid && x.kind === 'child');
  return r === undefined ? undefined : Number(r.text);
}
