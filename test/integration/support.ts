import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HermesApi } from '../../src/extension';
import type { ChatSession } from '../../src/app/chatSession';
import { until } from '../support/wait';

export const extensionId = 'hermes-acp.hermes-acp';

export function extension(): vscode.Extension<HermesApi> {
  const ext = vscode.extensions.getExtension<HermesApi>(extensionId);
  if (ext === undefined) {
    throw new Error(`${extensionId} is not installed in this host`);
  }
  return ext;
}

export async function api(): Promise<HermesApi> {
  return extension().activate();
}

export function scriptedAgentPath(): string {
  return path.join(extension().extensionPath, 'dist', 'agents', 'scriptedAgent.js');
}

/** Points the extension at the scripted agent (machine-scoped settings, written to user settings). */
export async function useScriptedAgent(env: Record<string, string> = {}, id = 'scripted'): Promise<void> {
  const config = vscode.workspace.getConfiguration('hermes');
  await config.update(
    'agents',
    [{ id, name: 'Scripted', command: process.execPath, args: [scriptedAgentPath()], env: { ELECTRON_RUN_AS_NODE: '1', ...env } }],
    vscode.ConfigurationTarget.Global,
  );
  await config.update('defaultAgent', id, vscode.ConfigurationTarget.Global);
}

/** Polls `fn` until it returns a value other than undefined/false, or throws after `ms`. */
export function waitFor<T>(what: string, fn: () => T | undefined | false, ms = 15_000): Promise<T> {
  return until(what, fn, ms, 25);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function lastAssistantText(chat: ChatSession): string {
  const entries = chat.controller.state.entries;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'assistant') {
      return e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    }
  }
  return '';
}
