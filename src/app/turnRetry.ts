import type { TurnResult } from '../session/sessionController';
import type { ChatSession } from './chatSession';

/**
 * The footer's Retry: the prompt of a failed turn, sent again as it was (its blocks; context notes
 * taken then are not repeated). Nothing happens while another turn runs.
 */
export function retryTurn(chat: ChatSession, turnId: number): Promise<TurnResult | undefined> {
  const prompt = chat.controller.state.entries.find((e) => e.kind === 'user' && e.turnId === turnId && e.origin === 'local');
  return prompt?.kind === 'user' ? chat.submit(prompt.blocks) : Promise.resolve(undefined);
}
