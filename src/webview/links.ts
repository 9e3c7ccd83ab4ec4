/**
 * Where a link in agent text may lead. Only http(s) and mailto stay links; file paths and
 * `file:` URIs open in the editor (`location/open`); everything else — `javascript:`, `data:`,
 * `vbscript:`, `command:`, `vscode:`, unknown schemes — is shown as plain text.
 */
export type LinkTarget =
  | { readonly kind: 'web'; readonly href: string }
  | { readonly kind: 'file'; readonly path: string; readonly line?: number }
  | { readonly kind: 'none' };

const named: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", colon: ':', tab: '\t', newline: '\n', nbsp: '\u00a0', sol: '/', lpar: '(', rpar: ')',
  period: '.', comma: ',', num: '#', excl: '!', quest: '?', equals: '=', plus: '+', percnt: '%', semi: ';', lowbar: '_', hyphen: '-', dash: '-',
  copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»',
  times: '×', divide: '÷', middot: '·', bull: '•', deg: '°', plusmn: '±', larr: '←', rarr: '→', uarr: '↑', darr: '↓', harr: '↔', rArr: '⇒', lArr: '⇐',
  le: '≤', ge: '≥', ne: '≠', asymp: '≈', check: '✓', hearts: '♥', star: '☆', para: '¶', sect: '§', euro: '€', pound: '£', yen: '¥', cent: '¢',
};

/**
 * Decodes character references (`&#58;`, `&#x3a;`, `&colon;`, `&amp;`): marked leaves named ones
 * in text and all of them in link destinations, where they could hide a scheme.
 */
export function decodeEntities(value: string): string {
  if (!value.includes('&')) {
    return value;
  }
  return value.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});?/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '\ufffd';
    }
    return whole.endsWith(';') ? (named[body] ?? whole) : whole;
  });
}

// eslint-disable-next-line no-control-regex
const ignoredInScheme = /[\u0000-\u0020\u007f-\u00a0\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export function classifyHref(raw: string): LinkTarget {
  const href = decodeEntities(raw).trim();
  // Browsers drop tabs and newlines inside URLs ("java\tscript:"), so look at the scheme without them.
  const compact = href.replace(ignoredInScheme, '');
  const probe = compact.toLowerCase();
  if (/^[a-z]:[\\/]/.test(probe) || /^[^:/?#]*\.[^:/?#]*:\d+(?::\d+)?$/.test(compact)) {
    return fileTarget(compact); // C:\path, or name.ts:12 (not a scheme)
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(probe)?.[1];
  if (scheme === undefined) {
    if (compact === '' || compact.startsWith('#') || compact.startsWith('?') || compact.startsWith('//') || compact.startsWith('\\\\')) {
      return { kind: 'none' };
    }
    const decoded = safeDecode(compact);
    // "javascript%3Aalert(1)" is harmless as a relative URL, but it is no file path either.
    if (/^[a-z][a-z0-9+.-]*:/i.test(decoded.replace(ignoredInScheme, '')) && !/^[a-z]:[\\/]/i.test(decoded)) {
      return { kind: 'none' };
    }
    return fileTarget(decoded);
  }
  if (scheme === 'http' || scheme === 'https' || scheme === 'mailto') {
    return { kind: 'web', href: compact };
  }
  if (scheme === 'file') {
    return fileUriTarget(compact);
  }
  return { kind: 'none' };
}

/** `data:image/png;base64,…` and friends: the only images shown inline. */
export function isInlineImage(src: string): boolean {
  return /^data:image\/(?:png|jpe?g|gif|webp|bmp|avif);base64,[a-z0-9+/=\s]*$/i.test(src);
}

function fileUriTarget(uri: string): LinkTarget {
  let rest = uri.slice('file:'.length);
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  if (rest.startsWith('//')) {
    const afterHost = rest.slice(2);
    const slash = afterHost.indexOf('/');
    const host = slash >= 0 ? afterHost.slice(0, slash) : afterHost;
    const path = slash >= 0 ? afterHost.slice(slash) : '/';
    rest = host === '' || host === 'localhost' ? path : `//${host}${path}`;
  }
  let path = safeDecode(rest);
  if (/^\/[a-zA-Z]:[\\/]/.test(path)) {
    path = path.slice(1);
  }
  if (path === '') {
    return { kind: 'none' };
  }
  const line = lineFromFragment(fragment);
  return line !== undefined ? { kind: 'file', path, line } : { kind: 'file', path };
}

function fileTarget(value: string): LinkTarget {
  let path = value;
  let line: number | undefined;
  const hash = path.indexOf('#');
  if (hash >= 0) {
    line = lineFromFragment(path.slice(hash + 1));
    path = path.slice(0, hash);
  } else {
    const m = /^(.*?):(\d+)(?::\d+)?$/.exec(path);
    if (m?.[1] !== undefined && m[1] !== '' && m[2] !== undefined) {
      path = m[1];
      line = Number(m[2]);
    }
  }
  if (path === '') {
    return { kind: 'none' };
  }
  return line !== undefined ? { kind: 'file', path, line } : { kind: 'file', path };
}

function lineFromFragment(fragment: string): number | undefined {
  const m = /^L?(\d+)/i.exec(fragment);
  return m?.[1] !== undefined ? Number(m[1]) : undefined;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
