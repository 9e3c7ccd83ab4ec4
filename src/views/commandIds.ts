/** Every command the extension contributes, in one place (package.json must list exactly these). */
export const CommandId = {
  newSession: 'hermes.newSession',
  openChatInEditor: 'hermes.openChatInEditor',
  cancelTurn: 'hermes.cancelTurn',
  showTraffic: 'hermes.showTraffic',
  checkInstallation: 'hermes.checkInstallation',
  setupProvider: 'hermes.setupProvider',
  restartAgent: 'hermes.restartAgent',
  selectAgent: 'hermes.selectAgent',
  copyTranscript: 'hermes.copyTranscript',
  openChat: 'hermes.openChat',
  forkSession: 'hermes.forkSession',
  showHistory: 'hermes.showHistory',
  sendSelection: 'hermes.sendSelection',
  allowProposal: 'hermes.allowProposal',
  rejectProposal: 'hermes.rejectProposal',
} as const;

export type CommandIdValue = (typeof CommandId)[keyof typeof CommandId];

export const ViewId = {
  container: 'hermes',
  chat: 'hermes.chatView',
} as const;

export const ContextKey = {
  turnRunning: 'hermes.turnRunning',
  hasSession: 'hermes.hasSession',
  agentState: 'hermes.agentState',
  reviewPending: 'hermes.reviewPending',
} as const;
