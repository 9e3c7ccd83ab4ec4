/** The part of seek-bzip 2.0.0 (lib/index.js) used by the bzip2 worker; the package has no types. */
declare module 'seek-bzip' {
  /** Output sink: seek-bzip calls `writeByte` per decoded byte when given an object that has it. */
  export interface ByteSink {
    writeByte(byte: number): void;
  }
  /** Decodes the whole input (all streams when `multistream`); verifies block and stream CRCs, throws on bad data. */
  export function decode(input: Buffer, output: ByteSink, multistream: boolean): void;
}
