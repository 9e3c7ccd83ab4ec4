/**
 * How the host says things to the user. Every notice, status line and title the application layer
 * and the session layer make goes through one of these: the extension passes `vscode.l10n.t` (so
 * `scripts/l10n.mjs` collects the strings into `l10n/bundle.l10n.json`), the runner and the tests
 * {@link formatMessage}. Messages are English with `{0}`, `{1}`, … placeholders, as
 * `vscode.l10n.t` takes them.
 */
export type Localize = (message: string, ...args: (string | number | boolean)[]) => string;

/** Fills `{n}` placeholders and nothing else: the English text as written (the runner, tests). */
export const formatMessage: Localize = (message, ...args) =>
  message.replace(/\{(\d+)\}/g, (whole, index: string) => {
    const value = args[Number(index)];
    return value === undefined ? whole : String(value);
  });
