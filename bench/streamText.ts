/**
 * A long agent answer in the Markdown agents write: headings, paragraphs with inline code, bold and
 * links, bullet lists, fenced code (highlighted), a table. Deterministic.
 */
export function agentAnswer(targetChars: number): string {
  const out: string[] = [];
  let size = 0;
  const push = (s: string): void => {
    out.push(s);
    size += s.length;
  };
  for (let i = 0; size < targetChars; i++) {
    if (i % 12 === 0) {
      push(`## Step ${i / 12 + 1}: update \`module${i}.ts\`\n\n`);
    }
    push(
      `The function **compute${i}** in [src/module${i}.ts](src/module${i}.ts#L${10 + i}) reads the config, ` +
        `calls \`resolve(options)\` and returns a *fresh* object; I changed it so the cache key ` +
        `includes the workspace folder (see issue #${100 + i}). Nothing else depends on the old key.\n\n`,
    );
    if (i % 5 === 2) {
      push(`- keeps \`compute${i}\` pure\n- adds a test for the empty folder\n- removes the unused \`legacyKey\` helper\n\n`);
    }
    if (i % 7 === 3) {
      push('```ts\n');
      for (let l = 0; l < 12; l++) {
        push(`export function compute${i}_${l}(options: Options): Result {\n  return { key: \`\${options.folder}:${l}\`, value: resolve(options) };\n}\n`);
      }
      push('```\n\n');
    }
    if (i % 23 === 11) {
      push('| file | before | after |\n| --- | ---: | ---: |\n');
      for (let r = 0; r < 6; r++) {
        push(`| \`src/file${r}.ts\` | ${r * 13} ms | ${r * 7} ms |\n`);
      }
      push('\n');
    }
  }
  return out.join('');
}

/** `text` cut into exactly `count` chunks of (nearly) equal size. */
export function chunked(text: string, count: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < count; i++) {
    chunks.push(text.slice(Math.floor((i * text.length) / count), Math.floor(((i + 1) * text.length) / count)));
  }
  return chunks;
}

/** The benchmark answer cut for the host (`host` chunks) and, its start, for the webview (`webview` chunks): 4 characters each. */
export function chunkSets(host: number, webview: number): { readonly hostChunks: string[]; readonly webChunks: string[] } {
  const text = agentAnswer(host * 4);
  return { hostChunks: chunked(text, host), webChunks: chunked(text.slice(0, webview * 4), webview) };
}
