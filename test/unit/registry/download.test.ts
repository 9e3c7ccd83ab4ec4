import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkFetchUrl, downloadToFile, fetchBytes, isLoopbackHost } from '../../../src/registry/download';
import { RegistryError, type RegistryErrorKind } from '../../../src/registry/registryErrors';
import { LoopbackServer } from '../../support/loopbackServer';
import { sha256 } from '../../support/registryFixtures';

suite('registry downloads: URL policy, size, checksum, timeout, cancel', function () {
  this.timeout(30_000);
  let server: LoopbackServer;
  let dir: string;
  const held: (() => void)[] = [];

  setup(async () => {
    server = await LoopbackServer.start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-dl-'));
  });

  teardown(async () => {
    held.splice(0).forEach((release) => release());
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function refused(kind: RegistryErrorKind, run: () => Promise<unknown>): Promise<void> {
    await assert.rejects(run, (e) => {
      assert.ok(RegistryError.is(e, kind), `expected ${kind}, got ${String(e)}`);
      return true;
    });
  }

  test('https anywhere, http only on loopback, file: only for the index', () => {
    for (const ok of ['https://cdn.example.test/r.json', 'http://127.0.0.1:8080/a', 'http://localhost/a', 'http://[::1]:9/a', 'http://127.9.9.9/a']) {
      assert.doesNotThrow(() => checkFetchUrl(ok), ok);
    }
    for (const bad of ['http://cdn.example.test/a', 'http://10.0.0.1/a', 'http://127.0.0.1.evil.test/a', 'http://localhost.evil.test/a', 'ftp://x.test/a', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      assert.throws(() => checkFetchUrl(bad), (e) => RegistryError.is(e, 'urlRefused'), bad);
    }
    assert.doesNotThrow(() => checkFetchUrl('file:///tmp/registry.json', { allowFile: true }));
    assert.ok(isLoopbackHost('[::1]') && isLoopbackHost('LOCALHOST') && !isLoopbackHost('127.0.0.1.nip.io'));
  });

  test('a good download is hashed; progress is reported', async () => {
    const body = Buffer.alloc(300_000, 7);
    server.set('/a.bin', body);
    const seen: number[] = [];
    const file = path.join(dir, 'a');
    const r = await downloadToFile(server.url('/a.bin'), file, { maxBytes: 1e6, sha256: sha256(body), onProgress: (n) => seen.push(n) });
    assert.deepEqual(r, { bytes: body.length, sha256: sha256(body) });
    assert.deepEqual(fs.readFileSync(file), body);
    assert.equal(seen.at(-1), body.length);
  });

  test('oversized (announced or streamed), short and mismatching bodies are refused and removed', async () => {
    server.set('/big', Buffer.alloc(2048));
    await refused('tooLarge', () => downloadToFile(server.url('/big'), path.join(dir, 'big'), { maxBytes: 1024 }));
    server.set('/chunked', (_req, res) => {
      res.writeHead(200);
      res.write(Buffer.alloc(800));
      res.end(Buffer.alloc(800));
    });
    await refused('tooLarge', () => downloadToFile(server.url('/chunked'), path.join(dir, 'chunked'), { maxBytes: 1024 }));
    server.set('/short', (_req, res) => {
      res.writeHead(200, { 'content-length': '5000' });
      // The connection ends with 100 of the 5000 bytes announced.
      res.write(Buffer.alloc(100), () => res.socket?.destroy());
    });
    await assert.rejects(downloadToFile(server.url('/short'), path.join(dir, 'short'), { maxBytes: 1e6 }), (e) => RegistryError.is(e));
    server.set('/x', 'payload');
    await refused('checksum', () => downloadToFile(server.url('/x'), path.join(dir, 'x'), { maxBytes: 1e6, sha256: '0'.repeat(64) }));
    await refused('download', () => downloadToFile(server.url('/missing'), path.join(dir, 'm'), { maxBytes: 1e6 }));
    assert.deepEqual(fs.readdirSync(dir), [], 'no partial file left');
  });

  test('a server that never answers times out; one that stalls mid-body too', async () => {
    server.set('/silent', () => undefined);
    await refused('timeout', () => fetchBytes(server.url('/silent'), { maxBytes: 1e6, idleTimeoutMs: 300 }));
    server.set('/stall', (_req, res) => {
      res.writeHead(200, { 'content-length': '10000' });
      res.write(Buffer.alloc(100));
    });
    await refused('timeout', () => downloadToFile(server.url('/stall'), path.join(dir, 'stall'), { maxBytes: 1e6, idleTimeoutMs: 300 }));
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  test('cancel stops a download in flight and removes the partial file', async () => {
    server.set('/slow', (_req, res) => {
      res.writeHead(200, { 'content-length': '1000000' });
      const timer = setInterval(() => res.write(Buffer.alloc(1000)), 20);
      held.push(() => clearInterval(timer));
      res.on('close', () => clearInterval(timer));
    });
    const controller = new AbortController();
    const file = path.join(dir, 'slow');
    const run = downloadToFile(server.url('/slow'), file, { maxBytes: 2e6, signal: controller.signal, onProgress: (n) => n > 5000 && controller.abort() });
    await refused('cancelled', () => run);
    assert.equal(fs.existsSync(file), false);
  });

  test('redirects are followed hop by hop; a hop to plain http elsewhere is refused before it is contacted', async () => {
    server.set('/moved', (_req, res) => res.writeHead(302, { location: '/here' }).end());
    server.set('/here', 'arrived');
    assert.equal((await fetchBytes(server.url('/moved'), { maxBytes: 1e6 })).toString(), 'arrived');
    server.set('/redirect', (_req, res) => res.writeHead(302, { location: 'http://downloads.example.test/agent.tar.gz' }).end());
    await refused('urlRefused', () => fetchBytes(server.url('/redirect'), { maxBytes: 1e6, idleTimeoutMs: 2000 }));
    server.set('/loop', (_req, res) => res.writeHead(307, { location: '/loop' }).end());
    await refused('download', () => fetchBytes(server.url('/loop'), { maxBytes: 1e6 }));
  });
});
