import * as vscode from 'vscode';
import type { McpInputPrompt } from '../../mcp/inputs';
import type { McpInputDefinition } from '../../mcp/mcpConfig';

/** `${input:…}` of an MCP configuration, asked in VS Code: an input box (masked for `password`), or a pick. */
export const inputBoxPrompt: McpInputPrompt = {
  ask: async (input: McpInputDefinition, origin: string) => {
    if (input.type === 'pickString' && input.options !== undefined) {
      return vscode.window.showQuickPick([...input.options], { title: input.description, placeHolder: origin, ignoreFocusOut: true });
    }
    return vscode.window.showInputBox({
      title: vscode.l10n.t('MCP server input “{0}”', input.id),
      prompt: input.description !== '' ? input.description : vscode.l10n.t('A value for ${input:{0}} in {1}', input.id, origin),
      password: input.password,
      ignoreFocusOut: true,
      ...(input.default !== undefined ? { value: input.default } : {}),
    });
  },
};
