import type { SessionHeaderView } from '../../protocol/sessionView';
import type { Actions } from '../actions';
import type { Clock } from '../clock';
import type { MarkdownScheduler } from '../markdown';
import { t } from '../strings';
import type { UiState } from '../uiState';

/** Runs callbacks once a second while any are registered (countdowns, elapsed times). */
export interface Ticker {
  add(callback: () => void): void;
  remove(callback: () => void): void;
}

/** What entry components need from the app. */
export interface RenderEnv {
  readonly actions: Actions;
  readonly ui: UiState;
  readonly clock: Clock;
  readonly scheduler: MarkdownScheduler;
  readonly ticker: Ticker;
  header(): SessionHeaderView | undefined;
  announce(message: string): void;
  /** User messages from entry `id` to the end of the transcript (what "Edit and resend" from it cuts). */
  userTurnsFrom(id: string): number;
  /** A permission prompt that waited for the cards chunk is shown now. */
  permissionShown?(): void;
}

export function agentName(env: RenderEnv): string {
  return env.header()?.agentName ?? t('Agent');
}

export function isTurnRunning(env: RenderEnv): boolean {
  const phase = env.header()?.phase;
  return phase === 'running' || phase === 'cancelling';
}
