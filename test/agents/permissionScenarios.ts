/**
 * Hermes-style permission flows (reference/hermes-acp.md §7):
 * A. file edits: a `tool_call` `tc-…` announces the edit, then `session/request_permission` with a
 *    NEW tool call id `edit-approval-<n>` carrying a whole-file diff; options `allow_once`/`deny`;
 *    only `allow_once` allows; Hermes writes the file itself and v0.19.0 never completes the tool call.
 * B. dangerous commands: `perm-check-<n>` with five options, two of kind `allow_always`.
 */
import type { PermissionOption, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, relative, isAbsolute, basename } from 'node:path';
import { boolArg, intArg, strArg, type Marker } from './markers';
import type { PermissionAnswer, Turn } from './turn';

function text(t: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: t } };
}

const editOptions: PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow edit', kind: 'allow_once' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
];

const commandOptions: PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  // ACP has no "session" kind, so Hermes marks the session option allow_always too: clients must
  // tell the two apart by optionId.
  { optionId: 'allow_session', name: 'Allow for session', kind: 'allow_always' },
  { optionId: 'allow_always', name: 'Allow always', kind: 'allow_always' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
  { optionId: 'deny_always', name: 'Deny always', kind: 'reject_always' },
];

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Hermes never auto-approves these, whatever the mode. */
function isSensitive(absPath: string): boolean {
  const name = basename(absPath);
  return /[\\/]\.(git|ssh)[\\/]/.test(absPath) || name.startsWith('.env') || name === 'id_rsa' || name === 'id_ed25519';
}

/** `accept_edits`: workspace and temp dir; `dont_ask`: any path; never sensitive paths (Hermes). */
function autoApproved(turn: Turn, absPath: string): boolean {
  if (isSensitive(absPath)) {
    return false;
  }
  switch (turn.session.stored.modeId) {
    case 'dont_ask':
      return true;
    case 'accept_edits':
      return isInside(absPath, turn.cwd) || isInside(absPath, tmpdir());
    default:
      return false;
  }
}

function readIfExists(absPath: string): string | undefined {
  try {
    return existsSync(absPath) ? readFileSync(absPath, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function writeFile(absPath: string, content: string): string | undefined {
  try {
    mkdirSync(dirname(absPath), { recursive: true });
    writeFileSync(absPath, content);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function describeAnswer(answer: PermissionAnswer): string {
  switch (answer.outcome) {
    case 'selected':
      return `you chose ${answer.optionId}`;
    case 'cancelled':
      return 'the permission request was cancelled';
    case 'timeout':
      return 'the permission request expired';
    case 'error':
      return `the permission request failed: ${answer.message}`;
  }
}

interface EditRequest {
  readonly absPath: string;
  readonly newText: string;
  readonly timeoutMs?: number;
  readonly cancelRequest?: boolean;
  readonly complete: boolean;
}

async function runEdit(turn: Turn, req: EditRequest): Promise<void> {
  const { absPath, newText } = req;
  const oldText = readIfExists(absPath);
  const diff: ToolCallContent = { type: 'diff', path: absPath, oldText: oldText ?? '', newText };
  const toolCallId = turn.newToolCallId();
  const title = `write: ${absPath}`;

  if (req.timeoutMs === undefined && autoApproved(turn, absPath)) {
    // Observed with Hermes in accept_edits: the tool_call carries the diff and no request is sent.
    await turn.send({ sessionUpdate: 'tool_call', toolCallId, title, kind: 'edit', content: [diff], locations: [{ path: absPath }] });
    const error = writeFile(absPath, newText);
    await finishEdit(turn, toolCallId, req, error === undefined ? diff : text(`Error: ${error}`), error === undefined);
    await turn.say(error === undefined ? `Auto-approved by mode ${turn.session.stored.modeId}: wrote ${absPath}.` : `Could not write ${absPath}: ${error}`);
    return;
  }

  // Hermes omits `status` on tool_call (= pending).
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title,
    kind: 'edit',
    content: [text(`Preparing edit for ${absPath}. Approval prompt shows the diff.`)],
    locations: [{ path: absPath }],
  });
  turn.runtime.counters.editApproval += 1;
  const answer = await turn.requestPermission(
    {
      toolCallId: `edit-approval-${turn.runtime.counters.editApproval}`,
      title: `Approve edit: ${absPath}`,
      kind: 'edit',
      status: 'pending',
      content: [diff],
      rawInput: { tool: 'write_file', arguments: { path: absPath, content: newText } },
    },
    editOptions,
    { ...(req.timeoutMs === undefined ? {} : { timeoutMs: req.timeoutMs }), cancelRequest: req.cancelRequest === true },
  );

  if (answer.outcome === 'timeout') {
    // The expiry is always reported, so a client can show the prompt as expired.
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      kind: 'edit',
      status: 'failed',
      content: [text(`Permission request expired after ${req.timeoutMs ?? 0} ms; treated as denied. ${absPath} was not modified.`)],
    });
    await turn.say(`The permission request expired after ${req.timeoutMs ?? 0} ms, so nothing was changed.`);
    return;
  }
  // Hermes: only `allow_once` allows; deny, cancelled, unknown ids and errors all deny.
  const allowed = answer.outcome === 'selected' && answer.optionId === 'allow_once';
  if (!allowed) {
    await finishEdit(turn, toolCallId, req, text('Edit approval denied by ACP client; file was not modified.'), false);
    await turn.say(`The edit was not applied (${describeAnswer(answer)}); ${absPath} was not modified.`);
    return;
  }
  const error = writeFile(absPath, newText);
  await finishEdit(turn, toolCallId, req, error === undefined ? diff : text(`Error: ${error}`), error === undefined);
  await turn.say(error === undefined ? `I wrote ${Buffer.byteLength(newText)} bytes to ${absPath}.` : `Could not write ${absPath}: ${error}`);
}

/** Hermes 0.19 sends no completion for edits (upstream #50723); `complete=yes` sends it. */
async function finishEdit(turn: Turn, toolCallId: string, req: EditRequest, content: ToolCallContent, ok: boolean): Promise<void> {
  if (!req.complete) {
    return;
  }
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, kind: 'edit', status: ok ? 'completed' : 'failed', content: [content] });
}

export function edit(turn: Turn, marker: Marker): Promise<void> {
  return runEdit(turn, {
    absPath: turn.resolvePath(strArg(marker, 'path', 'scripted-edit.txt')),
    newText: marker.args.get('text') ?? 'edited by the scripted agent\n',
    complete: boolArg(marker, 'complete'),
  });
}

export function permissionTimeout(turn: Turn, marker: Marker): Promise<void> {
  return runEdit(turn, {
    absPath: turn.resolvePath(strArg(marker, 'path', 'scripted-timeout.txt')),
    newText: marker.args.get('text') ?? 'written after approval\n',
    timeoutMs: intArg(marker, 'ms', 1000),
    cancelRequest: boolArg(marker, 'cancel-request'),
    complete: true,
  });
}

const blockedText =
  'terminal failed: BLOCKED: User denied this command. The user has NOT consented to this action. Do NOT retry this command.';

/**
 * Dangerous-command approval. The command is NOT executed (a test agent should not run
 * `rm -r …` from prompt text); the tool result says so. Use `[terminal]` to run a command through
 * the client's terminal.
 */
export async function command(turn: Turn, marker: Marker): Promise<void> {
  const cmd = strArg(marker, 'cmd', 'rm -r ./build');
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `terminal: ${cmd}`,
    kind: 'execute',
    content: [text(`$ ${cmd}`)],
    locations: [],
    rawInput: { command: cmd },
  });

  const remembered = turn.runtime.alwaysAllowedCommands.has(cmd)
    ? 'allow_always'
    : turn.session.sessionAllowedCommands.has(cmd)
      ? 'allow_session'
      : undefined;
  let answer: PermissionAnswer;
  if (remembered !== undefined) {
    answer = { outcome: 'selected', optionId: remembered };
  } else {
    turn.runtime.counters.permCheck += 1;
    answer = await turn.requestPermission(
      {
        toolCallId: `perm-check-${turn.runtime.counters.permCheck}`,
        title: `Dangerous command: ${cmd}`,
        kind: 'execute',
        status: 'pending',
        content: [text(`$ ${cmd}`)],
        rawInput: { command: cmd },
      },
      commandOptions,
    );
  }

  const allowed = answer.outcome === 'selected' && ['allow_once', 'allow_session', 'allow_always'].includes(answer.optionId);
  if (answer.outcome === 'selected' && answer.optionId === 'allow_session') {
    turn.session.sessionAllowedCommands.add(cmd);
  } else if (answer.outcome === 'selected' && answer.optionId === 'allow_always') {
    turn.runtime.alwaysAllowedCommands.add(cmd);
  }
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    kind: 'execute',
    status: allowed ? 'completed' : 'failed',
    content: [
      text(
        allowed
          ? `terminal result\n- **exit_code:** 0\n- **approval:** ${remembered === undefined ? 'approved by the user' : `already approved (${remembered})`}.\n\n(simulated: the scripted agent does not run commands)`
          : blockedText,
      ),
    ],
  });
  switch (answer.outcome) {
    case 'selected':
      await turn.say(remembered === undefined ? `You chose ${answer.optionId}.` : `Already approved earlier (${remembered}), no prompt needed.`);
      break;
    case 'cancelled':
      await turn.say('Permission cancelled.');
      break;
    default:
      await turn.say(`Command not run: ${describeAnswer(answer)}.`);
      break;
  }
}

/**
 * Sends every request of a JSON file (`[{toolCall, options}, …]`) as `session/request_permission`,
 * one after the other, verbatim: the permission corpus (test/unit/permissions) drives the client's
 * policy with the exact shapes it wants. Each answer is logged; the reply counts them.
 */
export async function permissionFile(turn: Turn, marker: Marker): Promise<void> {
  const file = turn.resolvePath(strArg(marker, 'path', 'permission-requests.json'));
  let requests: unknown;
  try {
    requests = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    await turn.say(`Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  if (!Array.isArray(requests)) {
    await turn.say(`${file} is not a JSON array of {toolCall, options}.`);
    return;
  }
  const answers: string[] = [];
  for (const r of requests as { toolCall: ToolCallUpdate; options: PermissionOption[] }[]) {
    const answer = await turn.requestPermission(r.toolCall, r.options);
    answers.push(`${r.toolCall.toolCallId}=${answer.outcome === 'selected' ? answer.optionId : answer.outcome}`);
  }
  await turn.say(`Answered ${answers.length} permission requests: ${answers.join(', ')}`);
}
