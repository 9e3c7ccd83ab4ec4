/**
 * The R4 payload corpus (test/fixtures/hostile/payloads.json) and the replay files that carry it
 * to the client through each channel an agent controls: message text, tool titles, tool output,
 * diff paths (and tool locations) and plan entries.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fixturesDir } from '../support/paths';

import { reduced, scaled, soak } from '../unit/hardening/support';

/** `CI=true` runs the UI hardening suites with reduced counts, `HERMES_SOAK=1` with the soak counts. */
export { reduced, scaled };

/** Prints a suite's summary line, saying when the counts were reduced. */
export function summaryLine(line: string, countsReduced = reduced): void {
  console.log(`      ${line}${soak ? ' [HERMES_SOAK=1]' : countsReduced ? ' [CI=true: reduced counts]' : reduced ? ' [CI=true: same counts]' : ''}`);
}

interface BuildSpec {
  readonly unit?: string;
  readonly unitLines?: string;
  readonly indent?: number;
  readonly count?: number;
  readonly table?: number;
  readonly prefix?: string;
  readonly suffix?: string;
}

interface RawPayload {
  readonly id: string;
  readonly category: string;
  readonly text: string | null;
  readonly build?: BuildSpec;
  readonly bidi?: boolean;
}

export interface Payload {
  readonly id: string;
  readonly category: string;
  readonly text: string;
  /** Also used as a file path: must be shown with its invisible characters made visible. */
  readonly bidi: boolean;
}

export const corpusFile = path.join(fixturesDir, 'hostile', 'payloads.json');

/** What a payload's script logs if it ever runs (the corpus text never contains it). */
export const beaconPrefix = 'HXSS:';

function beacon(id: string): string {
  return `console.log(/HX/.source+/SS:${id}/.source)`;
}

function build(spec: BuildSpec): string {
  const count = spec.count ?? 0;
  let body = '';
  if (spec.unit !== undefined) {
    body = spec.unit.repeat(count);
  } else if (spec.unitLines !== undefined) {
    const template = spec.unitLines;
    const lines: string[] = [];
    for (let i = 0; i < count; i++) {
      lines.push(`${' '.repeat((spec.indent ?? 0) * i)}${template.replace('{i}', String(i))}`);
    }
    body = `${lines.join('\n')}\n`;
  } else if (spec.table !== undefined) {
    const cols = Array.from({ length: spec.table }, (_, i) => `c${i}`);
    body = `| ${cols.join(' | ')} |\n|${cols.map(() => '---').join('|')}|\n| ${cols.map((c) => `**${c}**`).join(' | ')} |\n\n`;
  }
  return `${spec.prefix !== undefined ? `${spec.prefix}\n\n` : ''}${body}${spec.suffix ?? ''}`;
}

/** Every payload, beacons filled in and generated ones built. */
export function loadCorpus(): Payload[] {
  const raw = JSON.parse(fs.readFileSync(corpusFile, 'utf8')) as { payloads: RawPayload[] };
  return raw.payloads.map((p) => {
    const source = p.build !== undefined ? build(p.build) : (p.text ?? '');
    return { id: p.id, category: p.category, text: source.split('{{B}}').join(beacon(p.id)), bidi: p.bidi === true };
  });
}

/** `CI=true`: the first `perCategory` payloads of each category. */
export function selectPayloads(all: readonly Payload[], perCategory: number | undefined): Payload[] {
  if (perCategory === undefined) {
    return [...all];
  }
  const seen = new Map<string, number>();
  return all.filter((p) => {
    const n = seen.get(p.category) ?? 0;
    seen.set(p.category, n + 1);
    return n < perCategory;
  });
}

export type Channel = 'message' | 'title' | 'output' | 'diff' | 'plan';
export const channels: readonly Channel[] = ['message', 'title', 'output', 'diff', 'plan'];

/** The title of the tool card that carries a payload in the output and diff channels. */
export function carrierTitle(channel: Channel, id: string): string {
  return `R4 ${channel} ${id}`;
}

/** The heading line of the message that carries a payload in the message channel. */
export function messageHeading(id: string): string {
  return `R4 message ${id}:`;
}

/** The path a payload becomes in the diff channel (inside the workspace, so only the name is hostile). */
export function diffPath(workspace: string, p: Payload): string {
  return `${workspace}/r4/${p.text}`;
}

type Update = Record<string, unknown>;

/** The `session/update` objects that carry every payload through one channel. */
export function channelUpdates(channel: Channel, payloads: readonly Payload[], workspace: string): Update[] {
  const out: Update[] = [];
  const text = (t: string): Update => ({ type: 'content', content: { type: 'text', text: t } });
  switch (channel) {
    case 'message':
      for (const p of payloads) {
        // Streamed in three chunks, so the streaming (tail) renders see partial payloads too.
        const full = `${messageHeading(p.id)}\n\n${p.text}`;
        const third = Math.ceil(full.length / 3);
        for (let i = 0; i < 3; i++) {
          out.push({ sessionUpdate: 'agent_message_chunk', messageId: `r4-msg-${p.id}`, content: { type: 'text', text: full.slice(i * third, (i + 1) * third) } });
        }
      }
      return out;
    case 'title':
      for (const p of payloads) {
        out.push({ sessionUpdate: 'tool_call', toolCallId: `r4-title-${p.id}`, title: p.text, kind: 'other', status: 'completed' });
      }
      return out;
    case 'output':
      for (const p of payloads) {
        const toolCallId = `r4-output-${p.id}`;
        out.push({ sessionUpdate: 'tool_call', toolCallId, title: carrierTitle('output', p.id), kind: 'execute', status: 'in_progress' });
        out.push({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text(p.text)] });
      }
      return out;
    case 'diff':
      for (const p of payloads) {
        const toolCallId = `r4-diff-${p.id}`;
        const file = diffPath(workspace, p);
        out.push({ sessionUpdate: 'tool_call', toolCallId, title: carrierTitle('diff', p.id), kind: 'edit', status: 'in_progress', locations: [{ path: file, line: 1 }] });
        out.push({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [{ type: 'diff', path: file, oldText: 'before\n', newText: 'after\n' }] });
      }
      return out;
    case 'plan': {
      const statuses = ['pending', 'in_progress', 'completed'] as const;
      out.push({
        sessionUpdate: 'plan',
        entries: payloads.map((p, i) => ({ content: p.text, priority: i % 2 === 0 ? 'medium' : 'high', status: statuses[i % 3] })),
      });
      return out;
    }
  }
}

/** Writes a channel's updates as an NDJSON replay file (`[replay-file path=…]`) and returns its path. */
export function writeReplayFile(dir: string, channel: Channel, payloads: readonly Payload[], workspace: string): string {
  const file = path.join(dir, `r4-${channel}.ndjson`);
  fs.writeFileSync(file, `${channelUpdates(channel, payloads, workspace).map((u) => JSON.stringify(u)).join('\n')}\n`);
  return file;
}

/** Bidi controls, zero-width and C0/C1 control characters that must never reach a label raw. */
// eslint-disable-next-line no-control-regex
export const invisibleChars = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/;

/** Escapes a payload for a scripted-agent marker value in double quotes (`\n`, `\t`, `\"`, `\\`). */
export function markerValue(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}
