/**
 * Minimal scanning of JSON text, so the replay agent can cut a recorded message out of a fixture
 * line and change its `id` without re-serialising it: the frames it sends keep the recording's
 * exact bytes (key order, spacing, `\u2022`-style escapes).
 */

export interface Span {
  readonly start: number;
  readonly end: number;
}

function skipWhitespace(text: string, pos: number): number {
  let p = pos;
  while (p < text.length && (text[p] === ' ' || text[p] === '\t' || text[p] === '\n' || text[p] === '\r')) {
    p++;
  }
  return p;
}

function scanString(text: string, pos: number): number {
  // text[pos] is the opening quote.
  let p = pos + 1;
  while (p < text.length) {
    const c = text[p];
    if (c === '\\') {
      p += 2;
    } else if (c === '"') {
      return p + 1;
    } else {
      p++;
    }
  }
  throw new SyntaxError(`unterminated string at ${pos}`);
}

/** End index (exclusive) of the JSON value starting at `pos`. */
export function scanValue(text: string, pos: number): number {
  const start = skipWhitespace(text, pos);
  const c = text[start];
  if (c === '"') {
    return scanString(text, start);
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    let p = start;
    while (p < text.length) {
      const d = text[p];
      if (d === '"') {
        p = scanString(text, p);
        continue;
      }
      if (d === '{' || d === '[') {
        depth++;
      } else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) {
          return p + 1;
        }
      }
      p++;
    }
    throw new SyntaxError(`unterminated ${c} at ${start}`);
  }
  let p = start;
  while (p < text.length && !/[\s,}\]]/.test(text[p] ?? '')) {
    p++;
  }
  if (p === start) {
    throw new SyntaxError(`no value at ${start}`);
  }
  return p;
}

/** Spans of the values of the top-level members of the JSON object in `text`. */
export function memberSpans(text: string): Map<string, Span> {
  const spans = new Map<string, Span>();
  let p = skipWhitespace(text, 0);
  if (text[p] !== '{') {
    throw new SyntaxError('not a JSON object');
  }
  p = skipWhitespace(text, p + 1);
  if (text[p] === '}') {
    return spans;
  }
  while (p < text.length) {
    const keyEnd = scanString(text, p);
    const key: unknown = JSON.parse(text.slice(p, keyEnd));
    p = skipWhitespace(text, keyEnd);
    if (text[p] !== ':') {
      throw new SyntaxError(`expected ':' at ${p}`);
    }
    const valueStart = skipWhitespace(text, p + 1);
    const valueEnd = scanValue(text, valueStart);
    spans.set(String(key), { start: valueStart, end: valueEnd });
    p = skipWhitespace(text, valueEnd);
    if (text[p] === ',') {
      p = skipWhitespace(text, p + 1);
    } else if (text[p] === '}') {
      return spans;
    } else {
      throw new SyntaxError(`expected ',' or '}' at ${p}`);
    }
  }
  throw new SyntaxError('unterminated object');
}

/** The raw text of a top-level member's value, or undefined. */
export function rawMember(text: string, key: string): string | undefined {
  const span = memberSpans(text).get(key);
  return span === undefined ? undefined : text.slice(span.start, span.end);
}

/** `text` with the value of a top-level member replaced by `rawValue` (already JSON). */
export function replaceMember(text: string, key: string, rawValue: string): string {
  const span = memberSpans(text).get(key);
  if (span === undefined) {
    return text;
  }
  return text.slice(0, span.start) + rawValue + text.slice(span.end);
}
