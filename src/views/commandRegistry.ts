import type * as vscode from 'vscode';

/** A command's handler, as `vscode.commands.registerCommand` takes it. */
export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * Registers a command handler. The extension's (src/extension.ts) routes the commands package.json
 * contributes to the trampolines it registered at activation, and registers any other directly.
 */
export type RegisterCommand = (id: string, handler: CommandHandler) => vscode.Disposable;
