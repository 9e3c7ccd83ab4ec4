import type { SessionHeaderView } from '../../protocol/sessionView';
import { el, replaceChildren, setHidden } from '../dom';
import { t } from '../strings';

/** The MCP servers the session was set up with (name, transport) and those left out, with why. */
export class McpSummary {
  readonly element = el('details', { class: 'mcp-summary' });
  private key = '';

  constructor() {
    setHidden(this.element, true);
  }

  update(header: SessionHeaderView): void {
    const mcp = header.mcp;
    const key = mcp === undefined ? '' : JSON.stringify(mcp);
    if (key === this.key) {
      return;
    }
    this.key = key;
    setHidden(this.element, mcp === undefined);
    if (mcp === undefined) {
      replaceChildren(this.element, []);
      return;
    }
    const open = this.element.open;
    replaceChildren(this.element, [
      el('summary', { text: mcp.skipped.length > 0 ? t('MCP servers: {0} passed, {1} left out', mcp.passed.length, mcp.skipped.length) : t('MCP servers: {0}', mcp.passed.length) }),
      el('ul', { class: 'mcp-servers', attrs: { 'aria-label': t('MCP servers passed to the agent') } }, mcp.passed.map((s) => el('li', { text: `${s.name} (${s.transport})` }))),
      mcp.skipped.length > 0
        ? el('ul', { class: 'mcp-skipped', attrs: { 'aria-label': t('MCP servers left out') } }, mcp.skipped.map((s) => el('li', { text: t('{0}: {1}', s.name, s.reason) })))
        : false,
    ]);
    this.element.open = open;
  }
}
