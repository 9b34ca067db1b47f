// Issue 25 §1 and §2 as attacks, on the whole cluster (real RBAC, kubelets, containerd), by
// ServiceAccounts that each hold exactly one role of docs/security.md: the eraser
// (its image-eraser ClusterRole, read from that page), a viewer, and a ConfigMap
// writer in the workers' namespace W (plus reading ImageJobs). As an install has it, the
// configuration lives in another namespace C, with an exclusion list for image X. On both nodes:
// X (excluded), Y (referenced only by a Deployment scaled to 0: protected), Z (unused); and T,
// the eraser's own target, imported after the `*` prune. The attackers try:
//   1. forging a job's inputs (`<job>-images` = ["*"], `<job>-exclude` = [], an empty protected
//      set) with the owner label and digest annotation before the controllers create them (the
//      real names carry a random part, so none is in the way), an `inv-erase-config` in W with
//      a worker image of their own, and labelled exclusion lists in W (`["*"]` and invalid
//      JSON), which are never read;
//   2. a configuration found only in W: refused, with the command that moves it;
//   3. the administrator's policy (allowPruneAll, allowUnprotected) against the eraser, who can
//      still run a targeted erase end to end, but cannot run another user's list again.
import assert from 'node:assert/strict';
import { CONFIG_KEY, CONFIG_MAP_NAME, DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';
import { EVENT_NAMESPACE } from '../../../src/core/erase/cluster/events.js';
import { ImageListController } from '../../../src/core/erase/imagelist-controller.js';
import { PRUNE_ALL } from '../../../src/core/erase/spec/images.js';
import {
  EXCLUDE_ROLE,
  IMAGES_ROLE,
  listContent,
  protectedRole,
} from '../../../src/core/erase/worker/inputs.js';
import { policyProblem } from '../../../src/core/erase/config/policy.js';
import { EMPTY_CHUNK } from '../../../src/core/contract/protected-set.js';
import { submitErase } from '../../../src/core/erase-request/request.js';
import { moveCommand } from '../../../src/core/erase/cluster/settings.js';
import {
  excludeConfigMapName,
  IMAGEJOBS_PATH,
  IMAGELISTS_PATH,
  imagesConfigMapName,
  protectedConfigMapName,
  type ImageJob,
  type ImageList,
} from '../../../src/core/erase/api/types.js';
import { inputConfigMap } from '../../../src/core/erase/worker/pod-spec.js';
import { manifestDigest, stamp } from '../../../src/core/apply-inventory/objects.js';
import { until, type WholeCluster } from '../../support/nodes.js';
import { dropUser, inv, makeUser, roles, statusOf, tmpDir, type User } from './attacks-helpers.js';
import { importToNodes, nodeImageIds, NodeEraseEnv } from '../helpers.js';
import fs from 'node:fs';
import { useWholeCluster } from '../../support/suite-hooks.js';

const EVIL_CONFIG = 'runtimeSocket: /run/evil.sock\nworker:\n  image: evil.example/rootkit:1\n';

interface Pod {
  spec: {
    containers: { image: string }[];
    volumes?: {
      hostPath?: { path: string };
      configMap?: { name: string };
      projected?: { sources: { configMap?: { name: string } }[] };
    }[];
  };
}
interface KubeCm {
  metadata: { name: string; uid: string; resourceVersion: string };
  data?: Record<string, string>;
}

describe('erase attacks by RBAC-limited users (whole cluster; workers and configuration in different namespaces)', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let W = '';
  let C = '';
  let dir = '';
  const users: Record<string, User> = {};
  let ids: Record<'x' | 'y' | 'z', string>;
  const ref = (what: string) => `docker.io/library/atk-${what}-${env.tag}:1`;
  const cms = () => `/api/v1/namespaces/${W}/configmaps`;
  const list = (name: string) => env.rest.get<ImageList>(`${IMAGELISTS_PATH}/${name}`);
  const listError = (name: string) =>
    until(`ImageList ${name} in phase Error`, async () => {
      const l = await list(name);
      return l.status?.phase === 'Error' ? l : undefined;
    });
  const onNodes = async () => [await nodeImageIds(c, 0), await nodeImageIds(c, 1)];
  const base = () => ['--workers-namespace', W, '--config-namespace', C];
  let started = false;
  /** The controllers start in the first test, after the attack; later tests need them too. */
  const startControllers = () => {
    if (!started) env.startControllers();
    started = true;
  };

  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    env = await new NodeEraseEnv(c).setup({ separateConfig: true });
    W = env.namespace;
    C = env.configNamespace;
    dir = tmpDir();
    // CRDs just installed answer 429 while their storage initializes.
    for (const p of [IMAGELISTS_PATH, IMAGEJOBS_PATH])
      await until(`${p} served`, () => statusOf(env.rest.list(p)).then((s) => s === 200));
    const [x, y, z] = await importToNodes(
      c,
      [0, 1],
      ['x', 'y', 'z'].map((w) => ({ refs: [ref(w)], distinct: `atk-${w}-${env.tag}` })),
    );
    ids = { x: x!.id, y: y!.id, z: z!.id };
    await env.rest.request('POST', `/api/v1/namespaces/${C}/configmaps`, {
      body: {
        metadata: { name: 'keep', labels: { 'imageinventory.dev/exclusion-list': 'true' } },
        data: { 'excluded.json': JSON.stringify([ref('x')]) },
      },
    });
    await env.rest.request('POST', `/apis/apps/v1/namespaces/${C}/deployments`, {
      body: {
        metadata: { name: 'scaled' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'scaled' } },
          template: {
            metadata: { labels: { app: 'scaled' } },
            spec: { containers: [{ name: 'c', image: ref('y'), imagePullPolicy: 'Never' }] },
          },
        },
      },
    });
    for (const [role, def] of Object.entries(roles())) users[role] = await makeUser(env, C, role, def, dir);
  });
  after(async function () {
    this.timeout(180_000);
    for (const u of Object.values(users)) await dropUser(env, u);
    await env?.teardown();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('forged inputs and a forged configuration in the workers namespace are never used, whatever the role', async () => {
    // The administrator asks for a `*` prune; the ImageList controller makes its job, and the
    // attackers see it before any ImageJob controller runs.
    const name = `atk-all-${env.tag}`;
    env.lists.push(name);
    // Labelled exclusion lists in W, before the request: one excluding everything, one that is
    // not JSON. Neither is read (exclusions come from C only): the job is made, and Z goes.
    const label = { 'imageinventory.dev/exclusion-list': 'true' };
    const strays = [
      { metadata: { name: `evil-all-${env.tag}`, labels: label }, data: { 'x.json': '["*"]' } },
      { metadata: { name: `evil-bad-${env.tag}`, labels: label }, data: { 'x.json': '[not json' } },
    ];
    for (const body of strays)
      assert.equal(await statusOf(users.cmwriter!.rest.request('POST', cms(), { body })), 200);
    await submitErase(env.rest, { name, images: [PRUNE_ALL] });
    await new ImageListController({ rest: env.rest, namespace: W, configNamespace: C }).reconcile(name);
    const jobName = (await list(name)).status!.lastJob!;
    const forged: Record<string, unknown>[] = [];
    for (const u of Object.values(users)) {
      const job = await u.rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${jobName}`);
      const owner = { uid: job.metadata.uid!, description: `erase.imageinventory.dev/ImageJob/${jobName}` };
      // Each input as the controller would write it, with the digest it would compute for the
      // real content, but with the attacker's content.
      const forge = (role: string, cmName: string, real: string, fake: string) => {
        const input = { role, name: cmName, sha256: '' };
        const digest = manifestDigest(inputConfigMap(job, W, input, real));
        return stamp(inputConfigMap(job, W, input, fake) as never, owner, digest);
      };
      // (An object with exactly the real content would be adopted: its bytes are the ones the
      // controller writes, see src/core/apply-inventory/same-content.ts and
      // test/apply-inventory/adopt-unrecorded.test.ts. Every forgery here carries the attacker's content.)
      const bodies = [
        forge(IMAGES_ROLE, imagesConfigMapName(jobName), listContent([PRUNE_ALL]), listContent([ref('x')])),
        forge(EXCLUDE_ROLE, excludeConfigMapName(jobName), listContent([ref('x')]), listContent([])),
        forge(protectedRole(0), protectedConfigMapName(jobName, 0), EMPTY_CHUNK, EMPTY_CHUNK),
        {
          metadata: { name: CONFIG_MAP_NAME },
          data: {
            [CONFIG_KEY]: EVIL_CONFIG,
          },
        },
      ];
      const codes = [];
      for (const body of bodies) codes.push(await statusOf(u.rest.request('POST', cms(), { body })));
      const want = u.role === 'cmwriter' ? 200 : 403;
      assert.deepEqual(codes, [want, want, want, want], `${u.role} creating ConfigMaps in ${W}`);
      if (want === 200) forged.push(...bodies);
    }
    assert.equal(forged.length, 4, 'the ConfigMap writer forged every input and a configuration');
    const names = forged.map((b) => (b as { metadata: { name: string } }).metadata.name);
    const snapshot = async () =>
      Promise.all(
        names.map(async (n) => {
          const cm = await env.rest.get<KubeCm>(`${cms()}/${n}`);
          return [cm.metadata.uid, cm.metadata.resourceVersion, cm.data];
        }),
      );
    const before = await snapshot();

    startControllers();
    const job = await until(
      'the job finished',
      async () => {
        const j = await env.rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${jobName}`);
        return j.status?.phase === 'Completed' || j.status?.phase === 'Failed' ? j : undefined;
      },
      180_000,
      500,
    );
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const [n1, n2] = await onNodes();
    for (const [i, on] of [n1!, n2!].entries()) {
      assert.ok(on.has(ids.x), `X (excluded by the administrator) kept on node ${i + 1}`);
      assert.ok(on.has(ids.y), `Y (referenced by a Deployment at 0) kept on node ${i + 1}`);
      assert.ok(!on.has(ids.z), `Z (unused) removed from node ${i + 1}`);
    }
    // The workers mounted the names the job recorded, none of the forged ones, and ran the
    // administrator's image with the administrator's socket.
    const recorded = (job.status?.inputs ?? []).map((i) => i.name).sort();
    assert.equal(recorded.length, 3, JSON.stringify(job.status?.inputs));
    for (const n of recorded) assert.ok(!names.includes(n), `${n} is a fresh name`);
    const workers = await env.workers(jobName);
    assert.equal(workers.size, 2);
    for (const w of workers.values()) {
      const pod = await env.rest.get<Pod>(
        `/api/v1/namespaces/${W}/pods/${(w as { metadata: { name: string } }).metadata.name}`,
      );
      const vols = pod.spec.volumes ?? [];
      const mounted = vols
        .flatMap((v) => [v.configMap?.name, ...(v.projected?.sources ?? []).map((s) => s.configMap?.name)])
        .filter((n): n is string => Boolean(n))
        .sort();
      assert.deepEqual(mounted, recorded);
      assert.equal(pod.spec.containers[0]!.image, c.workerImage, "the administrator's worker image");
      assert.deepEqual(
        vols.flatMap((v) => (v.hostPath ? [v.hostPath.path] : [])),
        [c.runtimeSocket],
        "the administrator's runtime socket",
      );
    }
    const events = await env.rest.list<{ reason: string; type: string; message: string }>(
      `/api/v1/namespaces/${EVENT_NAMESPACE}/events`,
      { query: { fieldSelector: `involvedObject.name=${jobName}` } },
    );
    // The names carry a random part chosen at planning: none of the forged names was in the way.
    const taken = events.items.filter((e) => e.reason === 'InputNameTaken');
    assert.equal(taken.length, 0, JSON.stringify(events.items.map((e) => e.reason)));
    assert.deepEqual(job.spec.exclusions, [ref('x')], "the administrator's exclusions only");
    assert.deepEqual(await snapshot(), before, 'the forged objects are untouched');
  });

  it('a configuration only in the workers namespace is refused: the list goes to Error and inv erase exits 2, naming the move', async () => {
    // The forged inv-erase-config of the first test is still in W; the administrator's goes.
    startControllers();
    const again = await statusOf(
      users.cmwriter!.rest.request('POST', cms(), {
        body: { metadata: { name: CONFIG_MAP_NAME }, data: { [CONFIG_KEY]: EVIL_CONFIG } },
      }),
    );
    assert.ok(again === 200 || again === 409, `${again}`);
    const path = `/api/v1/namespaces/${C}/configmaps/${CONFIG_MAP_NAME}`;
    await env.rest.request('DELETE', path);
    try {
      const name = `atk-nocfg-${env.tag}`;
      env.lists.push(name);
      await submitErase(env.rest, { name, images: [ref('t')] });
      const l = await listError(name);
      assert.ok(l.status?.message?.includes(moveCommand(W, C)), l.status?.message);
      assert.equal(l.status?.lastJob, undefined, 'no job started');
      const r = await inv(['erase', '--kubeconfig', c.kubeconfig, ...base(), '--images', ref('t'), '--yes']);
      assert.equal(r.code, 2, r.stderr);
      assert.ok(r.stderr.includes(moveCommand(W, C)), r.stderr);
    } finally {
      await env.config();
    }
  });

  it('policy over the eraser: * and --no-protect-inventory refused with the reason; a targeted erase runs end to end; no rerun of a list without update', async () => {
    startControllers();
    const eraser = users.eraser!;
    // Of the three roles, only the eraser may ask for anything at all.
    for (const u of [users.viewer!, users.cmwriter!])
      assert.equal(
        await statusOf(submitErase(u.rest, { name: `atk-${u.role}-${env.tag}`, images: [PRUNE_ALL] })),
        403,
        `${u.role} creating an ImageList`,
      );
    const as = (u: User, ...args: string[]) =>
      inv(['erase', '--kubeconfig', u.kubeconfig, ...base(), ...args]);
    const noAll = policyProblem({ images: [PRUNE_ALL] }, { ...DEFAULT_CONFIG, allowPruneAll: false })!;
    const noUnprot = policyProblem(
      { images: [PRUNE_ALL], protectInventory: false },
      { ...DEFAULT_CONFIG, allowUnprotected: false },
    )!;
    await env.config('allowPruneAll: false');
    const listName = `atk-list-${env.tag}`;
    env.lists.push(listName);
    await submitErase(eraser.rest, { name: listName, images: [PRUNE_ALL] });
    assert.equal((await listError(listName)).status?.message, noAll);

    const all = `atk-cli-all-${env.tag}`;
    env.lists.push(all);
    let r = await as(eraser, '--all-unused', '--yes', '--name', all);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(noAll), r.stderr);
    // The role may not read the configuration: the preflight says it could not check it, and
    // the refusal comes from the controller (the list is in phase Error, no job started).
    assert.match(r.stderr, /warning: cannot check the request against the erase configuration/);
    assert.equal((await listError(all)).status?.lastJob, undefined);
    // Who may read the configuration is refused before anything is written.
    const adminAll = `atk-admin-all-${env.tag}`;
    r = await as({ kubeconfig: c.kubeconfig } as User, '--all-unused', '--yes', '--name', adminAll);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(noAll), r.stderr);
    assert.equal(await statusOf(list(adminAll)), 404, 'refused at preflight: nothing written');

    await env.config('allowUnprotected: false');
    const unprot = `atk-cli-unprot-${env.tag}`;
    env.lists.push(unprot);
    r = await as(eraser, '--all-unused', '--no-protect-inventory', '--yes', '--name', unprot);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(noUnprot), r.stderr);
    await env.config();

    // The documented role is enough for a targeted erase, end to end.
    const [t] = await importToNodes(c, [0, 1], [{ refs: [ref('t')], distinct: `atk-t-${env.tag}` }]);
    const own = `atk-own-${env.tag}`;
    env.lists.push(own);
    r = await as(eraser, '--images', ref('t'), '--yes', '--name', own);
    assert.equal(r.code, 0, r.stderr);
    const done = await list(own);
    const job = await env.rest.get<ImageJob>(`${IMAGEJOBS_PATH}/${done.status!.lastJob!}`);
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    assert.ok(
      (await onNodes()).every((on) => !on.has(t!.id)),
      'T removed from both nodes',
    );
    // Running an existing list again means updating it, which the role does not grant.
    r = await as(eraser, '--images', ref('t'), '--yes', '--name', own);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`imagelist/${own} exists.*pass --name with a new name`));
    assert.equal((await list(own)).metadata.generation, 1, 'the list was not rewritten');
  });
});
