/** What went wrong while reading the registry or installing from it (the message says it for the user). */
export type RegistryErrorKind =
  | 'unreachable'
  | 'invalidEntry'
  | 'urlRefused'
  | 'download'
  | 'timeout'
  | 'tooLarge'
  | 'sizeMismatch'
  | 'checksum'
  | 'unsafeArchive'
  | 'corruptArchive'
  | 'unsupportedArchive'
  | 'cmdOutside'
  | 'cmdMissing'
  | 'cancelled'
  | 'startFailed'
  /** An npx/uvx package (or its version) the registry the user's npm or uv uses does not have. */
  | 'packageMissing'
  /** The package could not be checked (no npm, the registry unreachable). */
  | 'packageUnchecked'
  /** The index is not valid JSON, or not a registry index. */
  | 'invalidIndex';

export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    readonly kind: RegistryErrorKind,
    message: string,
  ) {
    super(message);
  }

  /** By name, so it holds across bundles (the extension and its tests load separate copies). */
  static is(e: unknown, kind?: RegistryErrorKind): e is RegistryError {
    return e instanceof Error && e.name === 'RegistryError' && (kind === undefined || (e as RegistryError).kind === kind);
  }
}

export function cancelled(): RegistryError {
  return new RegistryError('cancelled', 'Cancelled.');
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) {
    throw cancelled();
  }
}
