// An ImageList that could never run is refused up front, in the same words at each door
// (src/core/erase/api/list-limits.ts): a name over 63 characters (a label value on its jobs) and
// targets over 1,000,000 bytes of JSON (one ConfigMap for the workers, at most 1 MiB).
// - the CRD's CEL rules, on the real API server (and they agree with the TypeScript at the
//   boundary: 1,000,000 bytes pass, 1,000,001 do not);
// - the ImageList controller, for lists created while the CRD had no such rules (an older
//   install): phase Error with the reason, and no ImageJob;
// - `inv erase`: exit 2 before writing anything.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  listNameProblem,
  MAX_TARGETS_BYTES,
  targetsSizeProblem,
} from '../../src/core/erase/api/list-limits.js';
import {
  IMAGEJOBS_PATH,
  IMAGELISTS_PATH,
  type ImageJob,
  type ImageList,
} from '../../src/core/erase/api/types.js';
import { installCrds, readCrds } from '../../src/core/kube/crd-install.js';
import { KubeApiError } from '../../src/core/kube/rest.js';
import { kubeconfigPath } from '../support/kube.js';
import { invAsync } from '../support/inv-async.js';
import { EraseEnv, sleep } from './helpers.js';

const IMAGELIST_CRD = 'imagelists.erase.imageinventory.dev';

/** `count` valid refs whose JSON array takes exactly `bytes` bytes (each ref 24+ characters). */
function refsOfJsonSize(count: number, bytes: number): string[] {
  // JSON bytes = 1 + Σ (length + 3): brackets, quotes and commas.
  const total = bytes - 1 - 3 * count;
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => {
    const len = base + (i < total - base * count ? 1 : 0);
    const head = `r.example.com/app-${String(i).padStart(5, '0')}:`;
    return head + 'v'.repeat(len - head.length);
  });
}

const inv = (args: string[]) => invAsync(args);

describe('ImageLists that could never run are refused up front', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  before(async () => {
    env = await new EraseEnv().setup();
  });
  after(async () => {
    if (!env) return;
    await installCrds(env.rest); // the rules back, whatever a test left
    await env.teardown();
  });

  const list = (name: string, images: string[]): ImageList => ({
    apiVersion: 'erase.imageinventory.dev/v1alpha1',
    kind: 'ImageList',
    metadata: { name },
    spec: { images, nodeSelector: `erase-test=${env.tag}` },
  });
  const create = (l: ImageList) => env.rest.request<ImageList>('POST', IMAGELISTS_PATH, { body: l });
  const refused = async (l: ImageList): Promise<string> => {
    const e = await create(l).then(
      () => assert.fail(`${l.metadata.name} was accepted`),
      (err: unknown) => err,
    );
    assert.ok(e instanceof KubeApiError && e.code === 422, String(e));
    return e.message;
  };

  it("the CRD's CEL rules refuse them with list-limits.ts's words, and agree at the boundary", async () => {
    const long = `too-long-${env.tag}-${'x'.repeat(64)}`.slice(0, 64);
    assert.ok((await refused(list(long, ['busybox:1']))).includes(listNameProblem(long)));
    const ok63 = long.slice(0, 63);
    await create(list(ok63, ['busybox:1']));

    // The finding: 10,000 targets of 108 characters (1.08 MB), once accepted.
    const big = refsOfJsonSize(10_000, 1_110_001);
    const message = await refused(list(`big-${env.tag}`, big));
    assert.ok(message.includes(targetsSizeProblem(big)), message);
    // Exactly at the limit: both the CEL rule and the TypeScript accept; one byte more, neither.
    const edge = refsOfJsonSize(10_000, MAX_TARGETS_BYTES);
    assert.equal(Buffer.byteLength(JSON.stringify(edge)), MAX_TARGETS_BYTES);
    assert.equal(targetsSizeProblem(edge), '');
    await create(list(`edge-${env.tag}`, edge));
    const over = refsOfJsonSize(10_000, MAX_TARGETS_BYTES + 1);
    assert.notEqual(targetsSizeProblem(over), '');
    assert.ok((await refused(list(`over-${env.tag}`, over))).includes(targetsSizeProblem(over)));
    for (const n of [ok63, `edge-${env.tag}`]) await env.rest.request('DELETE', `${IMAGELISTS_PATH}/${n}`);
  });

  it('the CRD refuses imageFs and minUnusedAge except on a * prune, a low mark not under the high one, and an age without unit', async () => {
    const withSpec = (name: string, images: string[], extra: Partial<ImageList['spec']>): ImageList => {
      const l = list(name, images);
      return { ...l, spec: { ...l.spec, dryRun: true, ...extra } };
    };
    const fs1 = { imageFs: { highPercent: 80, lowPercent: 70.5 } };
    assert.match(
      await refused(withSpec(`fs-named-${env.tag}`, ['busybox:1'], fs1)),
      /apply to a "\*" prune only/,
    );
    assert.match(
      await refused(withSpec(`age-named-${env.tag}`, ['busybox:1'], { minUnusedAge: '7d' })),
      /apply to a "\*" prune only/,
    );
    assert.match(
      await refused(withSpec(`fs-order-${env.tag}`, ['*'], { imageFs: { highPercent: 70, lowPercent: 70 } })),
      /lowPercent must be lower than imageFs.highPercent/,
    );
    assert.match(
      await refused(withSpec(`age-unit-${env.tag}`, ['*'], { minUnusedAge: '7' })),
      /minUnusedAge/,
    );
    const ok = `fs-ok-${env.tag}`;
    const created = await create(withSpec(ok, ['*'], { ...fs1, minUnusedAge: '1d12h' }));
    assert.deepEqual(created.spec.imageFs, fs1.imageFs);
    await env.rest.request('DELETE', `${IMAGELISTS_PATH}/${ok}`);
  });

  it('the controller puts a list the CRD let through (an older CRD) in phase Error, and starts no job', async () => {
    // The CRD as an install from before the rules left it.
    const crd = readCrds().find((c) => c.metadata.name === IMAGELIST_CRD) as unknown as {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
    delete schema['x-kubernetes-validations'];
    const spec = schema.properties as { spec: { properties: { images: Record<string, unknown> } } };
    delete spec.spec.properties.images['x-kubernetes-validations'];
    await installCrds(env.rest, [crd as never]);
    const long = `old-crd-${env.tag}-${'y'.repeat(64)}`.slice(0, 70);
    const big = refsOfJsonSize(10_000, 1_110_001);
    // The API server may take a moment to serve the new schema: retry the create until it does.
    for (const l of [list(long, ['busybox:1']), list(`old-crd-big-${env.tag}`, big)]) {
      for (let i = 0; ; i++) {
        try {
          await create(l);
          break;
        } catch (e) {
          if (i > 50 || !(e instanceof KubeApiError && e.code === 422)) throw e;
          await sleep(100);
        }
      }
    }
    await installCrds(env.rest); // the rules are back; the lists stay as they were stored
    env.startControllers();
    try {
      for (const [name, problem] of [
        [long, listNameProblem(long)],
        [`old-crd-big-${env.tag}`, targetsSizeProblem(big)],
      ] as const) {
        let status: ImageList['status'];
        for (let i = 0; i < 300 && status?.phase !== 'Error'; i++) {
          status = (await env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`)).status;
          if (status?.phase !== 'Error') await sleep(100);
        }
        assert.equal(status?.phase, 'Error', JSON.stringify(status));
        assert.equal(status?.message, problem);
        const accepted = status?.conditions?.find((c) => c.type === 'Accepted');
        assert.equal(accepted?.status, 'False');
      }
      const jobs = await env.rest.list<ImageJob>(IMAGEJOBS_PATH);
      assert.deepEqual(
        jobs.items.filter((j) => j.spec.imageList.name.startsWith('old-crd-')).map((j) => j.metadata.name),
        [],
      );
    } finally {
      await env.stopControllers();
    }
  });

  it('`inv erase` refuses them with exit 2, in the same words, and writes nothing', async () => {
    const common = ['--kubeconfig', kubeconfigPath(), '--workers-namespace', env.namespace, '--no-wait'];
    const long = `cli-${env.tag}-${'z'.repeat(64)}`.slice(0, 64);
    let r = await inv(['erase', '--images', 'busybox:1', '--name', long, ...common]);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(listNameProblem(long)), r.stderr);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-list-limits-'));
    try {
      const big = refsOfJsonSize(10_000, 1_110_001);
      const file = path.join(dir, 'targets.json');
      fs.writeFileSync(file, JSON.stringify(big));
      r = await inv(['erase', '--imagelist', file, '--name', `cli-big-${env.tag}`, ...common]);
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.includes(targetsSizeProblem(big)), r.stderr);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const lists = await env.rest.list<ImageList>(IMAGELISTS_PATH);
    assert.deepEqual(
      lists.items.filter((l) => l.metadata.name.startsWith('cli-')).map((l) => l.metadata.name),
      [],
    );
  });
});
