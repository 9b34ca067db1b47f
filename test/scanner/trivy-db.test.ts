// One vulnerability DB download per cluster, measured: the DB is served by a loopback OCI
// registry (the layout of ghcr.io/aquasecurity/trivy-db:2, as an air-gapped mirror would serve
// it; `dbRepo` points there), and every byte is counted. As Eraser runs Trivy, each node's scanner
// downloads the DB into its own cache; with `server:` one Trivy server (next to the daemon)
// downloads it once and the nodes' scanners ask it, through a counting proxy. Real Trivy v0.74.0,
// real containerd, inv node-scan on this host as two "nodes".
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { CriClient } from '../../src/core/cri/index.js';
import { connect, criAddress, criAvailable, waitFor, waitForImages } from '../support/cri.js';
import { addImages, type BuiltImage } from '../support/oci.js';
import {
  CLEAN_BASH,
  VULNERABLE_BASH,
  debianImage,
  runNodeScan,
  testDbCache,
  trivyBinary,
  type ContractImage,
} from '../support/scan.js';
import {
  startCountingProxy,
  startDbRegistry,
  type DbRegistry,
} from '../support/servers/trivy-db-registry.js';

const NODES = 2;

describe('scan mode: one vulnerability DB download per cluster', function () {
  this.timeout(600_000);
  let cri: CriClient;
  let tmp: string;
  let trivy: string;
  let registry: DbRegistry;
  let images: BuiltImage[];
  let candidates: ContractImage[];
  const fresh = (name: string) => fs.mkdtempSync(path.join(tmp, `${name}-`));

  before(async function () {
    if (!criAvailable()) this.skip();
    cri = await connect();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scan-db-'));
    trivy = await trivyBinary();
    registry = await startDbRegistry(await testDbCache(fresh('source')));
    images = await addImages([
      debianImage(['docker.io/inv-test/scan-db-vulnerable:1'], VULNERABLE_BASH, 'db-v'),
      debianImage(['docker.io/inv-test/scan-db-clean:1'], CLEAN_BASH, 'db-c'),
    ]);
    await waitForImages(
      cri,
      images.map((i) => i.id),
    );
    candidates = images.map((b) => ({
      image_id: b.id,
      names: b.refs.filter((r) => !r.includes('@')),
      digests: b.refs.filter((r) => r.includes('@')),
    }));
  });

  after(async () => {
    for (const b of images ?? []) await cri?.removeImage(b.id).catch(() => undefined);
    await registry?.close();
    cri?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const figures: string[] = [];
  after(() => {
    for (const f of figures) process.stdout.write(`      ${f}\n`);
  });

  it("as Eraser runs Trivy: every node's scanner downloads the DB from dbRepo", async () => {
    const before = { n: registry.downloads(), bytes: registry.bytesSent() };
    for (let node = 0; node < NODES; node++) {
      // Each node's scanner starts with an empty cache, as an Eraser scanner container does.
      const { answer } = await runNodeScan({
        dir: tmp,
        trivy,
        socket: criAddress(),
        settings: { cacheDir: fresh('node-cache'), dbRepo: registry.repository, timeout: { total: '5m' } },
        candidates,
      });
      assert.deepEqual(
        answer.map((a) => a.image_id),
        [images[0]!.id],
      );
    }
    const n = registry.downloads() - before.n;
    const perNode = (registry.bytesSent() - before.bytes) / NODES;
    assert.equal(n, NODES, 'one download per node');
    figures.push(
      `per-node DB download: ${perNode} B (test DB layer ${registry.layerBytes} B); a run downloads ${NODES}× at ${NODES} nodes, 100× at 100`,
    );
  });

  it('with a Trivy server: one download for the cluster, none on the nodes, the same answer', async () => {
    const before = { n: registry.downloads(), bytes: registry.bytesSent() };
    const port = await freePort();
    const server = spawn(
      trivy,
      [
        'server',
        '--listen',
        `127.0.0.1:${port}`,
        '--cache-dir',
        fresh('server-cache'),
        '--db-repository',
        registry.repository,
        '--quiet',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let serverLog = '';
    server.stderr?.on('data', (b: Buffer) => (serverLog = (serverLog + b.toString()).slice(-4000)));
    const proxy = await startCountingProxy(port);
    try {
      await waitFor(
        'the Trivy server to answer /healthz',
        async () => {
          if (server.exitCode !== null)
            throw new Error(`trivy server exited ${server.exitCode}: ${serverLog}`);
          return healthy(port);
        },
        120_000,
        250,
      );
      const serverDownload = registry.bytesSent() - before.bytes;
      const perNode: number[] = [];
      for (let node = 0; node < NODES; node++) {
        proxy.reset();
        const { answer } = await runNodeScan({
          dir: tmp,
          trivy,
          socket: criAddress(),
          settings: { cacheDir: fresh('node-cache'), server: proxy.url, timeout: { total: '5m' } },
          candidates,
        });
        assert.deepEqual(
          answer.map((a) => [a.image_id, a.inv?.cveCount, a.inv?.highestSeverity]),
          [[images[0]!.id, 3, 'CRITICAL']],
          serverLog,
        );
        perNode.push(proxy.up() + proxy.down());
      }
      assert.equal(registry.downloads() - before.n, 1, 'the server downloaded the DB once; no node did');
      const avg = Math.round(perNode.reduce((a, b) => a + b, 0) / perNode.length);
      figures.push(
        `with a server: one DB download of ${serverDownload} B per cluster; per node ${avg} B of client/server traffic for ${candidates.length} images (${perNode.join(', ')})`,
      );
    } finally {
      await proxy.close();
      await stop(server);
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    child.on('close', () => r());
    child.kill('SIGKILL');
  });
}
