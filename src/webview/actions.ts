import type { NoticeActionView } from '../protocol/sessionView';
import { PROTOCOL_VERSION, type AttachmentView, type WebviewMessage } from '../protocol/webviewProtocol';
import type { HostBridge } from './hostBridge';

/** Everything the UI can ask the host to do. UI code calls these; only this module posts. */
export interface Actions {
  ready(clientId: string): void;
  resync(lastSeq: number): void;
  submitPrompt(text: string, attachments?: readonly AttachmentView[]): void;
  cancelTurn(): void;
  choosePermission(requestId: string, optionId: string): void;
  openLocation(path: string, line?: number): void;
  openDiff(entryId: string, contentIndex: number): void;
  openOutput(entryId: string, contentIndex: number): void;
  noticeAction(action: NoticeActionView): void;
  setMode(modeId: string): void;
  setModel(modelId: string): void;
  setConfig(configId: string, value: string | boolean): void;
  forkFromHere(entryId: string): void;
}

export function createActions(bridge: Pick<HostBridge, 'post'>): Actions {
  const post = (message: WebviewMessage): void => bridge.post(message);
  return {
    ready: (clientId) => post({ type: 'webview/ready', protocolVersion: PROTOCOL_VERSION, clientId }),
    resync: (lastSeq) => post({ type: 'session/resync', lastSeq }),
    // Slash commands are sent as plain prompt text; attachments are the composer's context chips.
    submitPrompt: (text, attachments = []) => post({ type: 'prompt/submit', text, attachments }),
    cancelTurn: () => post({ type: 'turn/cancel' }),
    choosePermission: (requestId, optionId) => post({ type: 'permission/choose', requestId, optionId }),
    openLocation: (path, line) => post({ type: 'location/open', path, ...(line !== undefined ? { line } : {}) }),
    openDiff: (entryId, contentIndex) => post({ type: 'diff/open', entryId, contentIndex }),
    openOutput: (entryId, contentIndex) => post({ type: 'output/open', entryId, contentIndex }),
    noticeAction: (action) => post({ type: 'notice/action', action }),
    setMode: (modeId) => post({ type: 'mode/set', modeId }),
    setModel: (modelId) => post({ type: 'model/set', modelId }),
    setConfig: (configId, value) => post({ type: 'config/set', configId, value }),
    forkFromHere: (entryId) => post({ type: 'fork/fromHere', entryId }),
  };
}
