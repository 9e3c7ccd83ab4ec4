/**
 * What each real ACP agent puts where, as data: the tool's own name, the turn's token counts,
 * arguments that are still streaming, and the session modes that ask before acting. Keyed by
 * `initialize`'s `agentInfo.name` or, for an agent that sends none, the executable's name.
 * Interpreted by toolIdentity.ts (names, input), turnUsage.ts (tokens) and the runner (modes).
 *
 * Every entry cites where it was observed: reference/agents-in-the-wild.md ("Where the turn's
 * token counts and the tool's own name live", "Permission options", quirk 11), hermes-acp.md §6–7,
 * the recorded transcripts in test/fixtures, and the agents' published packages (versions below).
 */

/** Where the tool's own name is. Sources are tried in order; the first that yields a name wins. */
export type ToolNameSource =
  /** A string at this path of the call's `_meta` (from any update or permission request about it). */
  | { readonly from: 'meta'; readonly path: readonly string[] }
  /** ACP's `name` on the call (unstable in v1; our scripted agent sends it). */
  | { readonly from: 'acpName' }
  /** A string field of `rawInput`. */
  | { readonly from: 'rawInputField'; readonly field: string }
  /** A fixed name when `rawInput` has this key. */
  | { readonly from: 'rawInputKey'; readonly key: string; readonly name: string }
  /** A fixed name for calls whose id starts with this prefix. */
  | { readonly from: 'idPrefix'; readonly prefix: string; readonly name: string }
  /** The id's part before the first separator. */
  | { readonly from: 'idHead'; readonly separator: string }
  /** Title prefixes, in order: the first that starts the title gives the name. */
  | { readonly from: 'titlePrefix'; readonly prefixes: readonly (readonly [prefix: string, name: string])[] }
  /** The title when it is one identifier, or the identifier before its first ": ". */
  | { readonly from: 'titleWord' }
  /** The title the call was first announced with, when it is one identifier. */
  | { readonly from: 'firstTitle' }
  /** A fixed name when the call's `_meta` has this key. */
  | { readonly from: 'metaKey'; readonly key: string; readonly name: string };

/** Where the turn's token counts are (turnUsage.ts reads each). */
export type UsageSource =
  /** `usage` of the `session/prompt` response (unstable in v1; Claude, opencode, Hermes). */
  | 'promptUsage'
  /** `_meta.quota.token_count {input_tokens, output_tokens}` of the prompt response (Gemini CLI). */
  | 'promptMetaQuota'
  /** `_meta.usage {inputTokens, …}` on `agent_message_chunk`s, one per model call, summed (Qwen Code). */
  | 'chunkMetaUsage';

export interface ModeProfile {
  /** Modes in which the agent sends `session/request_permission` before edits and commands. */
  readonly asking: readonly string[];
  /** Modes in which it acts without asking; the runner leaves them for `asking[0]` under a deny or rules policy. */
  readonly autoApproving: readonly string[];
  /** Modes in neither list are judged by their name ({@link genericAutoApproving}); otherwise they count as asking (e.g. `plan`). */
  readonly judgeUnlistedByName?: boolean;
}

export interface AgentProfile {
  readonly id: string;
  readonly label: string;
  /** `agentInfo.name` values, then executable names, that select this profile. */
  readonly names: readonly string[];
  readonly toolName: readonly ToolNameSource[];
  /** `rawInput` that wraps the arguments: when `rawInput[whenField]` is a string, the input is `rawInput[field]`. */
  readonly wrappedArguments?: { readonly whenField: string; readonly field: string };
  /** `rawInput` that is not the arguments yet (still streaming from the model). */
  readonly partialInput?: { readonly rawInputKeys?: readonly string[]; readonly metaPhase?: string };
  readonly usage: readonly UsageSource[];
  /** Unset: the agent has no modes that decide permissions (or none are known). */
  readonly modes?: ModeProfile;
  /** The agent never sends a permission request, whatever its settings (pi). */
  readonly neverAsks?: boolean;
  /**
   * A call's arguments arrive only with its end (or after it), never while it runs: its `tool_use`
   * waits for them rather than going out without an input (the TUI Gateway and the API Server).
   */
  readonly inputWithResult?: boolean;
  /** A call whose `_meta` has this key carries its command only as the title (pi's bash): the input is `{command: title}`. */
  readonly commandInTitle?: { readonly metaKey: string };
}

/** Hermes 0.19 titles (hermes-acp.md §6 "Titles"); newer Hermes writes `<tool_name>: <preview>` (titleWord). */
const hermesTitlePrefixes: readonly (readonly [string, string])[] = [
  ['terminal: ', 'terminal'],
  ['read: ', 'read_file'],
  ['write: ', 'write_file'],
  ['patch (', 'patch'],
  ['search: ', 'search_files'],
  ['web search: ', 'web_search'],
  ['extract: ', 'web_extract'],
  ['python: ', 'execute_code'],
  ['todo (', 'todo'],
  ['delegate batch (', 'delegate_task'],
  ['delegate: ', 'delegate_task'],
  ['memory ', 'memory'],
  ['skill view (', 'skill_view'],
  ['process ', 'process'],
  ['navigate: ', 'browser_navigate'],
];

const allUsage: readonly UsageSource[] = ['promptUsage', 'promptMetaQuota', 'chunkMetaUsage'];

export const agentProfiles: readonly AgentProfile[] = [
  {
    // hermes-acp.md §6–7: edit approvals `edit-approval-N` carry `rawInput {tool, arguments}`;
    // dangerous-command checks `perm-check-N` guard `terminal`; usage is cumulative (quirks).
    id: 'hermes',
    label: 'Hermes Agent',
    names: ['hermes-agent', 'hermes'],
    toolName: [
      { from: 'rawInputField', field: 'tool' },
      { from: 'idPrefix', prefix: 'perm-check-', name: 'terminal' },
      { from: 'titlePrefix', prefixes: hermesTitlePrefixes },
      { from: 'titleWord' },
    ],
    wrappedArguments: { whenField: 'tool', field: 'arguments' },
    usage: ['promptUsage'],
    // session/new in fixtures/hermes/main.jsonl: default "Ask before edits", accept_edits, dont_ask.
    modes: { asking: ['default'], autoApproving: ['accept_edits', 'dont_ask'] },
  },
  {
    // fixtures/agents/claude-main.jsonl: `_meta.claudeCode.toolName` (Read, Edit, Bash, Write); the
    // first `tool_call` has `rawInput: {}`, the arguments follow in an update; usage in the response.
    id: 'claude',
    label: 'Claude Agent ACP',
    names: ['@zed-industries/claude-agent-acp', '@zed-industries/claude-code-acp', '@agentclientprotocol/claude-agent-acp', 'claude-agent-acp', 'claude-code-acp'],
    toolName: [{ from: 'meta', path: ['claudeCode', 'toolName'] }],
    usage: ['promptUsage'],
    modes: { asking: ['default'], autoApproving: ['acceptEdits', 'dontAsk', 'bypassPermissions'] },
  },
  {
    // @google/gemini-cli 0.61.0: call ids are `<tool>__<id>`; tokens only in the response's
    // `_meta.quota.token_count`; modes default / autoEdit / yolo / plan.
    id: 'gemini',
    label: 'Gemini CLI',
    names: ['gemini-cli', 'gemini'],
    toolName: [{ from: 'idHead', separator: '__' }],
    usage: ['promptMetaQuota', 'promptUsage'],
    modes: { asking: ['default'], autoApproving: ['autoEdit', 'yolo'] },
  },
  {
    // fixtures/agents/codex-main.jsonl: titles are sentences; `rawInput.changes` is an apply_patch,
    // `rawInput.command` an exec_command (their names in a session/load replay); no usage.
    id: 'codex',
    label: 'Codex ACP',
    names: ['codex-acp', '@zed-industries/codex-acp', 'codex'],
    toolName: [
      { from: 'rawInputKey', key: 'changes', name: 'apply_patch' },
      { from: 'rawInputKey', key: 'command', name: 'exec_command' },
    ],
    usage: ['promptUsage'],
    modes: { asking: ['read-only', 'auto'], autoApproving: ['full-access'] },
  },
  {
    // @qwen-code/qwen-code 0.24.4: `_meta.toolName` on tool calls; `_meta.phase: "preparing"` while
    // the model streams the arguments; `_meta.usage` on an empty agent_message_chunk per model call;
    // modes plan / default / auto-edit / auto / yolo, current `auto` (never asks).
    id: 'qwen',
    label: 'Qwen Code',
    names: ['qwen-code', 'qwen'],
    toolName: [{ from: 'meta', path: ['toolName'] }],
    partialInput: { metaPhase: 'preparing' },
    usage: ['chunkMetaUsage', 'promptUsage'],
    modes: { asking: ['default'], autoApproving: ['auto-edit', 'auto', 'yolo'] },
  },
  {
    // opencode-ai 1.18.33: usage in the response (last model step only); asks only when its
    // config says `permission: ask`, and its modes (build/plan agents) do not decide that.
    // Names: a call is announced (`tool_call`, pending) titled with its tool's name, then retitled
    // (its command, a path, "2 todos"); a failed one is titled with the name again — opencode's
    // packages/opencode/src/acp/tool.ts (`pendingToolCall`: `title: state.title || toolName`,
    // `errorToolUpdate`: `title: toolName`; anomalyco/opencode) and test/fixtures/realAgents/
    // opencode-{bash,todowrite}.jsonl: `bash`, `todowrite`, `read`, `edit`.
    id: 'opencode',
    label: 'opencode',
    names: ['OpenCode', 'opencode'],
    toolName: [{ from: 'acpName' }, { from: 'firstTitle' }],
    usage: ['promptUsage'],
  },
  {
    // pi-acp 0.0.34: a call is announced titled with its tool's name (`read`, `edit`, `write`), but a
    // bash call is titled with its command and carries `_meta.terminal_info` instead of `rawInput`
    // — pi-acp's src/acp/session.ts (`emitBashToolCall`: `title: bashCommand(args) ?? toolName`,
    // `_meta: bashTerminalInfoMeta(…)`) and src/acp/translate/bash.ts (`isBashTool`: `bash`)
    // (svkozak/pi-acp), test/fixtures/realAgents/pi-bash.jsonl; `rawInput {partialArgs}` while
    // streaming; never asks; no usage.
    id: 'pi',
    label: 'pi',
    names: ['pi-acp', 'pi'],
    toolName: [{ from: 'metaKey', key: 'terminal_info', name: 'bash' }, { from: 'firstTitle' }, { from: 'titleWord' }],
    partialInput: { rawInputKeys: ['partialArgs'] },
    commandInTitle: { metaKey: 'terminal_info' },
    usage: [],
    neverAsks: true,
  },
  {
    // cline 3.0.65: titles `<tool>: {json…}`; modes plan / act; asks even for reads unless its
    // `auto_approve` option is on; no usage.
    id: 'cline',
    label: 'Cline',
    names: ['cline', '@cline/cli', 'cline-acp'],
    toolName: [{ from: 'titleWord' }],
    usage: [],
    modes: { asking: ['act', 'plan'], autoApproving: [] },
  },
  {
    // Hermes over its TUI Gateway (src/transports/tuiGateway; test/fixtures/hermes-gateway): calls
    // carry ACP `name`; the arguments come only in `tool.complete.args`; usage per turn in the response.
    id: 'hermes-tui-gateway',
    label: 'Hermes (TUI Gateway)',
    names: ['hermes-tui-gateway'],
    toolName: [{ from: 'acpName' }],
    usage: ['promptUsage'],
    inputWithResult: true,
  },
  {
    // Hermes' API Server (src/transports/apiServer; test/fixtures/hermes-api-server): `hermes.tool.progress`
    // and run events carry no arguments; they are read from the stored session once the stream ended.
    id: 'hermes-api-server',
    label: 'Hermes (API Server)',
    names: ['hermes-api-server'],
    toolName: [{ from: 'acpName' }],
    usage: ['promptUsage'],
    inputWithResult: true,
  },
  {
    // test/agents: the scripted agent imitates Hermes (titles, approvals) and sends ACP `name`.
    id: 'scripted',
    label: 'Scripted test agent',
    names: ['scripted-agent'],
    toolName: [
      { from: 'acpName' },
      { from: 'meta', path: ['toolName'] },
      { from: 'rawInputField', field: 'tool' },
      { from: 'idPrefix', prefix: 'perm-check-', name: 'terminal' },
      { from: 'titlePrefix', prefixes: hermesTitlePrefixes },
    ],
    wrappedArguments: { whenField: 'tool', field: 'arguments' },
    usage: allUsage,
    modes: { asking: ['default'], autoApproving: ['accept_edits', 'dont_ask', 'auto-edit', 'auto', 'yolo'] },
  },
];

/** Agents without a profile: every known place, ACP first; modes judged by {@link genericAutoApproving}. */
export const genericProfile: AgentProfile = {
  id: 'generic',
  label: 'ACP agent',
  names: [],
  toolName: [{ from: 'acpName' }, { from: 'meta', path: ['toolName'] }, { from: 'meta', path: ['claudeCode', 'toolName'] }],
  usage: allUsage,
  modes: { asking: ['default'], autoApproving: [], judgeUnlistedByName: true },
};

/** Mode ids that, by their name, act without asking (Claude, Gemini, Qwen, Hermes, Codex spellings). */
export const genericAutoApproving = /^(?:auto|auto[-_ ]?edits?|yolo|accept[-_ ]?edits|dont[-_ ]?ask|bypass[-_ ]?permissions|full[-_ ]?access|never[-_ ]?ask)$/i;

/** The profile for an agent, by `agentInfo.name`, else by the executable's name. */
export function profileFor(agentName: string | undefined, executable: string | undefined): AgentProfile {
  for (const key of [agentName, executable]) {
    if (key === undefined || key === '') {
      continue;
    }
    const found = agentProfiles.find((p) => p.names.includes(key));
    if (found !== undefined) {
      return found;
    }
  }
  return genericProfile;
}
