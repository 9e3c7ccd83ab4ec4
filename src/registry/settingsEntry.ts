import { isObject, type JsonObject } from '../util/json';
import type { InstalledAgent } from './installer';

/**
 * The `hermes.agents` entry for an installed agent: an ordinary entry (the user may edit it like
 * any other) marked `source: "registry"` with the pinned `version`. On update the user's name and
 * environment values are kept; command, args and version follow the registry.
 */
export function settingsEntry(installed: InstalledAgent, previous?: JsonObject): JsonObject {
  const userEnv = isObject(previous?.env) ? Object.fromEntries(Object.entries(previous.env).filter(([, v]) => typeof v === 'string')) : {};
  return {
    id: installed.id,
    name: typeof previous?.name === 'string' && previous.name !== '' ? previous.name : installed.name,
    command: installed.command,
    args: [...installed.args],
    env: { ...installed.env, ...userEnv },
    source: 'registry',
    version: installed.version,
  };
}

/** The raw `hermes.agents` value as a list (a non-list counts as empty). */
export function agentEntries(raw: unknown): unknown[] {
  return Array.isArray(raw) ? [...(raw as unknown[])] : [];
}

export function findEntry(raw: unknown, id: string): JsonObject | undefined {
  return agentEntries(raw).find((e): e is JsonObject => isObject(e) && e.id === id);
}

/** `raw` with the entry of the same id replaced in place, or appended. */
export function upsertEntry(raw: unknown, entry: JsonObject): unknown[] {
  const list = agentEntries(raw);
  const at = list.findIndex((e) => isObject(e) && e.id === entry.id);
  if (at >= 0) {
    list[at] = entry;
  } else {
    list.push(entry);
  }
  return list;
}

export function removeEntry(raw: unknown, id: string): unknown[] {
  return agentEntries(raw).filter((e) => !(isObject(e) && e.id === id));
}
