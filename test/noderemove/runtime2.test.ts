// What only containerd 2.x shows: a runtime that serves CRI runtime.v1 and nothing older, and a
// sandbox image that the runtime itself pins. On a containerd 2.x of its own (a '*' prune must
// not run on the containerd the other files share).
import * as grpc from '@grpc/grpc-js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectCri, type CriClient } from '../../src/core/cri/index.js';
import { services } from '../../src/core/cri/proto.js';
import { criAvailable, criEndpoint, useRuntime } from '../support/cri.js';
import { repoRoot } from '../support/paths.js';
import { runNodeRemove } from './helpers.js';

interface CriScript {
  up(dir: string, opts?: { runtime?: string }): Promise<{ endpoint: string; address: string }>;
  down(dir: string): Promise<void>;
}

/** A raw Version call in `api` ("v1" or "v1alpha2"): resolves the gRPC status code (0 = OK). */
function versionCode(endpoint: string, api: 'v1' | 'v1alpha2'): Promise<number> {
  const Client = services(api).RuntimeService;
  const client = new Client(endpoint, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.waitForReady(Date.now() + 5000, () => {
      (
        client as unknown as Record<
          string,
          (req: object, md: grpc.Metadata, opts: object, cb: (e: grpc.ServiceError | null) => void) => void
        >
      ).Version!({}, new grpc.Metadata(), { deadline: Date.now() + 5000 }, (err) => {
        client.close();
        resolve(err ? err.code : 0);
      });
    });
  });
}

describe('containerd 2.x: runtime.v1 only, and a pinned sandbox image', function () {
  this.timeout(60_000);
  let script: CriScript;
  let dir = '';
  let endpoint = '';
  let cri: CriClient;

  before(async function () {
    if (!criAvailable()) this.skip();
    script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-ctrd2-'));
    endpoint = (await script.up(path.join(dir, 'cri'), { runtime: 'containerd2' })).endpoint;
    cri = await connectCri({ endpoint, timeoutMs: 10_000 });
  });
  after(async () => {
    cri?.close();
    if (dir) {
      await script.down(path.join(dir, 'cri'));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serves runtime.v1 and not v1alpha2 (containerd 1.6 serves both); inv negotiates v1', async () => {
    assert.equal(await versionCode(endpoint, 'v1'), grpc.status.OK);
    assert.equal(await versionCode(endpoint, 'v1alpha2'), grpc.status.UNIMPLEMENTED);
    assert.equal(cri.runtime.runtimeApiVersion, 'v1');
    assert.match(cri.runtime.runtimeVersion, /^v?2\./);
    // The fallback to v1alpha2 stays meaningful: the shared containerd 1.6 still serves it.
    useRuntime('containerd');
    assert.equal(await versionCode(criEndpoint(), 'v1alpha2'), grpc.status.OK);
  });

  it('reports its sandbox image pinned, and never removes it, not even with --images *', async () => {
    const sandbox = (await cri.listImages()).find((i) => i.repoTags.includes('inv.test/pause:1'));
    assert.ok(sandbox, 'the sandbox image is there');
    assert.equal(sandbox.pinned, true, 'containerd 2.x pins its configured sandbox image');
    const targeted = await runNodeRemove(endpoint, ['--images', 'inv.test/pause:1', '-o', 'json']);
    assert.equal(targeted.code, 0, targeted.stderr);
    assert.deepEqual(
      targeted.json!.results.map((r) => [r.target, r.outcome]),
      [['inv.test/pause:1', 'pinned']],
    );
    const prune = await runNodeRemove(endpoint, ['--images', '*', '-o', 'json']);
    assert.equal(prune.code, 0, prune.stderr);
    assert.deepEqual(
      prune.json!.results.map((r) => [r.imageId, r.outcome]),
      [[sandbox.id, 'pinned']],
    );
    assert.ok(
      (await cri.listImages()).some((i) => i.id === sandbox.id),
      'still there',
    );
  });
});
