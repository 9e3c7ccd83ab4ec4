/** Marker name → scenario, and the locally handled slash commands. */
import * as client from './clientScenarios';
import * as continuity from './continuityScenarios';
import type { Marker, MarkerName } from './markers';
import * as permission from './permissionScenarios';
import * as shapes from './runnerScenarios';
import { initialCommands, isModelId, models } from './sessionConfig';
import * as stream from './streamScenarios';
import * as textual from './textScenarios';
import * as tool from './toolScenarios';
import type { Turn } from './turn';

export type Scenario = (turn: Turn, marker: Marker) => Promise<void>;

export const scenarios: Record<MarkerName, Scenario> = {
  plain: textual.plain,
  markdown: textual.markdown,
  thought: textual.thought,
  tools: tool.tools,
  'tool-steps': tool.toolSteps,
  diff: tool.diff,
  edit: permission.edit,
  write: client.write,
  read: client.read,
  command: permission.command,
  'permission-timeout': permission.permissionTimeout,
  'permission-file': permission.permissionFile,
  terminal: client.terminal,
  'meta-terminal': client.metaTerminal,
  plan: textual.plan,
  usage: textual.usage,
  title: textual.title,
  mode: textual.mode,
  commands: textual.commands,
  'unknown-update': textual.unknownUpdate,
  slow: stream.slow,
  burst: stream.burst,
  crash: stream.crash,
  garbage: stream.garbage,
  'huge-line': stream.hugeLine,
  'big-output': tool.bigOutput,
  'big-diff': tool.bigDiff,
  refusal: textual.refusal,
  'max-tokens': textual.maxTokens,
  'max-turn-requests': textual.maxTurnRequests,
  error: textual.error,
  ratelimit: textual.ratelimit,
  'ratelimit-text': textual.ratelimitText,
  'server-error-text': textual.serverErrorText,
  'replay-file': stream.replayFile,
  'meta-usage': shapes.metaUsage,
  'late-input': shapes.lateInput,
  'silent-edit': shapes.silentEdit,
  'silent-command': shapes.silentCommand,
  delete: shapes.deleteFile,
  empty: shapes.empty,
  retrying: shapes.retrying,
  'spawn-daemon': shapes.spawnDaemon,
  'deep-input': shapes.deepInput,
  recall: continuity.recall,
  'echo-secrets': continuity.echoSecrets,
  received: continuity.received,
};

/** Markers that end the turn: later markers in the same prompt are not run. */
export const endsTurn: ReadonlySet<MarkerName> = new Set<MarkerName>([
  'refusal',
  'max-tokens',
  'max-turn-requests',
  'error',
  'ratelimit',
  'ratelimit-text',
  'server-error-text',
  'crash',
]);

/**
 * Slash commands answered locally without a model call, as Hermes does for its own commands
 * (Hermes 0.19 `acp_adapter/server.py`). Returns false for unknown commands, which are then echoed like plain text
 * (Hermes passes unknown `/xyz` to the model).
 */
export async function slashCommand(turn: Turn, promptText: string): Promise<boolean> {
  const match = /^\/([a-z][\w-]*)\s*(.*)$/s.exec(promptText.trim());
  if (!match) {
    return false;
  }
  const [, name, rest = ''] = match;
  const arg = rest.trim();
  switch (name) {
    case 'help':
      await turn.say(`Available commands:\n${initialCommands.map((c) => `- /${c.name}: ${c.description}`).join('\n')}`, 6);
      return true;
    case 'model':
      if (arg === '') {
        await turn.say(`Current model: ${turn.session.stored.modelId}. Available: ${models.map((m) => m.modelId).join(', ')}.`);
      } else if (isModelId(arg)) {
        turn.session.stored.modelId = arg;
        await turn.say(`Switched model to ${arg}.`);
      } else {
        await turn.say(`Unknown model '${arg}'. Available: ${models.map((m) => m.modelId).join(', ')}.`);
      }
      return true;
    case 'plan':
      await textual.plan(turn);
      return true;
    case 'review':
      await turn.say('Nothing to review: the scripted agent made no real changes.');
      return true;
    default:
      return false;
  }
}
