/**
 * Bracketed scenario markers in prompt text, e.g. `[slow n=5 ms=100]` or
 * `[edit path=notes.txt text="hello\nworld" complete=yes]`.
 *
 * The recorded Hermes fixtures use the same idea (the scripted LLM behind Hermes was driven by
 * markers such as `[plain]` or `[edit path=…]`), so prompts written for the fixtures read the same
 * way here. Syntax, as documented in test/agents/README.md:
 * - a marker is `[name]` or `[name key=value …]` where `name` is one of {@link markerKeys};
 *   anything else in brackets (`[1]`, `[x]`) is ordinary text;
 * - a value runs until the next ` <known key>=` of the same marker or the closing `]`, so
 *   `[command cmd=echo a=b]` gives `cmd = "echo a=b"`;
 * - a value may be double-quoted to contain `]` or a known key: `[edit text="a ] b"]`;
 * - in values, `\n`, `\t`, `\"` and `\\` are unescaped, so one-line prompts can carry multi-line text.
 */

/** Every marker name and the keys it accepts. */
export const markerKeys = {
  plain: [],
  markdown: [],
  thought: [],
  tools: [],
  'tool-steps': ['ms'],
  diff: ['shape', 'path'],
  edit: ['path', 'text', 'complete'],
  write: ['path', 'text'],
  read: ['path', 'line', 'limit'],
  command: ['cmd'],
  'permission-timeout': ['ms', 'path', 'text', 'cancel-request'],
  'permission-file': ['path'],
  terminal: ['cmd'],
  'meta-terminal': ['cmd'],
  plan: [],
  usage: [],
  title: ['text'],
  mode: ['id'],
  commands: [],
  'unknown-update': [],
  slow: ['n', 'ms'],
  burst: ['n'],
  crash: ['when', 'mode', 'code'],
  garbage: [],
  'huge-line': ['mb'],
  'big-output': ['kb'],
  'big-diff': ['kb'],
  refusal: [],
  'max-tokens': [],
  'max-turn-requests': [],
  error: ['code', 'message'],
  ratelimit: [],
  'ratelimit-text': [],
  'server-error-text': ['fails'],
  'replay-file': ['path', 'raw', 'rate'],
  'meta-usage': ['form', 'input', 'output', 'calls'],
  'late-input': ['path', 'text', 'ask'],
  'silent-edit': ['path', 'text'],
  'silent-command': ['cmd'],
  delete: ['path', 'ask'],
  empty: [],
  retrying: ['n', 'cause'],
  'spawn-daemon': [],
  'deep-input': ['depth', 'leaf', 'kb'],
  recall: [],
  'echo-secrets': ['env'],
  received: [],
} as const satisfies Record<string, readonly string[]>;

export type MarkerName = keyof typeof markerKeys;

export interface Marker {
  readonly name: MarkerName;
  readonly args: ReadonlyMap<string, string>;
  /** Keys that the marker does not know; reported in the log, otherwise ignored. */
  readonly unknownKeys: readonly string[];
  /** The marker as written, for log lines. */
  readonly source: string;
}

function isMarkerName(name: string): name is MarkerName {
  return Object.prototype.hasOwnProperty.call(markerKeys, name);
}

function unescapeValue(value: string): string {
  return value.replace(/\\(["\\nt])/g, (_m, c: string) => {
    switch (c) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      default:
        return c;
    }
  });
}

/** Index of the `]` that closes a marker body starting at `from`, honouring double quotes. */
function findClose(text: string, from: number): number {
  let inQuotes = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && inQuotes) {
      i++;
    } else if (c === '"') {
      inQuotes = !inQuotes;
    } else if (c === ']' && !inQuotes) {
      return i;
    }
  }
  return -1;
}

function parseBody(body: string, keys: readonly string[]): { args: Map<string, string>; unknownKeys: string[] } {
  const args = new Map<string, string>();
  const unknownKeys: string[] = [];
  const keyAt = /([a-z][a-z0-9-]*)=/y;
  let pos = 0;
  while (pos < body.length) {
    while (pos < body.length && /\s/.test(body[pos] ?? '')) {
      pos++;
    }
    if (pos >= body.length) {
      break;
    }
    keyAt.lastIndex = pos;
    const km = keyAt.exec(body);
    if (!km) {
      // Free text inside the brackets: skip the word.
      while (pos < body.length && !/\s/.test(body[pos] ?? '')) {
        pos++;
      }
      continue;
    }
    const key = km[1] ?? '';
    pos = keyAt.lastIndex;
    let value: string;
    if (body[pos] === '"') {
      let end = pos + 1;
      while (end < body.length && body[end] !== '"') {
        end += body[end] === '\\' ? 2 : 1;
      }
      value = body.slice(pos + 1, end);
      pos = end + 1;
    } else {
      // Unquoted: up to the next whitespace-preceded known key, or the end.
      let end = body.length;
      for (const k of keys) {
        const re = new RegExp(`\\s${k.replace(/-/g, '\\-')}=`, 'g');
        re.lastIndex = pos;
        const m = re.exec(body);
        if (m && m.index < end) {
          end = m.index;
        }
      }
      value = body.slice(pos, end).trim();
      pos = end;
    }
    if (keys.includes(key)) {
      args.set(key, unescapeValue(value));
    } else {
      unknownKeys.push(key);
    }
  }
  return { args, unknownKeys };
}

/** All markers in `text`, in order of appearance. */
export function parseMarkers(text: string): Marker[] {
  const markers: Marker[] = [];
  const open = /\[([a-z][a-z-]*)(?=[\s\]])/g;
  let m: RegExpExecArray | null;
  while ((m = open.exec(text)) !== null) {
    const name = m[1] ?? '';
    if (!isMarkerName(name)) {
      continue;
    }
    const bodyStart = m.index + 1 + name.length;
    const close = findClose(text, bodyStart);
    if (close < 0) {
      continue;
    }
    const { args, unknownKeys } = parseBody(text.slice(bodyStart, close), markerKeys[name]);
    markers.push({ name, args, unknownKeys, source: text.slice(m.index, close + 1) });
    open.lastIndex = close + 1;
  }
  return markers;
}

/** Integer argument with a default and bounds; malformed values fall back to the default. */
export function intArg(marker: Marker, key: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = marker.args.get(key);
  if (raw === undefined || !/^-?\d+$/.test(raw.trim())) {
    return fallback;
  }
  return Math.min(max, Math.max(min, Number.parseInt(raw, 10)));
}

export function strArg(marker: Marker, key: string, fallback: string): string {
  const raw = marker.args.get(key);
  return raw === undefined || raw === '' ? fallback : raw;
}

export function boolArg(marker: Marker, key: string): boolean {
  const raw = marker.args.get(key)?.toLowerCase();
  return raw === 'yes' || raw === 'true' || raw === '1';
}
