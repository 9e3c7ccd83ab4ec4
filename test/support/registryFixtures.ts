import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { ZipFile } from 'yazl';
import { scriptedAgentPath } from './paths';

/** One archive member. `name` is written as given — including names no tool would write. */
export interface Member {
  readonly name: string;
  readonly content?: string | Buffer;
  readonly mode?: number;
  readonly type?: 'file' | 'dir' | 'symlink' | 'fifo';
  /** Symlink target. */
  readonly link?: string;
}

const block = 512;

/** A gzip-compressed tar built header by header (node-tar's Header), so hostile names survive. */
export function tarGz(members: readonly Member[]): Buffer {
  return gzipSync(tar(members));
}

export function tar(members: readonly Member[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    const body = m.type === undefined || m.type === 'file' ? Buffer.from(m.content ?? '') : Buffer.alloc(0);
    const type = m.type === 'dir' ? 'Directory' : m.type === 'symlink' ? 'SymbolicLink' : m.type === 'fifo' ? 'FIFO' : 'File';
    const header = Buffer.alloc(block);
    new Header({ path: m.name, mode: m.mode ?? (m.type === 'dir' ? 0o755 : 0o644), size: body.length, type, mtime: new Date(0), uid: 0, gid: 0, ...(m.link !== undefined ? { linkpath: m.link } : {}) }).encode(header, 0);
    parts.push(header, body, Buffer.alloc((block - (body.length % block)) % block));
  }
  parts.push(Buffer.alloc(block * 2));
  return Buffer.concat(parts);
}

/**
 * A zip built with yazl. yazl refuses unsafe names, so a name containing `..` is written with a
 * same-length placeholder and patched in the bytes afterwards (zip names are not checksummed).
 */
export async function zip(members: readonly Member[]): Promise<Buffer> {
  const z = new ZipFile();
  const patches: [Buffer, Buffer][] = [];
  for (const m of members) {
    let name = m.name;
    if (/(^|\/)\.\.(\/|$)|^\//.test(name)) {
      const placeholder = name.replace(/\./g, 'Q').replace(/^\//, 'Q');
      patches.push([Buffer.from(placeholder), Buffer.from(name)]);
      name = placeholder;
    }
    if (m.type === 'dir') {
      z.addEmptyDirectory(name, { mode: 0o40755 });
    } else if (m.type === 'symlink') {
      z.addBuffer(Buffer.from(m.link ?? ''), name, { mode: 0o120777 });
    } else {
      z.addBuffer(Buffer.from(m.content ?? ''), name, { mode: 0o100000 | (m.mode ?? 0o644) });
    }
  }
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) {
    chunks.push(c as Buffer);
  }
  const out = Buffer.concat(chunks);
  for (const [from, to] of patches) {
    for (let at = out.indexOf(from); at >= 0; at = out.indexOf(from, at + 1)) {
      to.copy(out, at);
    }
  }
  return out;
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** A POSIX launcher that runs the bundled scripted agent (shipped next to it) with this Node. */
export function launcher(agentRelative: string, node = process.execPath): string {
  return `#!/bin/sh\nexec "${node}" "$(dirname "$0")/${agentRelative}" "$@"\n`;
}

/** A single-file "raw binary" release: a launcher for the scripted agent at its absolute path. */
export function rawLauncher(node = process.execPath): string {
  return `#!/bin/sh\nexec "${node}" "${scriptedAgentPath}" "$@"\n`;
}

/** A launcher that fails the way a broken release does: a message on stderr, exit 1, no ACP. */
export function brokenLauncher(message: string): string {
  return `#!/bin/sh\necho "${message}" >&2\nexit 1\n`;
}

/**
 * The members of a scripted-agent release: `scripted/bin/scripted-agent` (the launcher, mode 0644:
 * the installer must set the run bit) and `scripted/lib/scriptedAgent.js` (the bundled agent).
 */
export function scriptedRelease(o: { broken?: string; node?: string } = {}): Member[] {
  return [
    { name: 'scripted/', type: 'dir' },
    { name: 'scripted/bin/scripted-agent', content: o.broken !== undefined ? brokenLauncher(o.broken) : launcher('../lib/scriptedAgent.js', o.node), mode: 0o644 },
    { name: 'scripted/lib/scriptedAgent.js', content: readFileSync(scriptedAgentPath) },
  ];
}

export const scriptedCmd = './scripted/bin/scripted-agent';

/** An npm package tarball (`npm pack` layout) whose bin runs the scripted agent: for `npx --yes <tarball>`. */
export function npmPackageTarball(name: string, version: string): Buffer {
  const agent = readFileSync(scriptedAgentPath, 'utf8');
  return tarGz([
    { name: 'package/package.json', content: JSON.stringify({ name, version, bin: { [name]: 'bin/agent.js' } }) },
    { name: 'package/bin/agent.js', content: `#!/usr/bin/env node\n${agent}`, mode: 0o755 },
  ]);
}

/** A registry entry with a binary target for `platform`. */
export function binaryEntry(o: { id: string; version: string; archive: string; platform: string; sha256?: string; cmd?: string; name?: string; icon?: string; env?: Record<string, string> }): Record<string, unknown> {
  return {
    id: o.id,
    name: o.name ?? `Scripted ${o.id}`,
    version: o.version,
    description: 'The scripted ACP test agent, packaged as a release archive.',
    authors: ['Hermes ACP tests'],
    license: 'MIT',
    ...(o.icon !== undefined ? { icon: o.icon } : {}),
    distribution: { binary: { [o.platform]: { archive: o.archive, cmd: o.cmd ?? scriptedCmd, ...(o.sha256 !== undefined ? { sha256: o.sha256 } : {}), ...(o.env !== undefined ? { env: o.env } : {}) } } },
  };
}
