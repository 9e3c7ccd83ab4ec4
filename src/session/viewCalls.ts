import type { EntriesResult, FindResult, WebviewCall } from '../protocol/webviewProtocol';
import type { SessionState } from './sessionState';
import type { ViewContext, ViewProjector } from './viewProjection';
import { findInViews } from './viewSearch';
import { rangeLimits } from './viewWindow';

/**
 * The transcript's own requests (`entries/get`, `transcript/find`), answered from `state` as the
 * channel last posted it (`seq`): the webview applies the answer only at that seq, after the
 * patches before it.
 */
export function answerViewCall(call: Exclude<WebviewCall, { method: 'mentions/search' }>, state: SessionState, projector: ViewProjector, ctx: ViewContext, seq: number): EntriesResult | FindResult {
  if (call.method === 'entries/get') {
    const { from, views } = projector.range(state, ctx, call.params.from, call.params.to, rangeLimits);
    return { seq, from, entries: views };
  }
  return findInViews(
    state.entries.length,
    (i) => {
      const e = state.entries[i];
      return e === undefined ? undefined : projector.entry(e, ctx);
    },
    call.params.query,
    seq,
  );
}
