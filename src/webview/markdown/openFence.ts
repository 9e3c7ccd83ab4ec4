import { doc } from '../dom';

/** Lines per block of a streaming code fence (so a growing fence does not relayout as one block). */
const chunkLines = 200;

/**
 * A fenced code block still open at the end of a streaming message, shown as plain text that
 * grows by its new complete lines (no lexing, no re-rendering of what is shown). It has the
 * metrics of the highlighted block that replaces it once the closing line arrives (the same
 * `pre`/`code`, monospace, `white-space: pre`), so closing it does not move anything.
 */
export class OpenFence {
  readonly element: HTMLElement;
  readonly #code: HTMLElement;
  readonly #partial: Text;
  #chunk: Text;
  #chunkLines = 0;

  readonly #char: string;
  readonly #length: number;
  readonly #indent: number;
  /** Source offset of the first line not yet shown. */
  #scanPos: number;

  private constructor(char: string, length: number, indent: number, scanPos: number) {
    this.#char = char;
    this.#length = length;
    this.#indent = indent;
    this.#scanPos = scanPos;
    const d = doc();
    this.element = d.createElement('pre');
    this.element.className = 'streaming';
    this.#code = d.createElement('code');
    this.#partial = d.createTextNode('');
    this.#chunk = d.createTextNode('');
    this.element.appendChild(this.#code);
    this.#code.appendChild(this.#partial);
    this.#newChunk();
  }

  /**
   * An open fence whose opening line starts at `start` of `source` and is complete; undefined
   * when the text there is not one.
   */
  static at(source: string, start: number): OpenFence | undefined {
    const m = /^( {0,3})(`{3,}|~{3,})[^\n]*\n/.exec(source.slice(start, source.indexOf('\n', start) + 1));
    if (m?.[1] === undefined || m[2] === undefined) {
      return undefined;
    }
    return new OpenFence(m[2][0] ?? '`', m[2].length, m[1].length, start + m[0].length);
  }

  /** Shows the complete lines that arrived; false once the closing line is among them. */
  advance(source: string): boolean {
    let pos = this.#scanPos;
    let added = '';
    for (;;) {
      const nl = source.indexOf('\n', pos);
      if (nl < 0) {
        break;
      }
      const line = source.slice(pos, nl);
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close?.[1]?.startsWith(this.#char) === true && close[1].length >= this.#length) {
        return false;
      }
      added += `${stripIndent(line, this.#indent)}\n`;
      pos = nl + 1;
      this.#chunkLines++;
      if (this.#chunkLines >= chunkLines) {
        this.#chunk.appendData(added);
        added = '';
        this.#newChunk(this.#chunk.parentElement);
      }
    }
    if (added !== '') {
      this.#chunk.appendData(added);
    }
    this.#scanPos = pos;
    const partial = stripIndent(source.slice(pos), this.#indent);
    if (this.#partial.data !== partial) {
      this.#partial.data = partial;
    }
    return true;
  }

  /**
   * Starts a chunk, after `full` (the chunk that reached `chunkLines`). A full chunk may skip
   * layout off screen: its placeholder height (`.code-chunk`) is then its real height. The chunk
   * still filling has none, since a 200-line placeholder for a few lines would make the
   * transcript jump while it sticks to the bottom (one more frame and scroll per refresh).
   */
  #newChunk(full?: HTMLElement | null): void {
    if (full) {
      full.className = 'code-chunk';
    }
    const span = doc().createElement('span');
    span.className = 'code-chunk-open';
    this.#chunk = doc().createTextNode('');
    span.appendChild(this.#chunk);
    this.#code.insertBefore(span, this.#partial);
    this.#chunkLines = 0;
  }
}

/** Removes up to `indent` leading spaces (a fence indented by n spaces strips n from its lines). */
function stripIndent(line: string, indent: number): string {
  let i = 0;
  while (i < indent && line.charCodeAt(i) === 32) {
    i++;
  }
  return i === 0 ? line : line.slice(i);
}
