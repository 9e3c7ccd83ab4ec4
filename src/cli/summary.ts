import { writeFileSync } from 'node:fs';
import type { CliEvent, EventSink, ResultEvent, SystemInitEvent, ToolResultEvent } from './events';

/**
 * `--summary FILE`: the run as Markdown (a GitHub Actions job summary: `>> "$GITHUB_STEP_SUMMARY"`),
 * written from the same events as stdout — already masked — when `result` is written: the agent,
 * the exit code and reason, tokens, durations, every tool with its status, the permissions answered
 * and the reply.
 */
export class SummarySink implements EventSink {
  private system: SystemInitEvent | undefined;
  private readonly tools: ToolResultEvent[] = [];
  private readonly permissions: string[] = [];

  constructor(
    private readonly inner: EventSink,
    private readonly file: string,
  ) {}

  emit(event: CliEvent): void {
    switch (event.type) {
      case 'system':
        this.system = event;
        break;
      case 'tool_result':
        this.tools.push(event);
        break;
      case 'permission':
        this.permissions.push(`${event.name}: ${event.outcome === 'selected' ? (event.optionId ?? 'selected') : event.outcome} (${event.rule})`);
        break;
      case 'result':
        this.write(event);
        break;
      default:
        break;
    }
    this.inner.emit(event);
  }

  diagnostic(line: string): void {
    this.inner.diagnostic(line);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  private write(result: ResultEvent): void {
    try {
      writeFileSync(this.file, summaryMarkdown(this.system, this.tools, this.permissions, result));
    } catch (e) {
      this.inner.diagnostic(`hermes-acp-run: cannot write the summary ${this.file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** One table cell: no line breaks, no pipes, at most 200 characters. */
function cell(text: string): string {
  const flat = text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

function seconds(ms: number | null): string {
  return ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`;
}

/** Why the run ended, in words. */
export function exitReason(r: ResultEvent): string {
  if (r.exit_code === 0) {
    return `completed (${r.stop_reason ?? 'end_turn'})`;
  }
  const kind = r.exit_code === 75 ? 'provider unavailable, retry later' : r.exit_code === 130 ? 'interrupted' : 'failed';
  return `${kind}: ${r.error ?? r.stop_reason ?? 'unknown'}`;
}

export function summaryMarkdown(system: SystemInitEvent | undefined, tools: readonly ToolResultEvent[], permissions: readonly string[], r: ResultEvent): string {
  const agent = system !== undefined ? `${system.agent.title ?? system.agent.name}${system.agent.version !== null ? ` ${system.agent.version}` : ''}` : 'the agent';
  const t = r.tokens;
  const lines = [
    `### ${r.exit_code === 0 ? '✅' : '❌'} ${cell(agent)}: exit ${r.exit_code.toString()}`,
    '',
    '| | |',
    '| --- | --- |',
    `| exit reason | ${cell(exitReason(r))} |`,
    `| tokens | ${r.tokens_reported ? `${t.input.toString()} in / ${t.output.toString()} out / ${t.total.toString()} total` : 'not reported by the agent'} |`,
    `| duration | ${seconds(r.duration_ms)} (turn ${seconds(r.turn_duration_ms)}) |`,
    `| session | \`${r.session_id !== '' ? r.session_id : 'none'}\` |`,
    ...(system !== undefined && system.model !== '' ? [`| model | ${cell(system.model)} |`] : []),
    ...(r.permissions_enforced ? [] : ['| permissions | ⚠️ not enforced: the agent acted without asking |']),
    '',
  ];
  if (tools.length > 0) {
    lines.push(`#### Tools (${tools.length.toString()})`, '', '| tool | status | duration |', '| --- | --- | --- |');
    for (const tool of tools) {
      lines.push(`| ${cell(tool.name)} | ${tool.is_error ? '❌' : '✔'} ${tool.status} | ${seconds(tool.duration_ms)} |`);
    }
    lines.push('');
  }
  if (permissions.length > 0) {
    lines.push('#### Permissions', '', ...permissions.map((p) => `- ${cell(p)}`), '');
  }
  lines.push('#### Reply', '');
  lines.push(r.text.trim() === '' ? '_(no reply)_' : r.text.trim().split('\n').map((l) => `> ${l}`).join('\n'));
  return `${lines.join('\n')}\n`;
}
