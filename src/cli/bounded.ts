/**
 * Keeps what the runner prints consumable whatever the agent sent: text cut to a length, JSON
 * values cut in depth, breadth and size. Every cut leaves a marker where it happened, so a reader
 * knows the value is not the agent's whole value (and the event says `…_truncated: true`).
 *
 * Why: an agent's `rawInput` can be a 1,000-deep object; printed as is, Python's `json.loads`
 * (recursion limit ~1,000) and jq (parser depth limit) cannot read the line.
 */
import { isObject } from '../util/json';

export interface JsonBounds {
  /** Containers nested deeper than this become a marker string. */
  readonly maxDepth: number;
  /** Longer strings are cut (marker included). */
  readonly maxString: number;
  /** Array items / object keys kept per container. */
  readonly maxItems: number;
  /** Rough budget of characters for the whole value; once spent, the rest becomes markers. */
  readonly maxChars: number;
}

/** `tool_use.input`: deep enough for any real tool's arguments, small enough for one log line. */
export const inputBounds: JsonBounds = { maxDepth: 16, maxString: 4000, maxItems: 200, maxChars: 20_000 };

export const cutMark = '…';

export interface Bounded<T> {
  readonly value: T;
  readonly truncated: boolean;
}

/** At most `max` UTF-16 units, ending in `…` when cut; never splits a surrogate pair. */
export function capText(text: string, max: number): Bounded<string> {
  if (text.length <= max) {
    return { value: text, truncated: false };
  }
  let end = Math.max(0, max - cutMark.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
    end--;
  }
  return { value: text.slice(0, end) + cutMark, truncated: true };
}

export function boundJson(value: unknown, bounds: JsonBounds = inputBounds): Bounded<unknown> {
  const walker = new Walker(bounds);
  const out = walker.walk(value, 0);
  return { value: out, truncated: walker.truncated };
}

class Walker {
  truncated = false;
  private budget: number;

  constructor(private readonly bounds: JsonBounds) {
    this.budget = bounds.maxChars;
  }

  walk(value: unknown, depth: number): unknown {
    if (this.budget <= 0) {
      return this.cut('[… cut: the value is over the size limit]');
    }
    if (typeof value === 'string') {
      const capped = capText(value, this.bounds.maxString);
      this.truncated ||= capped.truncated;
      this.budget -= capped.value.length + 2;
      return capped.value;
    }
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
      this.budget -= 8;
      return value;
    }
    if (Array.isArray(value) || isObject(value)) {
      if (depth >= this.bounds.maxDepth) {
        return this.cut(`[… cut: nested deeper than ${this.bounds.maxDepth} levels]`);
      }
      return Array.isArray(value) ? this.walkArray(value as unknown[], depth) : this.walkObject(value, depth);
    }
    // undefined, functions, bigint: not JSON; JSON.stringify would drop or throw on them.
    return this.cut('[… cut: not a JSON value]');
  }

  private walkArray(items: unknown[], depth: number): unknown[] {
    const out: unknown[] = [];
    this.budget -= 2;
    for (const [i, item] of items.entries()) {
      if (i >= this.bounds.maxItems || this.budget <= 0) {
        out.push(this.cut(`[… cut: ${items.length - i} more items]`));
        break;
      }
      out.push(this.walk(item, depth + 1));
    }
    return out;
  }

  private walkObject(obj: Record<string, unknown>, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = Object.keys(obj);
    this.budget -= 2;
    for (const [i, key] of keys.entries()) {
      if (i >= this.bounds.maxItems || this.budget <= 0) {
        Object.defineProperty(out, cutMark, { value: this.cut(`[… cut: ${keys.length - i} more keys]`), enumerable: true, writable: true, configurable: true });
        break;
      }
      const name = capText(key, this.bounds.maxString);
      this.truncated ||= name.truncated;
      this.budget -= name.value.length + 3;
      // defineProperty: a key named `__proto__` stays a key (plain assignment would set the prototype).
      Object.defineProperty(out, name.value, { value: this.walk(obj[key], depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private cut(marker: string): string {
    this.truncated = true;
    return marker;
  }
}
