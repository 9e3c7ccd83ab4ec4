/** Every command the extension contributes, in one place (package.json must list exactly these). */
export const CommandId = {
  newSession: 'hermes.newSession',
  newSessionInWorktree: 'hermes.newSessionInWorktree',
  worktreeSessions: 'hermes.worktreeSessions',
  openChatInEditor: 'hermes.openChatInEditor',
  cancelTurn: 'hermes.cancelTurn',
  showTraffic: 'hermes.showTraffic',
  checkInstallation: 'hermes.checkInstallation',
  setupProvider: 'hermes.setupProvider',
  setupAgent: 'hermes.setupAgent',
  restartAgent: 'hermes.restartAgent',
  selectAgent: 'hermes.selectAgent',
  copyTranscript: 'hermes.copyTranscript',
  openChat: 'hermes.openChat',
  forkSession: 'hermes.forkSession',
  continueWithAgent: 'hermes.continueWithAgent',
  revealChat: 'hermes.revealChat',
  showHistory: 'hermes.showHistory',
  attachSession: 'hermes.attachSession',
  sendSelection: 'hermes.sendSelection',
  allowProposal: 'hermes.allowProposal',
  rejectProposal: 'hermes.rejectProposal',
} as const;

/**
 * The Changes view's commands, registered by `ChangesFeature` (src/views/changesView.ts, through
 * `ChangesCommandId` in changesIds.ts). Listed here, before `CommandIdValue`, so the
 * manifest check sees them; they are not in `CommandId`, whose handlers live in commands.ts.
 */
export const ChangesCommandIds = {
  openChangeDiff: 'hermes.openChangeDiff',
  revertHunk: 'hermes.revertHunk',
  keepHunk: 'hermes.keepHunk',
  revertFileChanges: 'hermes.revertFileChanges',
  keepFileChanges: 'hermes.keepFileChanges',
  revertTurn: 'hermes.revertTurn',
  restoreTurn: 'hermes.restoreTurn',
  rewindTurn: 'hermes.rewindTurn',
  keepTurn: 'hermes.keepTurn',
  keepAllChanges: 'hermes.keepAllChanges',
  removeRevertNote: 'hermes.removeRevertNote',
  clearChanges: 'hermes.clearChanges',
} as const;

/** The ACP Registry's command, registered by `registerRegistryCommands` (src/views/registryCommands.ts). */
export const RegistryCommandIds = {
  addAgentFromRegistry: 'hermes.addAgentFromRegistry',
} as const;

export type CommandIdValue = (typeof CommandId)[keyof typeof CommandId];

export const ViewId = {
  container: 'hermes',
  chat: 'hermes.chatView',
  changes: 'hermes.changesView',
} as const;

export const ContextKey = {
  turnRunning: 'hermes.turnRunning',
  hasSession: 'hermes.hasSession',
  agentState: 'hermes.agentState',
  reviewPending: 'hermes.reviewPending',
} as const;
