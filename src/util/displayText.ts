/**
 * Agent-controlled text (tool titles, file paths, session titles, error messages) shown by the
 * extension host in VS Code's own UI: notifications, tree items, tab titles. The webview has its own
 * copy of these rules (src/webview/text.ts); the two may not import each other.
 */

// eslint-disable-next-line no-control-regex
const invisible = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;

function codePoint(c: string): string {
  return `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/**
 * A label on one line: bidi controls, zero-width and C0/C1 control characters (Trojan Source) become
 * a visible `⟨U+202E⟩`; line breaks and tabs become spaces; at most `max` characters.
 */
export function displayLabel(value: string, max = 200): string {
  const flat = value.replace(/[\r\n\t]+/g, ' ').replace(invisible, codePoint);
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * A label for a VS Code notification message. Notifications turn `[text](command:…)`,
 * `[text](https://…)` and `[text](file:…)` into links (VS Code's `parseLinkedText`), so agent text
 * could offer a one-click command. `](` is broken apart (`] (`): the text reads the same and no link
 * syntax survives.
 */
export function notificationLabel(value: string, max = 200): string {
  return displayLabel(value, max).replace(/\]\s*\(/g, '] (');
}
