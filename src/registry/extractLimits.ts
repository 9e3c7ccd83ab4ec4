/** Bounds on what one archive may unpack to (a zip or gzip bomb stops here, not the disk). */
export interface ExtractLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
  /** Compare paths without case (Windows, macOS): `Bin/../..` tricks must not slip past a fold. */
  readonly caseInsensitive: boolean;
}

export const defaultExtractLimits = (caseInsensitive: boolean): ExtractLimits => ({
  maxEntries: 100_000,
  maxBytes: 4 * 1024 * 1024 * 1024,
  caseInsensitive,
});
