/** The rig's results as Markdown: one table per agent, then the discrepancies found. */
import type { Row } from './summary';

function cell(v: string): string {
  return v === '' ? '–' : v.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderReport(rows: readonly Row[], header: string): string {
  const out: string[] = [header, ''];
  const agents = [...new Set(rows.map((r) => r.agent))];
  for (const agent of agents) {
    const mine = rows.filter((r) => r.agent === agent);
    out.push(`### ${agent}`, '');
    out.push('| scenario | exit | stop_reason / error | tokens (runner / served) | tool_use: name [kind] input | permission | tool_result | file | left | model calls | traffic log |');
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const r of mine) {
      out.push(`| ${[r.scenario, r.exit, r.stop, r.tokens, r.tools, r.permissions, r.results, r.file, r.leftovers, r.model, `\`${r.traffic}\``].map(cell).join(' | ')} |`);
    }
    const issues = mine.flatMap((r) => r.issues.map((i) => `- ${r.scenario}: ${i}`));
    out.push('', issues.length > 0 ? `Discrepancies (${agent}):` : `No discrepancies (${agent}).`, ...issues, '');
  }
  return out.join('\n');
}
