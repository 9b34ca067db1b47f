// The sandbox (pause) image against the REAL containerd 1.6, with a fault-injecting CRI proxy
// in front of it that fails only Status. containerd 1.6 pins nothing, so Status(verbose) was the
// only thing protecting a sandbox image outside the built-in pause names: with it failing, a
// `*` prune offered the sandbox image of running pods (the repro of issue 10, part 3). Now the
// images backing sandboxes are read from the sandboxes themselves (PodSandboxStatus verbose),
// and without a known sandbox image a prune removes nothing and pause-like targets are refused.
import * as grpc from '@grpc/grpc-js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectCri, type CriClient } from '../../src/core/cri/index.js';
import {
  sandboxImageFromPodSandboxInfo,
  sandboxImageFromStatusInfo,
} from '../../src/core/noderemove/index.js';
import {
  connect,
  criAddress,
  criAvailable,
  criEndpoint,
  runPod,
  waitFor,
  waitForImages,
  type RunningPod,
} from '../support/cri.js';
import { addImages, buildImagesArchive, importImage, type BuiltImage } from '../support/oci.js';
import { repoRoot } from '../support/paths.js';
import { serveFaultProxy, type FaultProxy } from './fault-proxy.js';
import { ctr, outcomes, runNodeRemove } from './helpers.js';

const STATUS_FAULT = { code: grpc.status.UNAVAILABLE, details: 'Status refused (injected)' };
/** The test containerd's sandbox image (scripts/cri.mjs). */
const TEST_SANDBOX = 'inv.test/pause:1';

const idsByOutcome = (r: Awaited<ReturnType<typeof runNodeRemove>>) =>
  Object.fromEntries(r.json!.results.map((x) => [x.imageId, x.outcome]));

describe('inv node-remove: sandbox image protection with Status failing (shared containerd)', function () {
  let cri: CriClient;
  let proxy: FaultProxy;
  let tmp: string;
  let pod: RunningPod | undefined;
  const run = randomBytes(3).toString('hex');
  const repo = (name: string) => `docker.io/invtest${run}/${name}`;
  // A second, mirror-like name for the sandbox image: neither pause-like nor a default exclusion.
  const mirrorName = `mirror.example/invtest${run}/k8s-infra-sandbox:3.9`;
  const unusedPause = `registry.example/invtest${run}/pause:3.1`;
  let built: BuiltImage[] = [];
  let sandboxImageId = '';

  before(async function () {
    if (!criAvailable()) this.skip();
    cri = await connect();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-nr-sandbox-'));
    proxy = await serveFaultProxy(criEndpoint(), { 'RuntimeService/Status': STATUS_FAULT });
    built = await addImages([
      { refs: [`${repo('runner')}:1`], distinct: `${run}-runner` },
      { refs: [`${repo('free')}:1`], distinct: `${run}-free` },
      { refs: [unusedPause], distinct: `${run}-unused-pause` },
    ]);
    await waitForImages(
      cri,
      built.map((b) => b.id),
    );
    pod = await runPod(cri, `${repo('runner')}:1`);
    sandboxImageId = (await cri.imageStatus(TEST_SANDBOX))!.id;
    ctr(criAddress(), ['images', 'tag', TEST_SANDBOX, mirrorName]);
    await waitFor(
      `${mirrorName} in CRI`,
      async () => (await cri.imageStatus(mirrorName))?.id === sandboxImageId,
    );
  });

  after(async () => {
    await pod?.cleanup();
    // Untag by name only: CRI RemoveImage would take the shared sandbox image with it.
    if (cri) {
      try {
        ctr(criAddress(), ['images', 'rm', mirrorName]);
      } catch {
        // not tagged (before() failed early)
      }
      for (const b of built) await cri.removeImage(b.id).catch(() => undefined);
      cri.close();
    }
    await proxy?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the real containerd names the sandbox image in verbose PodSandboxStatus info', async () => {
    const st = await cri.podSandboxStatus(pod!.sandboxId, true);
    assert.equal(st.id, pod!.sandboxId);
    assert.equal(st.state, 'SANDBOX_READY');
    assert.equal(sandboxImageFromPodSandboxInfo(st.info), TEST_SANDBOX);
    assert.equal(sandboxImageFromStatusInfo((await cri.status(true)).info), TEST_SANDBOX);
    // And containerd 1.6 does not pin it: Status was its only protection before.
    assert.equal((await cri.imageStatus(TEST_SANDBOX))!.pinned, false);
  });

  it("repro: a '*' dry run through a proxy failing Status removes nothing and fails the node, saying why", async () => {
    const term = path.join(tmp, 'termination-log');
    const r = await runNodeRemove(proxy.endpoint, [
      '--images',
      '*',
      '--dry-run',
      '-o',
      'json',
      '--termination-message-path',
      term,
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(proxy.calls.includes('RuntimeService/Status'), 'Status was asked (and refused)');
    assert.ok(proxy.calls.includes('RuntimeService/PodSandboxStatus'), 'sandboxes were asked');
    assert.deepEqual(
      r.json!.results.map((x) => [x.target, x.imageId, x.outcome]),
      [['*', '', 'failed']],
      'no would-remove at all, the sandbox image included',
    );
    const reason = r.json!.results[0]!.error;
    assert.match(reason, /a \* prune removes nothing here/);
    assert.match(reason, /sandbox \(pause\) image cannot be determined/);
    assert.match(reason, /Status\(verbose\) failed: .*Status refused \(injected\)/);
    assert.match(reason, /--exclude <sandbox image>/);
    assert.ok(reason.includes(TEST_SANDBOX), 'names the image backing the sandboxes');
    assert.match(r.stderr, /warning: .*cannot be determined/);
    const summary = JSON.parse(fs.readFileSync(term, 'utf8'));
    assert.deepEqual(summary.counts, { failed: 1 });
    assert.equal(summary.results[0].t, '*');
    assert.match(summary.results[0].e, /sandbox \(pause\) image cannot be determined/);

    const table = await runNodeRemove(proxy.endpoint, ['--images', '*', '--dry-run']);
    assert.equal(table.code, 1);
    assert.match(table.stdout, /failed/);
    assert.match(table.stdout, /a \* prune removes nothing here/);
  });

  it('prunes (dry run) once the sandbox image is named in the exclusions; sandbox-backed images stay in use', async () => {
    const r = await runNodeRemove(proxy.endpoint, [
      '--images',
      '*',
      '--exclude',
      TEST_SANDBOX,
      '--dry-run',
      '-o',
      'json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const byId = idsByOutcome(r);
    assert.equal(byId[sandboxImageId], 'in-use', 'backs the running pod sandbox');
    assert.equal(byId[built[0]!.id], 'in-use', 'the running container');
    assert.equal(byId[built[1]!.id], 'would-remove');
  });

  it('keeps a sandbox image under a mirror-like, non-pause name as in use, refuses pause-like targets, removes the rest', async () => {
    const targets = [mirrorName, TEST_SANDBOX, unusedPause, `${repo('free')}:1`];
    const r = await runNodeRemove(proxy.endpoint, ['--images', targets.join(','), '-o', 'json']);
    assert.equal(r.code, 1, 'a refused target is a failure');
    assert.deepEqual(outcomes(r), {
      [mirrorName]: 'in-use',
      [TEST_SANDBOX]: 'in-use',
      [unusedPause]: 'failed',
      [`${repo('free')}:1`]: 'removed',
    });
    assert.match(r.json!.results[2]!.error, /refused: this looks like a pause image/);
    assert.equal((await cri.imageStatus(mirrorName))?.id, sandboxImageId);
    assert.equal((await cri.imageStatus(unusedPause))?.id, built[2]!.id);
    assert.equal(await cri.imageStatus(`${repo('free')}:1`), null);
    const table = await runNodeRemove(proxy.endpoint, ['--images', mirrorName, '--dry-run']);
    assert.match(table.stdout, /backs pod sandbox/);
  });
});

interface CriScript {
  up(
    dir: string,
    opts?: { wrap?: (cmd: string, args: string[]) => [string, string[]] },
  ): Promise<{ endpoint: string; address: string }>;
  down(dir: string): Promise<void>;
}

describe("inv node-remove: a mirror-named sandbox image on a containerd of its own (real '*' prune)", function () {
  // What k3s, EKS or a private mirror look like: the configured sandbox image is neither a
  // built-in pause name nor pause-like, and containerd 1.6 does not pin it.
  const MIRROR = 'mirror.example/k8s-infra/sandbox:3.9';
  let script: CriScript;
  let dir = '';
  let endpoint: string;
  let address: string;
  let cri: CriClient;
  let proxy: FaultProxy;
  let pod: RunningPod | undefined;
  let tmp: string;
  const refs = {
    runner: 'docker.io/library/runner:1',
    free1: 'docker.io/library/free-one:1',
    free2: 'quay.io/org/free-two:2',
    oldPause: 'registry.example/eks/pause:3.1',
  };
  let id: Record<keyof typeof refs, string>;
  let mirrorId = '';

  before(async function () {
    if (!criAvailable()) this.skip();
    script = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriScript;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-nr-mirror-'));
    tmp = path.join(dir, 'tmp');
    fs.mkdirSync(tmp);
    // scripts/cri.mjs's documented hook: the wrapper execs containerd (same pid) after pointing
    // the CRI config's sandbox_image at the mirror name.
    const up = await script.up(path.join(dir, 'cri'), {
      wrap: (cmd, args) => [
        'sh',
        ['-c', `sed -i 's#^\\( *sandbox_image = \\).*#\\1"${MIRROR}"#' "$2" && exec "$0" "$@"`, cmd, ...args],
      ],
    });
    endpoint = up.endpoint;
    address = up.address;
    cri = await connectCri({ endpoint, timeoutMs: 10_000 });
    // The sandbox image exists only under the mirror name, so new sandboxes record that name.
    const pauseId = (await waitFor('the sandbox image', async () => cri.imageStatus(TEST_SANDBOX)))!.id;
    ctr(address, ['images', 'tag', TEST_SANDBOX, MIRROR]);
    ctr(address, ['images', 'rm', TEST_SANDBOX]);
    await waitFor('the sandbox image under the mirror name only', async () => {
      const img = await cri.imageStatus(MIRROR);
      return img?.id === pauseId && img.repoTags.length === 1;
    });
    mirrorId = pauseId;
    const file = path.join(tmp, 'images.tar');
    const built = await buildImagesArchive(
      file,
      Object.entries(refs).map(([k, ref]) => ({ refs: [ref], distinct: `mirror-${k}` })),
    );
    await importImage(file, address);
    await waitForImages(
      cri,
      built.map((b) => b.id),
    );
    id = Object.fromEntries(Object.keys(refs).map((k, i) => [k, built[i]!.id])) as typeof id;
    pod = await runPod(cri, refs.runner);
    proxy = await serveFaultProxy(endpoint, { 'RuntimeService/Status': STATUS_FAULT });
  });

  after(async () => {
    await pod?.cleanup();
    await proxy?.close();
    cri?.close();
    if (dir) {
      await script.down(path.join(dir, 'cri'));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  const imageIds = async () => (await cri.listImages()).map((i) => i.id).sort();

  it('the sandbox records the mirror name, and Status(verbose) names it when asked directly', async () => {
    const st = await cri.podSandboxStatus(pod!.sandboxId, true);
    assert.equal(sandboxImageFromPodSandboxInfo(st.info), MIRROR);
    assert.equal(sandboxImageFromStatusInfo((await cri.status(true)).info), MIRROR);
    const direct = await runNodeRemove(endpoint, ['--images', '*', '--dry-run', '-o', 'json']);
    assert.equal(direct.code, 0, direct.stderr);
    assert.deepEqual(idsByOutcome(direct), {
      [mirrorId]: 'in-use',
      [id.runner]: 'in-use',
      [id.free1]: 'would-remove',
      [id.free2]: 'would-remove',
      [id.oldPause]: 'would-remove', // the runtime said which image is its sandbox image
    });
  });

  it("with Status failing, a real '*' prune removes nothing and exits 1 with the reason", async () => {
    const before = await imageIds();
    const term = path.join(tmp, 'termination-log');
    const r = await runNodeRemove(proxy.endpoint, [
      '--images',
      '*',
      '-o',
      'json',
      '--termination-message-path',
      term,
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(outcomes(r), { '*': 'failed' });
    assert.ok(r.json!.results[0]!.error.includes(MIRROR), 'names the image backing the sandboxes');
    assert.deepEqual(await imageIds(), before, 'nothing removed');
    assert.match(JSON.parse(fs.readFileSync(term, 'utf8')).results[0].e, /cannot be determined/);
  });

  it('with Status failing, a targeted removal keeps the mirror-named sandbox image in use and refuses pause-like targets', async () => {
    const r = await runNodeRemove(proxy.endpoint, [
      '--images',
      [MIRROR, refs.oldPause, refs.free1].join(','),
      '-o',
      'json',
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(outcomes(r), { [MIRROR]: 'in-use', [refs.oldPause]: 'failed', [refs.free1]: 'removed' });
    assert.deepEqual(await imageIds(), [mirrorId, id.runner, id.free2, id.oldPause].sort());
  });

  it("with Status failing, '*' prunes for real once the exclusions name the sandbox image", async () => {
    const r = await runNodeRemove(proxy.endpoint, ['--images', '*', '--exclude', MIRROR, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(idsByOutcome(r), {
      [mirrorId]: 'in-use',
      [id.runner]: 'in-use',
      [id.free2]: 'removed',
      [id.oldPause]: 'removed',
    });
    assert.deepEqual(await imageIds(), [mirrorId, id.runner].sort());
    const running = (await cri.listContainers()).filter((c) => c.state === 'CONTAINER_RUNNING');
    assert.equal(running.length, 1, 'the pod still runs');
  });

  it('with no sandbox left, Status alone protects the configured image; without Status the prune fails closed', async () => {
    await pod!.cleanup();
    await waitFor('no sandboxes', async () => (await cri.listPodSandboxes()).length === 0);
    const direct = await runNodeRemove(endpoint, ['--images', '*', '--dry-run', '-o', 'json']);
    assert.equal(direct.code, 0, direct.stderr);
    assert.equal(idsByOutcome(direct)[mirrorId], 'sandbox-image', "the runtime's configured sandbox image");
    const row = direct.json!.results.find((x) => x.imageId === mirrorId)!;
    assert.match(row.reason, /^sandbox image \(/);
    const viaProxy = await runNodeRemove(proxy.endpoint, ['--images', '*', '--dry-run', '-o', 'json']);
    assert.equal(viaProxy.code, 1);
    assert.deepEqual(outcomes(viaProxy), { '*': 'failed' });
  });
});
