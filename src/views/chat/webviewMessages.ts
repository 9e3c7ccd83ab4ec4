import { clientCommandNames, webviewMessageTypes, type AttachmentView, type WebviewMessage } from '../../protocol/webviewProtocol';
import { isObject, type JsonObject } from '../../util/json';

/** A message `parseWebviewMessage` refused, for the log: its start, and never a secret's value. */
export function describeMalformed(raw: unknown): string {
  if (isObject(raw) && raw.type === 'question/secret') {
    return '{"type":"question/secret", …redacted}';
  }
  try {
    return JSON.stringify(raw).slice(0, 200);
  } catch {
    return '(unserializable)';
  }
}

/**
 * Parses what a webview posted. `onDidReceiveMessage` hands us `any`; nothing from the webview is
 * trusted (it renders agent-controlled content), so every field is checked and unknown messages
 * are dropped.
 */
export function parseWebviewMessage(raw: unknown): WebviewMessage | undefined {
  if (!isObject(raw) || typeof raw.type !== 'string' || !(webviewMessageTypes as readonly string[]).includes(raw.type)) {
    return undefined;
  }
  const m = raw;
  const str = (k: string): string | undefined => (typeof m[k] === 'string' ? m[k] : undefined);
  const int = (k: string): number | undefined => (typeof m[k] === 'number' && Number.isInteger(m[k]) ? m[k] : undefined);
  switch (m.type) {
    case 'webview/ready': {
      const protocolVersion = int('protocolVersion');
      const clientId = str('clientId');
      return protocolVersion !== undefined && clientId !== undefined ? { type: 'webview/ready', protocolVersion, clientId } : undefined;
    }
    case 'session/resync': {
      const lastSeq = int('lastSeq');
      return lastSeq !== undefined ? { type: 'session/resync', lastSeq } : undefined;
    }
    case 'prompt/submit': {
      const text = str('text');
      if (text === undefined) {
        return undefined;
      }
      const attachments = Array.isArray(m.attachments) ? m.attachments.map(parseAttachment).filter((a): a is AttachmentView => a !== undefined) : [];
      return { type: 'prompt/submit', text, attachments };
    }
    case 'turn/cancel':
      return { type: 'turn/cancel' };
    case 'transcript/copy':
      return { type: 'transcript/copy' };
    case 'signIn/retry':
      return { type: 'signIn/retry' };
    case 'signIn/choose': {
      const methodId = str('methodId');
      return methodId !== undefined ? { type: 'signIn/choose', methodId } : undefined;
    }
    case 'permission/choose': {
      const requestId = str('requestId');
      const optionId = str('optionId');
      const rememberPrefix = int('rememberPrefix');
      if (requestId === undefined || optionId === undefined || (rememberPrefix !== undefined && rememberPrefix < 1)) {
        return undefined;
      }
      return { type: 'permission/choose', requestId, optionId, ...(rememberPrefix !== undefined ? { rememberPrefix } : {}) };
    }
    case 'location/open': {
      const path = str('path');
      const line = int('line');
      return path !== undefined ? { type: 'location/open', path, ...(line !== undefined ? { line } : {}) } : undefined;
    }
    case 'diff/open':
    case 'output/open': {
      const entryId = str('entryId');
      const contentIndex = int('contentIndex');
      return entryId !== undefined && contentIndex !== undefined ? { type: m.type, entryId, contentIndex } : undefined;
    }
    case 'notice/action': {
      const action = str('action');
      const known = ['showTraffic', 'restartAgent', 'setupProvider', 'newSession', 'checkInstallation', 'useDemoAgent', 'openSettings', 'openRemoteSettings', 'setupAgent', 'reconnectAgent', 'openHandoffSource'] as const;
      const match = known.find((k) => k === action);
      return match !== undefined ? { type: 'notice/action', action: match } : undefined;
    }
    case 'mode/set': {
      const modeId = str('modeId');
      return modeId !== undefined ? { type: 'mode/set', modeId } : undefined;
    }
    case 'model/set': {
      const modelId = str('modelId');
      return modelId !== undefined ? { type: 'model/set', modelId } : undefined;
    }
    case 'config/set': {
      const configId = str('configId');
      const value = m.value;
      return configId !== undefined && (typeof value === 'string' || typeof value === 'boolean') ? { type: 'config/set', configId, value } : undefined;
    }
    case 'composer/removeNote': {
      const key = str('key');
      return key !== undefined ? { type: 'composer/removeNote', key } : undefined;
    }
    case 'turn/restore':
    case 'turn/rewind':
    case 'turn/retry': {
      const turnId = int('turnId');
      return turnId !== undefined && turnId > 0 ? { type: m.type, turnId } : undefined;
    }
    case 'fork/fromHere': {
      const entryId = str('entryId');
      return entryId !== undefined ? { type: 'fork/fromHere', entryId } : undefined;
    }
    case 'question/answer': {
      const requestId = str('requestId');
      const answers = isObject(m.answers) ? m.answers : undefined;
      if (requestId === undefined || answers === undefined || !Object.values(answers).every((a) => a === null || typeof a === 'string')) {
        return undefined;
      }
      return { type: 'question/answer', requestId, answers: answers as Record<string, string | null> };
    }
    case 'question/lock': {
      const requestId = str('requestId');
      const questionId = str('questionId');
      const answer = m.answer;
      return requestId !== undefined && questionId !== undefined && (answer === null || typeof answer === 'string') ? { type: 'question/lock', requestId, questionId, answer } : undefined;
    }
    case 'question/secret': {
      const requestId = str('requestId');
      const value = str('value');
      return requestId !== undefined && value !== undefined ? { type: 'question/secret', requestId, value } : undefined;
    }
    case 'question/cancel': {
      const requestId = str('requestId');
      return requestId !== undefined ? { type: 'question/cancel', requestId } : undefined;
    }
    case 'message/rewrite': {
      const entryId = str('entryId');
      const text = str('text');
      const confirmedTurns = int('confirmedTurns');
      return entryId !== undefined && text !== undefined && confirmedTurns !== undefined && confirmedTurns >= 0 ? { type: 'message/rewrite', entryId, text, confirmedTurns } : undefined;
    }
    case 'clientCommand/run': {
      const name = clientCommandNames.find((n) => n === m.name);
      return name !== undefined ? { type: 'clientCommand/run', name } : undefined;
    }
    case 'suggestion/choose': {
      const entryId = str('entryId');
      const value = str('value');
      return entryId !== undefined && value !== undefined ? { type: 'suggestion/choose', entryId, value } : undefined;
    }
    case 'request/call': {
      const id = int('id');
      const call = m.call;
      if (id === undefined || !isObject(call) || !isObject(call.params)) {
        return undefined;
      }
      const params = call.params;
      const index = (name: string): number | undefined => {
        const v = params[name];
        return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
      };
      switch (call.method) {
        case 'mentions/search':
          return typeof params.query === 'string' ? { type: 'request/call', id, call: { method: 'mentions/search', params: { query: params.query } } } : undefined;
        case 'transcript/find':
          return typeof params.query === 'string' ? { type: 'request/call', id, call: { method: 'transcript/find', params: { query: params.query } } } : undefined;
        case 'entries/get': {
          const from = index('from');
          const to = index('to');
          return from !== undefined && to !== undefined ? { type: 'request/call', id, call: { method: 'entries/get', params: { from, to } } } : undefined;
        }
        default:
          return undefined;
      }
    }
    default:
      return undefined;
  }
}

function parseAttachment(raw: unknown): AttachmentView | undefined {
  if (!isObject(raw) || typeof raw.path !== 'string' || typeof raw.label !== 'string') {
    return undefined;
  }
  const a: JsonObject = raw;
  const image = isObject(a.image) && typeof a.image.mimeType === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(a.image.mimeType) && typeof a.image.data === 'string'
    ? { mimeType: a.image.mimeType, data: a.image.data }
    : undefined;
  return {
    path: raw.path,
    label: raw.label,
    ...(typeof a.startLine === 'number' ? { startLine: a.startLine } : {}),
    ...(typeof a.endLine === 'number' ? { endLine: a.endLine } : {}),
    ...(image !== undefined ? { image } : {}),
  };
}
