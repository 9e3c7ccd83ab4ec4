import type { Slot } from '../viewStore';
import type { PermissionPrompt } from './permission';

/** What the shortcuts look for in a row's component: a tool card's pending prompt (ToolCallView). */
interface PromptHolder {
  readonly element: Element;
  readonly pendingPrompt?: PermissionPrompt | undefined;
}

/**
 * The pending permission prompt that Alt+Y / Alt+N answer among the rows shown: the focused card's,
 * else the first. In the cards chunk, with the prompts themselves (none is pending before it ran).
 */
export function pendingPrompt(mounted: readonly Slot[], focused: Element | null): PermissionPrompt | undefined {
  let first: PermissionPrompt | undefined;
  for (const slot of mounted) {
    const c: PromptHolder | undefined = slot.component;
    const prompt = c?.pendingPrompt;
    if (c !== undefined && prompt !== undefined) {
      if (focused !== null && c.element.contains(focused)) {
        return prompt;
      }
      first ??= prompt;
    }
  }
  return first;
}
