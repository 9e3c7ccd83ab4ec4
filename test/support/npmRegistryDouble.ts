import * as fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import * as path from 'node:path';
import { LoopbackServer } from './loopbackServer';
import { fixturesDir } from './paths';
import { npmPackageTarball } from './registryFixtures';

const recorded = path.join(fixturesDir, 'registry', 'npm');

/** The registry's path of a package document: npm asks for `/@scope%2fname`. */
export function packumentPath(name: string): string {
  return `/${name.replace('/', '%2f')}`;
}

/**
 * A loopback npm registry built from recordings of registry.npmjs.org (test/fixtures/registry/npm):
 * the package documents of `@google/gemini-cli` and `@zed-industries/claude-code-acp` as served
 * (trimmed to a few versions), and the registry's answer to an unknown package (404, empty body).
 * `publish` adds a package of the test's own (the scripted agent as an npm package) in the same
 * document layout as the recorded ones, tarball served here.
 */
export class NpmRegistryDouble {
  private constructor(readonly server: LoopbackServer) {}

  static async start(): Promise<NpmRegistryDouble> {
    const server = await LoopbackServer.start();
    const json = (file: string) => (_req: unknown, res: ServerResponse): void => {
      const body = fs.readFileSync(path.join(recorded, file));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
    };
    server.set(packumentPath('@google/gemini-cli'), json('gemini-cli.packument.json'));
    server.set(packumentPath('@zed-industries/claude-code-acp'), json('claude-code-acp.packument.json'));
    // registry.npmjs.org's answer to a package it does not have: 404, no body.
    server.setFallback((_req, res) => void res.writeHead(404, { 'content-length': '0' }).end());
    return new NpmRegistryDouble(server);
  }

  /** The registry URL (with the trailing slash npm's config uses). */
  get url(): string {
    return this.server.url('/');
  }

  /** npm's environment pointing at this registry, with a fresh cache folder. */
  env(cacheDir: string): Record<string, string> {
    return { npm_config_registry: this.url, npm_config_cache: cacheDir, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
  }

  /** Publishes `name@version` (a bin that runs the scripted agent), shaped like the recorded documents. */
  publish(name: string, version: string): void {
    const tarball = npmPackageTarball(name, version);
    const file = `/${name}/-/${name}-${version}.tgz`;
    this.server.set(file, tarball);
    const doc = {
      _id: name,
      name,
      'dist-tags': { latest: version },
      versions: { [version]: { name, version, bin: { [name]: 'bin/agent.js' }, _id: `${name}@${version}`, dist: { tarball: this.server.url(file) } } },
      time: { created: '2026-12-01T00:00:00.000Z', modified: '2026-12-01T00:00:00.000Z', [version]: '2026-12-01T00:00:00.000Z' },
    };
    this.server.set(packumentPath(name), (_req, res) => {
      const body = Buffer.from(JSON.stringify(doc));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
    });
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
