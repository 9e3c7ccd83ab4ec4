/**
 * Turns a run record into a table row plus the list of discrepancies against what the runner's
 * README and `reference/agents-in-the-wild.md` promise. Every check names what it saw.
 */
import * as path from 'node:path';
import { isObject, shorten, type JsonObject } from './modelTypes';
import type { RigScenario } from './rigScenarios';
import type { RunRecord } from './runOne';

export interface Row {
  readonly agent: string;
  readonly scenario: string;
  readonly exit: string;
  readonly stop: string;
  readonly tokens: string;
  readonly tools: string;
  readonly permissions: string;
  readonly results: string;
  readonly file: string;
  readonly leftovers: string;
  readonly model: string;
  readonly traffic: string;
  readonly issues: readonly string[];
}

function ofType(r: RunRecord, type: string): JsonObject[] {
  return r.events.filter((e) => e.type === type);
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v);
}

function isEmptyInput(v: unknown): boolean {
  return v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0);
}

function served(r: RunRecord): { all: number; main: number; last: number; calls: number } {
  let all = 0;
  let main = 0;
  let last = 0;
  let calls = 0;
  for (const e of r.model) {
    if (e.usage === undefined) {
      continue;
    }
    const t = e.usage.input + e.usage.output;
    all += t;
    if (e.role === 'main') {
      main += t;
      last = t;
      calls++;
    }
  }
  return { all, main, last, calls };
}

function modelCalls(r: RunRecord): string {
  const main = r.model.filter((e) => e.role === 'main').length;
  const side = r.model.filter((e) => e.role === 'side').length;
  const other = r.model.filter((e) => e.role === undefined);
  const errors = new Map<number, number>();
  for (const e of r.model) {
    if (e.status >= 400) {
      errors.set(e.status, (errors.get(e.status) ?? 0) + 1);
    }
  }
  const parts = [`${String(main)} main`, `${String(side)} side`];
  if (other.length > 0) {
    parts.push(`${String(other.length)} other`);
  }
  for (const [status, n] of errors) {
    parts.push(`${String(status)}×${String(n)}`);
  }
  return parts.join(', ');
}

function leftoverText(l: RunRecord['leftovers']): string {
  if (l.found.length === 0) {
    return '0';
  }
  const names = [...new Set(l.found.map((p) => p.name))].join(', ');
  return `${String(l.found.length)} (${names})${l.survived.length > 0 ? ` ${String(l.survived.length)} unkillable` : ''}`;
}

export function summarize(r: RunRecord, scenario: RigScenario, out: string, usesModel: boolean): Row {
  const found: string[] = [];
  // Workspace paths in names and inputs are long and differ per run: show them as <ws>.
  const tidy = (text: string): string => text.split(path.join(r.runDir, 'ws')).join('<ws>').split(r.runDir).join('<run>');
  const issues = { push: (...items: string[]): number => found.push(...items.map(tidy)) };
  const short = (v: unknown, max: number): string => shorten(tidy(typeof v === 'string' ? v : JSON.stringify(v)), max);
  const result = [...r.events].reverse().find((e) => e.type === 'result');
  const last = r.events.at(-1);
  const system = ofType(r, 'system')[0];
  const toolUses = ofType(r, 'tool_use');
  const perms = ofType(r, 'permission');
  const toolResults = ofType(r, 'tool_result');
  const money = served(r);

  if (r.setupError !== undefined) {
    issues.push(`setup failed: ${r.setupError}`);
  }
  if (result === undefined) {
    issues.push('no `result` event');
  } else if (last !== result) {
    issues.push('`result` is not the last line');
  }
  if (r.badLines.length > 0) {
    issues.push(`${String(r.badLines.length)} stdout line(s) not JSON: ${shorten(r.badLines[0] ?? '', 80)}`);
  }
  const exitCode = r.exitCode;
  const resultCode = typeof result?.exit_code === 'number' ? result.exit_code : undefined;
  if (resultCode !== undefined && exitCode !== resultCode) {
    issues.push(`process exit ${String(exitCode)} ≠ result.exit_code ${String(resultCode)}`);
  }
  if (exitCode === null || (!scenario.expectedExit.includes(exitCode) && (usesModel || scenario.interrupt))) {
    issues.push(`exit ${String(exitCode ?? r.signal)} where the README promises ${scenario.expectedExit.join(' or ')}${result?.error !== undefined ? ` (error: ${shorten(s(result.error), 120)})` : ''}`);
  }
  if (exitCode === 0 && toolUses.length === 0 && s(result?.text).trim() === '') {
    issues.push('an empty turn (no text, no tool call) reported as success');
  }
  if (r.rigKilledRunner) {
    issues.push('the runner outlived its --timeout by 90 s; the rig killed it');
  }
  const agentName = isObject(system?.agent) ? s(system.agent.name) : undefined;
  if (agentName !== undefined && ['env', 'node', 'npx', 'bash', 'sh'].includes(agentName)) {
    issues.push(`system.agent.name = "${agentName}" (a launcher, not the agent)`);
  }

  const tokens = isObject(result?.tokens) ? result.tokens : null;
  // Since issue 18 `tokens` is always an object; `tokens_reported: false` says the agent reported none.
  const unreported = tokens === null || result?.tokens_reported === false;
  if (unreported && money.calls > 0) {
    issues.push(`tokens ${tokens === null ? 'null' : 'not reported'} although the model server reported usage on ${String(money.calls)} call(s) (${String(money.main)} tokens)`);
  } else if (tokens !== null && typeof tokens.total === 'number' && money.calls > 1 && tokens.total === money.last && money.last !== money.main) {
    issues.push(`tokens.total ${String(tokens.total)} = the last model call only (the turn's calls sent ${String(money.main)})`);
  }

  for (const t of toolUses) {
    if (isEmptyInput(t.input)) {
      issues.push(`tool_use "${short(t.name, 50)}" without input${t.input === undefined ? ' (field missing)' : ' ({})'}`);
    }
    if (t.name === t.title && /[\s/]/.test(s(t.name))) {
      issues.push(`tool_use name is the title: "${short(t.name, 60)}"`);
    }
  }
  // One real call is one tool_use and one tool_result (issue 18: Hermes' permission ids).
  const useIds = toolUses.map((t) => s(t.tool_call_id));
  if (new Set(useIds).size !== useIds.length) {
    issues.push(`a call id has more than one tool_use: ${useIds.join(', ')}`);
  }
  const resultIds = toolResults.map((t) => s(t.tool_call_id));
  if ([...resultIds].sort().join('\n') !== [...useIds].sort().join('\n')) {
    issues.push(`tool_result ids (${resultIds.join(', ')}) ≠ tool_use ids (${useIds.join(', ')})`);
  }
  for (const t of toolUses) {
    if (toolUses.some((o) => o !== t && o.kind === t.kind && o.kind !== 'read' && o.kind !== 'other' && JSON.stringify(o.input) === JSON.stringify(t.input) && !isEmptyInput(t.input))) {
      issues.push(`two tool_use events with the same input for one call? "${short(t.name, 40)}" ${short(t.input, 60)}`);
      break;
    }
  }
  for (const p of perms) {
    const use = toolUses.find((t) => t.tool_call_id === p.tool_call_id);
    if (use === undefined) {
      issues.push(`permission for ${s(p.tool_call_id)} without a tool_use`);
    } else if (use.name !== p.name) {
      issues.push(`permission names the call "${short(p.name, 50)}", its tool_use "${short(use.name, 50)}"`);
    }
  }
  // The scripted call's arguments name the target file or the command: a tool_use that does not is incomplete.
  const needle = scenario.server === 'edit' ? 'rig-target.txt' : scenario.server === 'shell' ? 'rig-shell-ok' : undefined;
  for (const t of toolUses) {
    const wanted = (scenario.server === 'edit' && t.kind === 'edit') || (scenario.server === 'shell' && t.kind === 'execute');
    if (usesModel && wanted && needle !== undefined && !isEmptyInput(t.input) && !JSON.stringify(t.input).includes(needle)) {
      issues.push(`tool_use "${short(t.name, 50)}" input lacks the call's arguments: ${short(t.input, 80)}`);
    }
  }
  const worked = (scenario.server === 'edit' && r.file === 'edited') || (scenario.server === 'shell' && r.shellRan);
  for (const t of toolResults) {
    if (t.is_error === true && worked && t.status !== 'failed') {
      issues.push(`tool_result "${short(t.name, 50)}" is_error (status ${s(t.status)}) although the ${scenario.server} happened`);
    }
  }

  // The SDK example agent plays its own script whatever the model would say.
  switch (usesModel ? scenario.id : 'none') {
    case 'text':
      if (!s(result?.text).includes('RIG-OK')) {
        issues.push(`result.text is not the model's answer: ${JSON.stringify(shorten(s(result?.text), 60))}`);
      }
      break;
    case 'edit-allow':
      if (r.file !== 'edited') {
        issues.push(`file ${r.file} with --permissions allow`);
      }
      break;
    case 'edit-deny':
      if (r.file !== 'unchanged') {
        issues.push(`file ${r.file} despite --permissions deny`);
      }
      if (perms.length === 0) {
        issues.push('the agent never asked for permission (the deny policy could not act)');
      }
      if (result !== undefined && result.permissions_enforced === undefined && perms.length === 0 && r.file !== 'unchanged') {
        issues.push('the result does not say the policy did not hold');
      }
      break;
    case 'shell':
      if (!r.shellRan) {
        issues.push('the shell command did not run with --permissions allow');
      }
      break;
    default:
      break;
  }
  if (r.leftovers.found.length > 0) {
    issues.push(`left behind after the run: ${r.leftovers.found.map((p) => `${String(p.pid)} ${p.name} (${shorten(p.cmdline, 60)})`).join('; ')}`);
  }
  if (r.setupLeftovers.found.length > 0) {
    issues.push(`setup left behind: ${r.setupLeftovers.found.map((p) => `${p.name} (${shorten(p.cmdline, 60)})`).join('; ')}`);
  }
  if (r.load !== undefined) {
    if ('advertised' in r.load) {
      if (r.load.advertised && !r.load.ok) {
        issues.push(`session/load failed: ${shorten(r.load.error ?? '', 120)}`);
      } else if (r.load.ok && usesModel && r.load.replayed.agent_message_chunk === undefined) {
        issues.push(`session/load replayed no agent_message_chunk (only ${Object.keys(r.load.replayed).join(', ') || 'nothing'}): the answer was not kept`);
      }
    } else {
      issues.push(`session/load check broke: ${shorten(r.load.error, 120)}`);
    }
  }
  if (r.loadLeftovers !== undefined && r.loadLeftovers.found.length > 0) {
    issues.push(`left behind after session/load: ${r.loadLeftovers.found.map((p) => p.name).join(', ')}`);
  }

  const exitText = `${String(exitCode ?? r.signal)}${resultCode !== undefined && resultCode !== exitCode ? ` (result ${String(resultCode)})` : ''}`;
  const loadText =
    r.load === undefined
      ? ''
      : 'advertised' in r.load
        ? r.load.ok
          ? `; load ok: ${Object.entries(r.load.replayed).map(([k, n]) => `${k}×${String(n)}`).join(' ') || 'nothing replayed'}`
          : `; load: ${shorten(r.load.error ?? 'failed', 60)}`
        : '; load broke';
  return {
    agent: r.agent,
    scenario: r.scenario,
    exit: exitText,
    stop: `${s(result?.stop_reason ?? 'null')}${result?.error !== undefined ? `: ${shorten(s(result.error), 70)}` : ''}`,
    tokens: `${tokens === null ? 'null' : unreported ? `${String(tokens.total)} (not reported)` : String(tokens.total)} / ${String(money.main)}`,
    tools: toolUses.map((t) => `${short(t.name, 40)} [${s(t.kind)}] ${isEmptyInput(t.input) ? '∅' : short(t.input, 60)}`).join('<br>'),
    permissions: perms.map((p) => `${s(p.outcome)}${p.optionId !== undefined ? `:${s(p.optionId)}` : ''}`).join(', '),
    results: toolResults.map((t) => `${s(t.status)}${t.is_error === true ? ' ✗' : ''}`).join(', '),
    file: scenario.server === 'edit' ? r.file : scenario.server === 'shell' ? (r.shellRan ? 'ran' : 'not run') : r.file === 'unchanged' ? '–' : r.file,
    leftovers: leftoverText(r.leftovers),
    model: `${modelCalls(r)}${loadText}`,
    traffic: path.relative(out, path.join(r.runDir, 'traffic.jsonl')),
    issues: found,
  };
}
