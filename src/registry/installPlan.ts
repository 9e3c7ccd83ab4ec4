import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { archiveKind } from './archive';
import { checkFetchUrl } from './download';
import { cmdPath, foldsCase, versionDir, type RegistryLayout } from './installPaths';
import { binaryLaunch, npmSpec, npxLaunch, uvxLaunch, type DistributionChoice, type LaunchCommand } from './launch';
import type { RegistryAgent } from './registryFormat';
import { RegistryError } from './registryErrors';

/**
 * Exactly what an install would fetch and run, worked out before anyone is asked: the consent
 * dialog shows it, the consent is remembered for it (not for an id and version), and what would be
 * refused later is refused now.
 */
export interface InstallPlan {
  readonly id: string;
  readonly version: string;
  readonly kind: DistributionChoice['kind'];
  /** A binary's archive: the URL as it will be fetched (normalized) and the registry's SHA-256. */
  readonly archive?: { readonly url: string; readonly sha256?: string };
  /** An npx/uvx package spec, exactly as the runner will get it. */
  readonly package?: string;
  /** The command that will run: for a binary, the absolute path inside `installDir`. */
  readonly command: LaunchCommand;
  readonly installDir?: string;
  /** Identifies this plan: another archive, checksum, package, command or environment is another key. */
  readonly consentKey: string;
}

/** A path segment `..` or `.`, also percent-encoded or with backslashes: the URL does not say where it goes. */
function dotSegment(rawPath: string): boolean {
  return rawPath.split(/[/\\]/).some((s) => /^(?:\.|%2e){1,2}$/i.test(s));
}

/**
 * The archive URL as it will be fetched. Refused: anything but https (or http on this machine), and
 * a path with `.`/`..` segments — the URL would be fetched from somewhere else than it reads
 * (`…/v0.9.2/../../../../evil/a.tar.gz` is `…/evil/a.tar.gz`).
 */
export function archiveUrl(raw: string): string {
  const url = checkFetchUrl(raw);
  const rawPath = raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/\\]*/i, '').split(/[?#]/)[0] ?? '';
  if (dotSegment(rawPath)) {
    throw new RegistryError('urlRefused', `The archive URL ${raw} was refused: its path has "." or ".." segments, so it would download ${url.href}.`);
  }
  return url.href;
}

function key(fields: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/**
 * The plan for installing `agent` with `choice` under `layout`, or a {@link RegistryError} saying what
 * would be refused: the archive URL (plain http off this machine, `..`), an installer format, a
 * `cmd` outside the install folder. Nothing is fetched or written.
 */
export function planInstall(agent: RegistryAgent, choice: DistributionChoice, layout: RegistryLayout, platform: NodeJS.Platform = process.platform): InstallPlan {
  const base = { id: agent.id, version: agent.version, kind: choice.kind };
  if (choice.kind === 'binary') {
    const t = choice.target;
    const url = archiveUrl(t.archive);
    archiveKind(url);
    const dir = versionDir(layout, agent.id, agent.version);
    const command = binaryLaunch(cmdPath(dir, t.cmd, path, foldsCase(platform)), t);
    const archive = t.sha256 !== undefined ? { url, sha256: t.sha256 } : { url };
    return { ...base, archive, command, installDir: dir, consentKey: key({ ...base, url, sha256: t.sha256 ?? null, cmd: t.cmd, args: command.args, env: command.env }) };
  }
  const command = choice.kind === 'npx' ? npxLaunch(choice.dist) : uvxLaunch(choice.dist);
  const spec = choice.kind === 'npx' ? npmSpec(choice.dist.package) : choice.dist.package;
  return { ...base, package: spec, command, consentKey: key({ ...base, package: spec, command: command.command, args: command.args, env: command.env }) };
}
