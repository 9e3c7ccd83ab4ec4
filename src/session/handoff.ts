import type * as acp from '@agentclientprotocol/sdk';
import { entryMarkdown, renderPlan } from './transcript';
import type { Entry, SessionState, ToolEntry } from './sessionState';

/** Characters per token, for sizing a brief against a context window (conservative for English and code). */
export const CHARS_PER_TOKEN = 3.5;
/** The share of the new agent's context window a brief may take: the rest is for its own work. */
export const BRIEF_SHARE = 0.4;
/** The budget when the new agent's window is not known yet (tokens). */
export const DEFAULT_BRIEF_TOKENS = 24_000;
/** Longest tool output a brief quotes per block. */
const TOOL_CONTENT_CHARS = 1200;

export interface HandoffSource {
  readonly state: SessionState;
  /** The agent handing off, as the user knows it ("Hermes"). */
  readonly agentName: string;
  /** The folder both agents work in (a worktree, or the workspace). */
  readonly cwd: string;
  /** Files the client saw change in the session (the Changes view), added to those the transcript names. */
  readonly changedFiles?: readonly string[];
}

export interface HandoffOptions {
  /** The brief's budget in characters (see {@link briefBudget}). */
  readonly budgetChars: number;
  /** A summary the agent handing off wrote: sent instead of the conversation's turns. */
  readonly summary?: string;
}

export interface HandoffBrief {
  readonly text: string;
  /** The conversation's turns (a turn: a user message and what followed it). */
  readonly turns: number;
  /** How many of them the brief carries whole (the newest); 0 with a summary. */
  readonly keptTurns: number;
  /** The newest kept turn was itself cut to fit. */
  readonly cut: boolean;
  readonly files: readonly string[];
}

/** The brief's budget in characters for an agent whose context window is `contextTokens` (if known). */
export function briefBudget(contextTokens: number | undefined): number {
  const tokens = contextTokens !== undefined && contextTokens > 0 ? Math.floor(contextTokens * BRIEF_SHARE) : DEFAULT_BRIEF_TOKENS;
  return Math.floor(tokens * CHARS_PER_TOKEN);
}

/**
 * What a session handed to another agent starts from (issue 40): the conversation so far — the
 * user's messages, the replies, the tool calls with their outcomes — the files changed and the
 * current plan, as one Markdown document within `budgetChars`. The oldest turns go first when it is
 * too long (the brief says how many); with a summary the turns are replaced by it. Notices (the
 * client's own messages) are left out: they were never part of the conversation.
 */
export function handoffBrief(source: HandoffSource, options: HandoffOptions): HandoffBrief {
  const files = changedFiles(source);
  const head = [
    `You are taking over a conversation that the user had with another coding agent, ${source.agentName}, in the folder \`${source.cwd}\`.`,
    'Everything below is context from that conversation; the user’s next message follows it. Continue the work from where it stopped.',
  ].join(' ');
  const tail: string[] = [];
  if (files.length > 0) {
    tail.push('## Files changed so far', '', ...files.map((f) => `- \`${f}\``), '');
  }
  if (source.state.plan.length > 0) {
    tail.push('## Current plan', '', ...renderPlan(source.state.plan), '');
  }
  const turns = splitTurns(source.state.entries);
  const fixed = `${head}\n\n${tail.join('\n')}`;
  if (options.summary !== undefined) {
    const summary = clipTo(options.summary.trim(), Math.max(0, options.budgetChars - fixed.length - 200));
    const text = [head, '', `## Summary written by ${source.agentName}`, '', summary, '', ...tail].join('\n');
    return { text: `${text.trim()}\n`, turns: turns.length, keptTurns: 0, cut: summary.length < options.summary.trim().length, files };
  }
  const rendered = turns.map((t) => t.map((e) => entryMarkdown(e, { maxContentChars: TOOL_CONTENT_CHARS })).join('\n\n'));
  let room = options.budgetChars - fixed.length - 300;
  const kept: string[] = [];
  let cut = false;
  for (let i = rendered.length - 1; i >= 0; i--) {
    const turn = rendered[i] ?? '';
    if (turn.length <= room) {
      kept.unshift(turn);
      room -= turn.length + 2;
    } else {
      if (kept.length === 0 && room > 200) {
        // Not even the newest turn fits: its end, where the work stopped, is what matters most.
        kept.unshift(`… (${turn.length - room} earlier characters of this turn left out)\n${turn.slice(turn.length - room)}`);
        cut = true;
      }
      break;
    }
  }
  const left = turns.length - kept.length;
  const body = [
    head,
    '',
    `## The conversation${left > 0 ? ` (its ${kept.length} newest turns; the ${left} earlier ones were left out to fit)` : ''}`,
    '',
    kept.join('\n\n'),
    '',
    ...tail,
  ].join('\n');
  return { text: `${body.replace(/\n{3,}/g, '\n\n').trim()}\n`, turns: turns.length, keptTurns: kept.length, cut, files };
}

/** Turns: each user message with what followed it; what came before the first message is a turn of its own. */
function splitTurns(entries: readonly Entry[]): Entry[][] {
  const turns: Entry[][] = [];
  for (const e of entries) {
    // A footer tells the agent something only when the turn did not simply end.
    if (e.kind === 'notice' || (e.kind === 'user' && e.excluded === true) || (e.kind === 'turnEnd' && e.outcome === 'end_turn' && e.error === undefined)) {
      continue;
    }
    if (e.kind === 'user' || turns.length === 0) {
      turns.push([]);
    }
    turns[turns.length - 1]?.push(e);
  }
  return turns.filter((t) => t.length > 0);
}

/** Files the session changed: edits' diffs and the locations of completed edit, delete and move calls, plus what the client saw. */
function changedFiles(source: HandoffSource): string[] {
  const seen = new Set<string>(source.changedFiles ?? []);
  for (const e of source.state.entries) {
    if (e.kind === 'tool' && changes(e)) {
      for (const c of e.content) {
        if (c.type === 'diff') {
          seen.add(c.path);
        }
      }
      e.locations.forEach((l: acp.ToolCallLocation) => seen.add(l.path));
    }
  }
  return [...seen].map((f) => relativeTo(source.cwd, f)).sort();
}

function changes(t: ToolEntry): boolean {
  return t.status === 'completed' && (t.toolKind === 'edit' || t.toolKind === 'delete' || t.toolKind === 'move' || t.content.some((c) => c.type === 'diff'));
}

/** A path inside the cwd, shown relative to it (either separator); others as they are. */
function relativeTo(cwd: string, file: string): string {
  const root = cwd.replace(/[\\/]+$/, '');
  if (file.length > root.length && file.startsWith(root) && (file[root.length] === '/' || file[root.length] === '\\')) {
    return file.slice(root.length + 1);
  }
  return file;
}

function clipTo(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters left out to fit)`;
}
