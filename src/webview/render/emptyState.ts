import { el, icon } from '../dom';
import { t } from '../strings';
import type { RenderEnv } from './env';

/** What a transcript without entries says: connecting, or what to ask (and for the Demo agent, how to reach the real thing). */
export function emptyState(initial: boolean, header: ReturnType<RenderEnv['header']>): HTMLElement[] {
  return [
    icon('hubot', 'empty-icon'),
    el('p', {
      text: initial || header === undefined ? t('Connecting…') : t('Ask {0} anything. Type / for commands.', header.agentName),
    }),
    // The Demo's replies are scripted: the host's hint says how to reach the real thing.
    ...(header?.emptyHint !== undefined ? [el('p', { class: 'empty-hint', text: header.emptyHint })] : []),
  ];
}
