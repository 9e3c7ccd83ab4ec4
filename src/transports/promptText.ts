import type * as acp from '@agentclientprotocol/sdk';

/**
 * A prompt's content blocks as the plain text `prompt.submit` carries. Text is kept as is; files and
 * links become `@file:` references, Hermes' own syntax for files in the workspace; embedded
 * resources are inlined as fenced blocks. Images are not sent this way (the gateway attaches them
 * with `image.attach`); they are named so the text says something was left out.
 */
export function promptText(blocks: readonly acp.ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        parts.push(b.text);
        break;
      case 'resource_link':
        parts.push(b.uri.startsWith('file://') ? `@file:${decodeURIComponent(new URL(b.uri).pathname)}` : b.uri);
        break;
      case 'resource':
        if ('text' in b.resource) {
          parts.push(`${b.resource.uri}:\n\`\`\`\n${b.resource.text}\n\`\`\``);
        } else {
          parts.push(b.resource.uri);
        }
        break;
      case 'image':
        parts.push('[image omitted]');
        break;
      case 'audio':
        parts.push('[audio omitted]');
        break;
    }
  }
  return parts.join('\n\n');
}
