import type { BlockView } from '../../protocol/sessionView';
import { el, icon } from '../dom';
import { classifyHref, isInlineImage } from '../links';
import { renderMarkdown } from '../markdown';
import { t } from '../strings';
import { visibleLabel } from '../text';
import type { RenderEnv } from './env';

/** A content block (prompt, agent message or tool output): text, image, audio or resource. */
export function renderBlock(block: BlockView, env: RenderEnv): HTMLElement {
  switch (block.type) {
    case 'text':
      return renderMarkdown(block.text, env.scheduler);
    case 'image': {
      const src = block.data !== undefined ? `data:${block.mimeType};base64,${block.data}` : '';
      if (isInlineImage(src)) {
        return el('img', { class: 'thumb', attrs: { src, alt: t('Image ({0})', block.mimeType) } });
      }
      return resourceChip(block.uri ?? t('Image ({0})', block.mimeType), block.uri, env, 'file-media');
    }
    case 'audio':
      return el('span', { class: 'chip' }, [icon('unmute'), el('span', { text: t('Audio ({0})', block.mimeType) })]);
    case 'resource_link':
      return resourceChip(block.title ?? block.name, block.uri, env, 'file');
    case 'resource': {
      const chip = resourceChip(fileName(block.uri), block.uri, env, 'file-code');
      if (block.text === undefined) {
        return chip;
      }
      const details = el('details', { class: 'resource' }, [el('summary', {}, [chip])]);
      const text = block.text;
      details.addEventListener(
        'toggle',
        () => {
          if (details.open && details.childElementCount === 1) {
            details.appendChild(el('pre', { class: 'resource-text', text }));
          }
        },
      );
      return details;
    }
  }
}

/** A file or link as a chip: files open in the editor, web links stay links, anything else is text. */
export function resourceChip(label: string, uri: string | undefined, env: RenderEnv, iconName: string): HTMLElement {
  const shown = el('span', { class: 'chip-label', text: visibleLabel(label) });
  const target = uri !== undefined ? classifyHref(uri) : ({ kind: 'none' } as const);
  if (target.kind === 'file') {
    const b = el('button', { class: 'chip', attrs: { type: 'button', title: visibleLabel(target.path) } }, [icon(iconName), shown]);
    b.addEventListener('click', () => env.actions.openLocation(target.path, target.line));
    return b;
  }
  if (target.kind === 'web') {
    return el('a', { class: 'chip', attrs: { href: target.href, title: visibleLabel(target.href) } }, [icon('link-external'), shown]);
  }
  return el('span', { class: 'chip', attrs: { title: uri !== undefined ? visibleLabel(uri) : undefined } }, [icon(iconName), shown]);
}

function fileName(uri: string): string {
  const path = uri.replace(/[?#].*$/, '');
  const slash = path.lastIndexOf('/');
  return slash >= 0 && slash < path.length - 1 ? path.slice(slash + 1) : uri;
}
