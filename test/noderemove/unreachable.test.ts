// node-remove with a runtime that cannot be used: a missing socket or a listener that never
// answers ends with exit 2 and a message naming the endpoint within --timeout; a RemoveImage the
// runtime refuses is a per-image `failed` result and exit 1.
import * as grpc from '@grpc/grpc-js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serveFaultProxy, type FaultProxy } from './fault-proxy.js';
import { connect, criAvailable, criEndpoint, RUNTIMES, useRuntime, waitForImages } from '../support/cri.js';
import { addImages } from '../support/oci.js';
import { runNodeRemove } from './helpers.js';

// Process start-up (node + oclif) is part of the subprocess's wall time; allow for a slow CI.
const STARTUP_ALLOWANCE = 4000;

for (const runtime of RUNTIMES)
  describe(`inv node-remove with an unusable runtime [${runtime}]`, function () {
    before(() => useRuntime(runtime));
    after(() => useRuntime('containerd'));
    let tmp: string;
    before(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-nr-unreach-'));
    });
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('exits 2 with a clear message for a missing socket', async () => {
      const endpoint = `unix://${path.join(tmp, 'missing.sock')}`;
      const r = await runNodeRemove(endpoint, ['--images', 'nginx:1', '--call-timeout', '1s']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /does not exist/);
      assert.ok(r.stderr.includes('missing.sock'), r.stderr);
      assert.equal(r.stdout, '');
      assert.ok(r.ms < 1000 + STARTUP_ALLOWANCE, `took ${r.ms} ms`);
    });

    it('exits 2 within --call-timeout for a listener that never answers', async () => {
      const sock = path.join(tmp, 'silent.sock');
      const conns: net.Socket[] = [];
      const server = net.createServer((c) => conns.push(c));
      await new Promise<void>((r) => server.listen(sock, r));
      try {
        const r = await runNodeRemove(`unix://${sock}`, ['--images', 'nginx:1', '--call-timeout', '700ms']);
        assert.equal(r.code, 2);
        assert.match(r.stderr, /within 700 ms/);
        assert.ok(r.stderr.includes('silent.sock'), r.stderr);
        assert.ok(r.ms < 700 + STARTUP_ALLOWANCE, `took ${r.ms} ms`);
      } finally {
        for (const c of conns) c.destroy();
        await new Promise((r) => server.close(r));
      }
    });

    describe('a removal the runtime refuses', function () {
      let proxy: FaultProxy;

      before(async function () {
        if (!criAvailable()) this.skip();
        // containerd 1.6 offers no honest way to make CRI RemoveImage fail for one image on
        // demand (it treats unknown images as already removed, and its metadata store does not
        // fail on request). So the CLI talks to a proxy that forwards every call to the real
        // containerd, except RemoveImage, which it refuses like a runtime would.
        proxy = await serveFaultProxy(criEndpoint(), {
          'ImageService/RemoveImage': {
            code: grpc.status.FAILED_PRECONDITION,
            details: 'image is being used by a running task (injected)',
          },
        });
      });
      after(async () => proxy?.close());

      it('reports failed with the runtime error and exits 1', async () => {
        const cri = await connect();
        try {
          const ref = `docker.io/invtest${randomBytes(3).toString('hex')}/refused:1`;
          const [img] = await addImages([{ refs: [ref], distinct: `refused-${Date.now()}` }]);
          await waitForImages(cri, [img!.id]);
          const r = await runNodeRemove(proxy.endpoint, [
            '--images',
            `${ref},docker.io/library/absent-image:9`,
            '-o',
            'json',
          ]);
          assert.equal(r.code, 1, r.stderr);
          const [failed, absent] = r.json!.results;
          assert.equal(failed!.outcome, 'failed');
          assert.equal(failed!.imageId, img!.id);
          assert.match(
            failed!.error,
            /FAILED_PRECONDITION: image is being used by a running task \(injected\)/,
          );
          assert.equal(absent!.outcome, 'not-present');
          assert.ok(proxy.calls.includes('ImageService/RemoveImage'));
          assert.ok(
            proxy.calls.includes('RuntimeService/ListContainers'),
            'in-use status was read (through to containerd)',
          );
          assert.equal((await cri.imageStatus(ref))?.id, img!.id, 'still present on the real containerd');
          await cri.removeImage(img!.id);
        } finally {
          cri.close();
        }
      });
    });
  });
