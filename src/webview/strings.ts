/**
 * Localizable strings. Every user-visible string goes through {@link t}: the English text is the
 * key (as in `vscode.l10n.t`), and `{0}`, `{1}`, … are replaced by the arguments. The host puts the
 * translated bundle into the page as
 * `<script type="application/json" id="hermes-l10n">{"English text": "Übersetzung"}</script>`;
 * without it (or for a missing key) the English text is shown.
 */

export const l10nElementId = 'hermes-l10n';

let bundle: ReadonlyMap<string, string> = new Map();

/** Reads the bundle from the page; malformed JSON or non-string values are ignored. */
export function loadStrings(document: Document): void {
  const node = document.getElementById(l10nElementId);
  const map = new Map<string, string>();
  if (node?.textContent) {
    try {
      const parsed: unknown = JSON.parse(node.textContent);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        for (const [key, value] of Object.entries(parsed)) {
          if (typeof value === 'string') {
            map.set(key, value);
          }
        }
      }
    } catch {
      // A broken bundle falls back to English rather than breaking the view.
    }
  }
  bundle = map;
}

export function t(message: string, ...args: readonly (string | number)[]): string {
  const template = bundle.get(message) ?? message;
  if (args.length === 0) {
    return template;
  }
  return template.replace(/\{(\d+)\}/g, (whole, index: string) => {
    const value = args[Number(index)];
    return value === undefined ? whole : String(value);
  });
}
