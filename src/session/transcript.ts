import type * as acp from '@agentclientprotocol/sdk';
import { diffStats } from '../util/lineDiff';
import { pushAll } from '../util/arrays';
import type { AssistantEntry, Entry, PermissionState, QuestionEntry, SessionState, ToolEntry, TurnEndEntry } from './sessionState';

export interface TranscriptOptions {
  /** Include durations and elapsed times (off for golden files, which must not depend on timing). */
  readonly timings?: boolean;
  /** Longest tool content shown per block; the rest is summarized. */
  readonly maxContentChars?: number;
}

/**
 * The conversation as Markdown: golden tests compare it, "Copy transcript" copies it. Stable by
 * construction: no ids, no wall-clock times (durations only with `timings`).
 */
export function toMarkdown(state: SessionState, options: TranscriptOptions = {}): string {
  const out: string[] = [];
  if (state.title !== undefined) {
    out.push(`# ${state.title}`, '');
  }
  const header: string[] = [];
  if (state.modes !== undefined) {
    header.push(`mode: ${state.modes.currentModeId}`);
  }
  if (state.models !== undefined) {
    header.push(`model: ${state.models.currentModelId}`);
  }
  for (const o of state.configOptions) {
    header.push(`${o.id}: ${String(o.currentValue)}`);
  }
  if (state.usage !== undefined) {
    const cost = state.usage.cost !== undefined ? `, cost ${state.usage.cost.amount} ${state.usage.cost.currency}` : '';
    header.push(`context: ${state.usage.used}/${state.usage.size}${cost}`);
  }
  if (state.commands.length > 0) {
    header.push(`commands: ${state.commands.map((c) => `/${c.name}`).join(' ')}`);
  }
  if (header.length > 0) {
    out.push(`_${header.join(' · ')}_`, '');
  }
  for (const entry of state.entries) {
    pushAll(out, renderEntry(entry, options));
    out.push('');
  }
  if (state.plan.length > 0) {
    out.push('## Current plan', '', ...renderPlan(state.plan), '');
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trim()}\n`;
}

/** One entry as {@link toMarkdown} writes it (a hand-off's brief renders turn by turn). */
export function entryMarkdown(entry: Entry, options: TranscriptOptions = {}): string {
  return renderEntry(entry, options).join('\n');
}

function renderEntry(entry: Entry, options: TranscriptOptions): string[] {
  switch (entry.kind) {
    case 'user': {
      const flags = [entry.origin !== 'local' ? entry.origin : undefined, entry.excluded === true ? 'excluded from context' : undefined].filter(
        (f) => f !== undefined,
      );
      const merged = entry.mergedWith !== undefined ? ['', ...quote(`sent together with the ${entry.mergedWith.reason} message: ${entry.mergedWith.text}`)] : [];
      return [`## User${flags.length > 0 ? ` (${flags.join(', ')})` : ''}`, '', ...entry.blocks.map(renderBlock), ...merged];
    }
    case 'assistant':
      return renderAssistant(entry, options);
    case 'tool':
      return renderTool(entry, options);
    case 'plan':
      return ['### Plan', '', ...renderPlan(entry.entries)];
    case 'notice':
      return [`> **${entry.level}:** ${entry.title}`, ...(entry.detail !== undefined ? quote(entry.detail) : []), ...(entry.log !== undefined ? quote(entry.log) : [])];
    case 'turnEnd':
      return ['---', renderFooter(entry, options)];
    case 'question':
      return renderQuestion(entry);
  }
}

/** A question and its answer; a secret says only whether a value was given (never the value). */
function renderQuestion(q: QuestionEntry): string[] {
  const status = q.status === 'answered' ? '' : ` — ${q.status}${q.reason !== undefined ? ` (${q.reason})` : ''}`;
  if (q.question.kind === 'secret') {
    const what = q.question.envVar !== undefined ? `${q.question.secretKind} ${q.question.envVar}` : q.question.secretKind;
    const given = q.status === 'answered' ? (q.provided === true ? ' — provided (not recorded)' : ' — declined') : status;
    return [`### Agent asked for a ${what}${given}`, '', ...quote(q.question.prompt)];
  }
  const answers = q.answers ?? q.question.locked;
  const lines = [`### Agent asked${status}`];
  for (const c of q.question.questions) {
    const a = answers[c.id];
    lines.push('', ...quote(c.text), '', a === undefined ? '_(no answer)_' : a === null ? '_(skipped)_' : `Answer: ${a}`);
  }
  return lines;
}

function renderAssistant(entry: AssistantEntry, options: TranscriptOptions): string[] {
  const lines = ['## Assistant', ''];
  entry.parts.forEach((part, i) => {
    if (part.kind === 'block') {
      lines.push(renderBlock(part.block), '');
    } else if (part.kind === 'thought') {
      const next = entry.parts[i + 1];
      const elapsed = options.timings === true && next !== undefined ? ` (${seconds(next.at - part.at)})` : '';
      lines.push(`> _Thought${elapsed}_`, '>', ...quote(part.text), '');
    } else {
      lines.push(part.text, '');
    }
  });
  return lines;
}

function renderTool(t: ToolEntry, options: TranscriptOptions): string[] {
  const name = t.name !== undefined ? ` (${t.name})` : '';
  const lines = [`### Tool [${t.toolKind}] ${t.title}${name} — ${describeStatus(t)}`];
  if (t.locations.length > 0) {
    lines.push(`Locations: ${t.locations.map((l) => `\`${l.path}${l.line !== undefined && l.line !== null ? `:${l.line}` : ''}\``).join(', ')}`);
  }
  if (t.permission !== undefined) {
    lines.push(renderPermission(t.permission));
  }
  const max = options.maxContentChars ?? 2000;
  for (const c of t.content) {
    lines.push('', ...renderToolContent(c, max));
  }
  for (const term of t.metaTerminals ?? []) {
    const exit = term.exitCode !== undefined ? ` (exit ${String(term.exitCode)})` : '';
    lines.push('', `Terminal \`${term.terminalId}\`${exit}:`, '```', clip(stripAnsi(term.output), max), '```');
  }
  if (t.rawOutput !== undefined && t.content.length === 0) {
    lines.push('', 'Raw output:', '```json', clip(JSON.stringify(t.rawOutput, null, 2), max), '```');
  }
  return lines;
}

function describeStatus(t: ToolEntry): string {
  switch (t.status) {
    case 'ended':
      return 'ended without a result';
    case 'in_progress':
      return 'in progress';
    default:
      return t.status;
  }
}

function renderPermission(p: PermissionState): string {
  const options = p.options.map((o) => `\`${o.optionId}\` "${o.name}" (${o.kind})`).join(', ');
  let state: string;
  switch (p.status) {
    case 'pending':
      state = 'waiting for an answer';
      break;
    case 'selected':
      state = `answered \`${p.optionId ?? ''}\` by ${p.answeredBy ?? 'user'}`;
      break;
    case 'cancelled':
      state = `cancelled (${p.answeredBy ?? 'no answer'})`;
      break;
    case 'expired':
      state = `expired (${p.answeredBy ?? 'no answer'})`;
      break;
  }
  return `Permission: ${options} — ${state}`;
}

function renderToolContent(c: acp.ToolCallContent, max: number): string[] {
  switch (c.type) {
    case 'content':
      return c.content.type === 'text' ? ['```text', clip(c.content.text, max), '```'] : [renderBlock(c.content)];
    case 'diff': {
      const oldText = c.oldText ?? '';
      const { added, removed } = diffStats(oldText, c.newText);
      const isNew = c.oldText === undefined || c.oldText === null || c.oldText === '';
      return [`Diff \`${c.path}\`${isNew ? ' (new file)' : ''}: +${added} −${removed}`];
    }
    case 'terminal':
      return [`Terminal \`${c.terminalId}\``];
  }
}

function renderBlock(b: acp.ContentBlock): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'image':
      return `[image ${b.mimeType}${b.uri !== undefined && b.uri !== null ? ` ${b.uri}` : ''}]`;
    case 'audio':
      return `[audio ${b.mimeType}]`;
    case 'resource_link':
      return `[${b.name}](${b.uri})`;
    case 'resource':
      return `[resource ${b.resource.uri}]`;
  }
}

export function renderPlan(plan: readonly acp.PlanEntry[]): string[] {
  return plan.map((p) => `- [${p.status === 'completed' ? 'x' : p.status === 'in_progress' ? '~' : ' '}] ${p.content}${p.priority !== 'medium' ? ` (${p.priority})` : ''}`);
}

function renderFooter(e: TurnEndEntry, options: TranscriptOptions): string {
  const parts: string[] = [`_Turn ${e.turnId}: ${e.outcome}`];
  if (options.timings === true) {
    parts.push(seconds(e.durationMs));
  }
  if (e.usage !== undefined) {
    parts.push(`${e.usage.totalTokens} tokens (in ${e.usage.inputTokens}, out ${e.usage.outputTokens})`);
  }
  if (e.error !== undefined) {
    parts.push(`error: ${e.error}`);
  }
  return `${parts.join(' · ')}_`;
}

function quote(text: string): string[] {
  return text.split('\n').map((l) => (l === '' ? '>' : `> ${l}`));
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;]*[A-Za-z]/g;

export function stripAnsi(text: string): string {
  return text.replace(ansi, '');
}
