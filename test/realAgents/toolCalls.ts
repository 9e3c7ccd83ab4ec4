/**
 * Builds a call to the agent's own read / edit / shell tool from the tools its request offered:
 * the tool is picked by name (names seen in `reference/agents-in-the-wild.md`), its arguments are
 * filled from the tool's JSON Schema by property name, so a renamed parameter shows up as an
 * unfilled required property in the request log instead of a silent wrong call.
 */
import * as path from 'node:path';
import { arr, isObject, str, type JsonObject, type OfferedTool, type ToolCall } from './modelTypes';

export type Action = 'read' | 'edit' | 'shell' | 'plan';

/** Preference order per action; the first name the request offers wins. */
export const toolPreference: Record<Action, readonly string[]> = {
  read: ['Read', 'read_file', 'read', 'read_files', 'view'],
  edit: ['Edit', 'replace', 'edit', 'apply_patch', 'editor', 'str_replace_based_edit_tool', 'str_replace_editor', 'write_file', 'Write', 'write', 'write_to_file'],
  shell: ['Bash', 'run_shell_command', 'bash', 'exec_command', 'shell_command', 'shell', 'run_commands', 'execute_command', 'terminal'],
  // Claude's TodoWrite, Codex's update_plan, opencode's todowrite, Gemini's write_todos, Hermes' todo.
  plan: ['TodoWrite', 'update_plan', 'todowrite', 'write_todos', 'todo_write', 'todo'],
};

/** The rig's plan: three steps in three states (each agent's todo tool gets them in its own fields). */
export const rigPlan: readonly { readonly text: string; readonly status: 'completed' | 'in_progress' | 'pending' }[] = [
  { text: 'Read rig-target.txt', status: 'completed' },
  { text: 'Edit rig-target.txt', status: 'in_progress' },
  { text: 'Check the result', status: 'pending' },
];

/** What the scripted model does in the run's cwd. */
export interface Target {
  readonly cwd: string;
  /** Relative to `cwd`. */
  readonly file: string;
  readonly oldText: string;
  readonly newText: string;
  /** The whole file after the edit (for write-style tools). */
  readonly newContent: string;
  readonly command: string;
}

interface Values {
  readonly path?: string;
  readonly old?: string;
  readonly new?: string;
  readonly content?: string;
  readonly command?: string;
  readonly patch?: string;
  readonly description?: string;
}

type Semantic = keyof Values;

const patterns: readonly (readonly [RegExp, Semantic])[] = [
  [/^(file_?path|filepath|path|absolute_?path|target_?file|file|filename)$/i, 'path'],
  [/^(old_?(string|text|str)|search)$/i, 'old'],
  [/^(new_?(string|text|str)|replace|replacement)$/i, 'new'],
  [/^(content|contents|file_?text)$/i, 'content'],
  [/^(command|cmd|script)$/i, 'command'],
  [/^(input|patch|diff)$/i, 'patch'],
  [/^(description|instruction|explanation|reason|justification|summary)$/i, 'description'],
];
const pluralPath = /^(paths|file_?paths|files|filepaths)$/i;
const pluralCommand = /^commands$/i;

export interface BuiltCall {
  readonly call: ToolCall;
  /** Required properties the builder had no value for (filled with a type default). */
  readonly unfilled: readonly string[];
}

export function codexPatch(target: Target): string {
  return ['*** Begin Patch', `*** Update File: ${target.file}`, '@@', `-${target.oldText}`, `+${target.newText}`, '*** End Patch', ''].join('\n');
}

export function pickTool(action: Action, tools: readonly OfferedTool[]): OfferedTool | undefined {
  for (const name of toolPreference[action]) {
    const tool = tools.find((t) => t.name === name);
    if (tool !== undefined) {
      return tool;
    }
  }
  return undefined;
}

export function buildCall(action: Action, tool: OfferedTool, target: Target, id: string): BuiltCall {
  if (action === 'plan') {
    const unfilled: string[] = [];
    return { call: { kind: 'function', id, name: tool.name, args: planArgs(tool.parameters ?? {}, unfilled) }, unfilled };
  }
  const abs = path.join(target.cwd, target.file);
  const description = 'rig: scripted call';
  const values: Values =
    action === 'read'
      ? { path: abs, description }
      : action === 'shell'
        ? { command: target.command, description }
        : { path: abs, old: target.oldText, new: target.newText, content: target.newContent, patch: codexPatch(target), description };
  if (tool.freeform) {
    return { call: { kind: 'freeform', id, name: tool.name, input: values.patch ?? values.command ?? '' }, unfilled: [] };
  }
  const unfilled: string[] = [];
  const args = fill(tool.parameters ?? {}, values, unfilled, '');
  return { call: { kind: 'function', id, name: tool.name, args }, unfilled };
}

/** A todo tool's arguments: its one array of objects gets {@link rigPlan}, item fields filled by name. */
function planArgs(schema: JsonObject, unfilled: string[]): JsonObject {
  const props = isObject(schema.properties) ? schema.properties : {};
  const out: JsonObject = {};
  for (const [name, raw] of Object.entries(props)) {
    const prop = isObject(raw) ? raw : {};
    const items = isObject(prop.items) ? prop.items : undefined;
    if (types(prop).includes('array') && items !== undefined && types(items).includes('object')) {
      out[name] = rigPlan.map((step, i) => planItem(items, step, i, unfilled, `${name}[].`));
    } else if (/^(explanation|summary|description)$/i.test(name)) {
      out[name] = 'rig: scripted plan';
    }
  }
  return out;
}

function planItem(schema: JsonObject, step: (typeof rigPlan)[number], i: number, unfilled: string[], prefix: string): JsonObject {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(arr(schema.required).filter((r): r is string => typeof r === 'string'));
  const out: JsonObject = {};
  for (const [name, raw] of Object.entries(props)) {
    const prop = isObject(raw) ? raw : {};
    const allowed = arr(prop.enum).filter((v): v is string => typeof v === 'string');
    if (/^(content|step|text|title|task|description)$/i.test(name)) {
      out[name] = step.text;
    } else if (/^status$/i.test(name)) {
      out[name] = allowed.length === 0 || allowed.includes(step.status) ? step.status : allowed[0];
    } else if (/^priority$/i.test(name)) {
      out[name] = allowed.length === 0 || allowed.includes('medium') ? 'medium' : allowed[0];
    } else if (/^active_?form$/i.test(name)) {
      out[name] = `Doing: ${step.text}`;
    } else if (/^id$/i.test(name)) {
      out[name] = String(i + 1);
    } else if (required.has(name)) {
      unfilled.push(`${prefix}${name}`);
      out[name] = defaultFor(prop);
    }
  }
  return out;
}

function types(schema: JsonObject): readonly string[] {
  return typeof schema.type === 'string' ? [schema.type] : arr(schema.type).filter((t): t is string => typeof t === 'string');
}

function fill(schema: JsonObject, values: Values, unfilled: string[], prefix: string): JsonObject {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(arr(schema.required).filter((r): r is string => typeof r === 'string'));
  const out: JsonObject = {};
  for (const [name, raw] of Object.entries(props)) {
    const prop = isObject(raw) ? raw : {};
    const value = valueFor(name, prop, values, unfilled, `${prefix}${name}.`);
    if (value !== undefined) {
      out[name] = value;
    } else if (required.has(name)) {
      unfilled.push(`${prefix}${name}`);
      out[name] = defaultFor(prop);
    }
  }
  return out;
}

function valueFor(name: string, prop: JsonObject, values: Values, unfilled: string[], prefix: string): unknown {
  const enumValues = arr(prop.enum);
  if (enumValues.length > 0) {
    // An editor-style tool: `command: "view" | "create" | "str_replace" | …`.
    return enumValues.includes('str_replace') && values.old !== undefined ? 'str_replace' : undefined;
  }
  const t = types(prop);
  if (t.includes('array')) {
    const items = isObject(prop.items) ? prop.items : {};
    if (pluralPath.test(name) && values.path !== undefined) {
      return [types(items).includes('object') ? fill(items, values, unfilled, prefix) : values.path];
    }
    if ((pluralCommand.test(name) || /^command$/i.test(name)) && values.command !== undefined) {
      return pluralCommand.test(name) ? [values.command] : ['bash', '-lc', values.command];
    }
    if (types(items).includes('object') && (values.old !== undefined || values.path !== undefined)) {
      const item = fill(items, values, unfilled, prefix);
      return Object.keys(item).length > 0 ? [item] : undefined;
    }
    return undefined;
  }
  for (const [re, semantic] of patterns) {
    if (re.test(name)) {
      const v = values[semantic];
      return v === undefined ? undefined : v;
    }
  }
  return undefined;
}

function defaultFor(prop: JsonObject): unknown {
  const first = arr(prop.enum)[0];
  if (first !== undefined) {
    return first;
  }
  const t = types(prop);
  if (t.includes('boolean')) {
    return false;
  }
  if (t.includes('number') || t.includes('integer')) {
    return 0;
  }
  if (t.includes('array')) {
    return [];
  }
  if (t.includes('object')) {
    return {};
  }
  return str(prop.default) ?? '';
}
