/**
 * Appends every item of `items` to `target`. `target.push(...items)` passes each item as an argument
 * and throws "Maximum call stack size exceeded" past roughly 100,000 items (a 10 MB diff has
 * 200,000 lines).
 */
export function pushAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) {
    target.push(item);
  }
}
