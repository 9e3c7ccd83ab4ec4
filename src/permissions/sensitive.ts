import picomatch from 'picomatch';

/**
 * Names and paths always asked about (the extension) or denied (the runner), whatever a rule
 * says and whatever the access: credentials, keys and repository internals. Each entry is a
 * glob over one path segment; an entry with a `/` matches consecutive segments. Matched without
 * regard to case on every platform: `SRC\.ENV` on Windows or macOS is the same file as `src/.env`.
 */
export const defaultSensitivePatterns: readonly string[] = [
  '.env*',
  '.git',
  '.ssh',
  '.aws',
  '.gnupg',
  '.npmrc',
  '.netrc',
  '.pypirc',
  'id_rsa*',
  'id_ed25519*',
  '*.pem',
  '*.key',
  '*.p12',
];

interface CompiledSensitive {
  readonly pattern: string;
  /** How many segments a match spans; undefined (a `**` inside) for any number. */
  readonly segments: number | undefined;
  readonly test: (s: string) => boolean;
}

const compiled = new Map<string, CompiledSensitive | undefined>();

function compile(pattern: string): CompiledSensitive | undefined {
  if (compiled.has(pattern)) {
    return compiled.get(pattern);
  }
  // A folder names everything under it: `.config/gcloud/**` is `.config/gcloud`.
  const trimmed = pattern
    .trim()
    .replace(/\\/g, '/')
    .replace(/(\/\*\*)+\/*$/, '')
    .replace(/^\/+|\/+$/g, '');
  let result: CompiledSensitive | undefined;
  if (trimmed !== '' && !trimmed.split('/').includes('..')) {
    result = {
      pattern,
      segments: trimmed.includes('**') ? undefined : trimmed.split('/').length,
      // `dot`: `*.pem` must match `.pem` too; `nocase` for every platform (see above).
      test: picomatch(trimmed, { dot: true, nocase: true, windows: false }),
    };
  }
  compiled.set(pattern, result);
  return result;
}

/** Splits a path (absolute or relative, either separator) into its names. */
export function pathSegments(p: string): string[] {
  return p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

/** The first pattern any run of `p`'s segments matches, or undefined. */
export function sensitiveMatch(p: string, extra: readonly string[] = []): string | undefined {
  const segments = pathSegments(p);
  for (const pattern of [...defaultSensitivePatterns, ...extra]) {
    const c = compile(pattern);
    if (c === undefined) {
      continue;
    }
    for (let i = 0; i < segments.length; i++) {
      const lengths = c.segments !== undefined ? [c.segments] : segments.slice(i).map((_, n) => n + 1);
      if (lengths.some((n) => i + n <= segments.length && c.test(segments.slice(i, i + n).join('/')))) {
        return pattern;
      }
    }
  }
  return undefined;
}

/** Entries of `hermes.permissions.sensitivePaths` that cannot be used, with why. */
export function invalidSensitivePatterns(patterns: readonly string[]): string[] {
  return patterns.filter((p) => compile(p) === undefined).map((p) => `${JSON.stringify(p)}: empty or climbs with ".."`);
}
