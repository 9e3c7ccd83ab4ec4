import { doc } from './dom';

/**
 * ANSI SGR colours and styles in terminal output, as classes (`ansi-fg-1`, `ansi-bold`, …) that
 * styles/main.css maps to the theme's `--vscode-terminal-ansi*` colours (the CSP forbids inline
 * styles). 256-colour and true-colour codes are mapped to the nearest of the 16 theme colours.
 * Other escape sequences (cursor movement, OSC titles, …) are dropped.
 */
export interface AnsiState {
  readonly fg?: number;
  readonly bg?: number;
  readonly bold?: boolean;
  readonly dim?: boolean;
  readonly italic?: boolean;
  readonly underline?: boolean;
  readonly inverse?: boolean;
}

// CSI … final byte | OSC … BEL/ST | two-byte escapes.
// eslint-disable-next-line no-control-regex
const escapes = /\u001b\[([0-9;:?<>=]*)[ -/]*([@-~])|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]?/g;
// eslint-disable-next-line no-control-regex
const controls = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Appends `text` to `parent` as styled spans; returns the style in effect at the end. */
export function appendAnsi(parent: Node, text: string, state: AnsiState = {}): AnsiState {
  const d = doc();
  let current = state;
  let last = 0;
  const source = collapseCarriageReturns(text);
  const emit = (segment: string): void => {
    const clean = segment.replace(controls, '');
    if (clean === '') {
      return;
    }
    const cls = classesOf(current);
    if (cls === '') {
      parent.appendChild(d.createTextNode(clean));
    } else {
      const span = d.createElement('span');
      span.className = cls;
      span.textContent = clean;
      parent.appendChild(span);
    }
  };
  escapes.lastIndex = 0;
  for (let m = escapes.exec(source); m !== null; m = escapes.exec(source)) {
    emit(source.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[2] === 'm' && m[1] !== undefined) {
      current = applySgr(current, m[1]);
    }
  }
  emit(source.slice(last));
  return current;
}

/** "50%\r75%\r100%" shows as "100%", as a terminal would. */
function collapseCarriageReturns(text: string): string {
  if (!text.includes('\r')) {
    return text;
  }
  return text
    .replace(/\r+\n/g, '\n')
    .split('\n')
    .map((line) => {
      const cr = line.lastIndexOf('\r');
      return cr >= 0 ? line.slice(cr + 1) : line;
    })
    .join('\n');
}

function classesOf(s: AnsiState): string {
  const out: string[] = [];
  if (s.fg !== undefined) {
    out.push(`ansi-fg-${s.fg}`);
  }
  if (s.bg !== undefined) {
    out.push(`ansi-bg-${s.bg}`);
  }
  if (s.bold === true) {
    out.push('ansi-bold');
  }
  if (s.dim === true) {
    out.push('ansi-dim');
  }
  if (s.italic === true) {
    out.push('ansi-italic');
  }
  if (s.underline === true) {
    out.push('ansi-underline');
  }
  if (s.inverse === true) {
    out.push('ansi-inverse');
  }
  return out.join(' ');
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function applySgr(state: AnsiState, params: string): AnsiState {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  const s: Mutable<AnsiState> = { ...state };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] ?? 0;
    if (code === 0) {
      for (const key of Object.keys(s) as (keyof AnsiState)[]) {
        delete s[key];
      }
    } else if (code === 1) {
      s.bold = true;
    } else if (code === 2) {
      s.dim = true;
    } else if (code === 3) {
      s.italic = true;
    } else if (code === 4) {
      s.underline = true;
    } else if (code === 7) {
      s.inverse = true;
    } else if (code === 22) {
      delete s.bold;
      delete s.dim;
    } else if (code === 23) {
      delete s.italic;
    } else if (code === 24) {
      delete s.underline;
    } else if (code === 27) {
      delete s.inverse;
    } else if (code >= 30 && code <= 37) {
      s.fg = code - 30;
    } else if (code >= 90 && code <= 97) {
      s.fg = code - 90 + 8;
    } else if (code === 39) {
      delete s.fg;
    } else if (code >= 40 && code <= 47) {
      s.bg = code - 40;
    } else if (code >= 100 && code <= 107) {
      s.bg = code - 100 + 8;
    } else if (code === 49) {
      delete s.bg;
    } else if (code === 38 || code === 48) {
      const mode = codes[i + 1];
      let colour: number | undefined;
      if (mode === 5) {
        colour = from256(codes[i + 2] ?? 0);
        i += 2;
      } else if (mode === 2) {
        colour = nearest16(codes[i + 2] ?? 0, codes[i + 3] ?? 0, codes[i + 4] ?? 0);
        i += 4;
      }
      if (colour !== undefined) {
        if (code === 38) {
          s.fg = colour;
        } else {
          s.bg = colour;
        }
      }
    }
  }
  return s;
}

function from256(n: number): number {
  if (n < 16) {
    return n;
  }
  if (n >= 232) {
    const level = (n - 232) / 23;
    return level < 0.25 ? 0 : level < 0.5 ? 8 : level < 0.8 ? 7 : 15;
  }
  const c = n - 16;
  const scale = [0, 95, 135, 175, 215, 255];
  return nearest16(scale[Math.floor(c / 36)] ?? 0, scale[Math.floor(c / 6) % 6] ?? 0, scale[c % 6] ?? 0);
}

/** The basic colour (0–7, or 8–15 when bright) closest to an RGB value. */
function nearest16(r: number, g: number, b: number): number {
  const max = Math.max(r, g, b);
  if (max < 64) {
    return 0;
  }
  const threshold = max * 0.6;
  const index = (r >= threshold ? 1 : 0) | (g >= threshold ? 2 : 0) | (b >= threshold ? 4 : 0);
  if (index === 7) {
    return max > 200 ? 15 : 7;
  }
  return index + (max > 200 ? 8 : 0);
}
