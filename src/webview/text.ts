import { t } from './strings';

/**
 * Bidi controls and zero-width characters can make a path or title read differently from what it
 * is (Trojan Source). In labels shown to the user they are replaced by a visible `⟨U+202E⟩`.
 * C0/C1 controls (other than tab) become `⟨U+000A⟩` as well, so a label stays on one line.
 */
// eslint-disable-next-line no-control-regex
const invisible = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

/** `⟨U+202E⟩` for the character `c`. */
const codePoint = (c: string): string => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`;

export function visibleLabel(value: string): string {
  return value.replace(invisible, codePoint);
}

/** A title on one line: line breaks and tabs become spaces, invisible characters visible. */
export function visibleTitle(value: string): string {
  return visibleLabel(value.replace(/[\r\n\t]+/g, ' '));
}

const invisibleInText = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

/** Like {@link visibleLabel} for multi-line text (commands): line breaks and tabs stay. */
export function visibleText(value: string): string {
  return value.replace(invisibleInText, codePoint);
}

/** 12345 → "12.3k", 131072 → "131k", 1_500_000 → "1.5M". */
export function compactNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs < 1000) {
    return String(Math.round(n));
  }
  if (abs < 1_000_000) {
    const k = n / 1000;
    return `${abs < 100_000 ? trim1(k) : String(Math.round(k))}k`;
  }
  const m = n / 1_000_000;
  return `${abs < 100_000_000 ? trim1(m) : String(Math.round(m))}M`;
}

function trim1(x: number): string {
  const s = x.toFixed(1);
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

/** 850 → "0.9 s", 12_300 → "12 s", 125_000 → "2 min 5 s". */
export function formatDuration(ms: number): string {
  const safe = Math.max(0, ms);
  if (safe < 10_000) {
    return t('{0} s', (safe / 1000).toFixed(1));
  }
  const seconds = Math.round(safe / 1000);
  if (seconds < 60) {
    return t('{0} s', seconds);
  }
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes < 60) {
    return rest === 0 ? t('{0} min', minutes) : t('{0} min {1} s', minutes, rest);
  }
  return t('{0} h {1} min', Math.floor(minutes / 60), minutes % 60);
}

export function formatCost(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: amount < 1 ? 4 : 2 }).format(amount);
  } catch {
    return `${amount.toFixed(4)} ${currency}`;
  }
}

/** The first `max` characters of a message, on one line, for announcements. */
export function excerpt(value: string, max = 200): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
