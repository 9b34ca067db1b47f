// docs/install.md "Install on your cluster", run as written: each block marked `as-written` goes
// through bash word for word, with the page's variables set to a real private registry (the
// Distribution registry on 127.0.0.1 with TLS from a CA of its own and a password,
// scripts/registry.mjs), on the whole local cluster of real kubelets. The nodes trust that CA as
// the page says an administrator's do (its hosts.toml, in each node's containerd hosts folder);
// `inv`, `kubectl` and `helm` are this checkout's and the tested releases. What the test checks
// beyond each block's exit code: the kubelets really pulled from the registry (Pulled Events, the
// ref on the nodes), the daemon and the workers run the pushed image with the pull Secret, an
// erase removes an image, `helm upgrade` rolls the daemon and the next job's workers to the new
// tag, and each uninstall leaves what the page says.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { JOB_LABEL } from '../../../src/core/erase/api/types.js';
import { isNotFound, KubeRest } from '../../../src/core/kube/rest.js';
import {
  asWrittenBlocks,
  assignedNames,
  runBash,
  type MarkedBlock,
} from '../../support/docs/docs-as-written.js';
import { clusterConfig, until, wholeCluster, type WholeCluster } from '../../support/nodes.js';
import { repoRoot } from '../../support/paths.js';
import { registryScript, type Registry } from '../../support/servers/registry.js';
import { routeKubernetesService } from '../../support/servers/service-route.js';
import {
  daemonPods,
  defaultRuntimeSocket,
  nodeHas,
  pulledEvents,
  ready,
  shellBin,
  SYSTEM_NS,
  trustRegistry,
  WORKERS_NS,
  type Pod,
} from './as-written-env.js';
import { importToNodes, nodeImageIds } from '../helpers.js';
import { forgetPullRecords, removeRefs } from '../pull-records.js';

const PAGE = 'docs/install.md';
const SECTION = 'Install on your cluster';
// The blocks the test runs, in the page's order; `variables` is checked, `not run` says why.
const EXPECTED = [
  'variables',
  'not run',
  'push',
  'hosts.toml',
  'install',
  'pull-secret',
  'erase',
  'helm-install',
  'helm-upgrade',
  'uninstall',
  'helm-uninstall',
];
const CRDS = [
  'images.imageinventory.dev',
  'imagelists.erase.imageinventory.dev',
  'imagejobs.erase.imageinventory.dev',
  'imagejobrecords.erase.imageinventory.dev',
];

describe('docs/install.md "Install on your cluster", as written, on real kubelets and a TLS registry', function () {
  this.timeout(300_000);
  this.bail(true); // each step stands on the one before
  const id = randomBytes(3).toString('hex');
  let c: WholeCluster;
  let rest: KubeRest;
  let reg: Registry | undefined;
  let blocks: MarkedBlock[] = [];
  let vars: Record<string, string> = {};
  let shellEnv: Record<string, string> = {};
  const undo: (() => void | Promise<void>)[] = [];
  let started = 0;
  const ref = (tag: string) => `${vars.REGISTRY}/inv:${tag}`;

  /** Runs the block `name` through bash; it must exit 0. Returns what it printed. */
  async function run(name: string, extra: Record<string, string> = {}): Promise<string> {
    const b = blocks.find((x) => x.name === name);
    assert.ok(b, `${PAGE} has the block ${name}`);
    const t = Date.now();
    const r = await runBash(b.body, { env: { ...shellEnv, ...extra }, cwd: repoRoot, timeoutMs: 280_000 });
    assert.equal(r.code, 0, `${PAGE}:${b.line} (${name}) exited ${r.code}:\n${b.body}\n---\n${r.output}`);
    process.stderr.write(`      (${name}: ${Date.now() - t} ms)\n`);
    return r.output;
  }
  const gone = (p: string) =>
    rest.request('GET', p).then(
      () => false,
      (e: unknown) => (isNotFound(e) ? true : Promise.reject(e)),
    );
  /** Both namespaces are deleted; else what is left in them, with `printed` (what the step printed). */
  const namespacesGone = (printed = '') =>
    until(
      'both namespaces deleted',
      async () => (await gone(`/api/v1/namespaces/${SYSTEM_NS}`)) && gone(`/api/v1/namespaces/${WORKERS_NS}`),
      120_000,
      500,
    ).catch(async (e: Error) => {
      const left = await runBash(
        `for ns in ${SYSTEM_NS} ${WORKERS_NS}; do kubectl get configmaps,secrets,leases,serviceaccounts,pods,images -n $ns -o name --show-managed-fields=false || true; done`,
        { env: shellEnv, cwd: repoRoot, timeoutMs: 30_000 },
      );
      throw new Error(`${e.message}\n${printed}\n--- left:\n${left.output}`);
    });

  /** The Ready daemon Pod, from `image`, pulled by its kubelet with the pull Secret. */
  async function daemonFrom(image: string, notOf: string[] = []): Promise<Pod> {
    const pod = await until(
      `one Ready daemon Pod running ${image}`,
      async () => {
        const pods = (await daemonPods(rest)).filter((p) => !notOf.includes(p.metadata.uid));
        const p = pods.length === 1 ? pods[0]! : undefined;
        return p && ready(p) && p.spec.containers[0]!.image === image ? p : undefined;
      },
      120_000,
      250,
    );
    assert.deepEqual(pod.spec.imagePullSecrets, [{ name: 'inv-registry' }]);
    const pulled = await pulledEvents(rest, SYSTEM_NS, pod.metadata.name);
    assert.ok(
      pulled.some((m) => m.includes('Successfully pulled image') && m.includes(image)),
      `the kubelet pulled ${image}: ${JSON.stringify(pulled)}`,
    );
    // It leads (the hostname_uuid identity of inv watch): an erase needs a Lease holder.
    await until(
      `${pod.metadata.name} holds the Lease`,
      async () =>
        (
          await rest.request<{ spec?: { holderIdentity?: string } }>(
            'GET',
            `/apis/coordination.k8s.io/v1/namespaces/${SYSTEM_NS}/leases/image-inventory-controller`,
          )
        ).spec?.holderIdentity?.startsWith(`${pod.metadata.name}_`),
      60_000,
      250,
    );
    const node = c.nodes.findIndex((n) => n.name === pod.spec.nodeName);
    assert.ok(await nodeHas(c, node, image), `${pod.spec.nodeName} holds ${image}`);
    return pod;
  }

  /** An image no Pod uses, on both nodes; the page's erase must remove it. */
  async function unusedOnNodes(): Promise<string> {
    const [built] = await importToNodes(
      c,
      [0, 1],
      [{ refs: [vars.UNUSED!], distinct: `as-written-${Date.now()}` }],
    );
    return built!.id;
  }

  /** The workers of the erases so far (in the namespace the install made): node by node, their image. */
  async function workers(): Promise<Pod[]> {
    const pods = await rest.list<Pod>(`/api/v1/namespaces/${WORKERS_NS}/pods`, {
      query: { labelSelector: JOB_LABEL },
    });
    return pods.items;
  }

  async function erasesWith(image: string): Promise<void> {
    const id = await unusedOnNodes();
    const out = await run('erase');
    for (let i = 0; i < c.nodes.length; i++) {
      assert.equal(
        (await nodeImageIds(c, i)).has(id),
        false,
        `node ${i + 1} no longer holds ${vars.UNUSED}:\n${out}`,
      );
      // The node's worker pulled it (the daemon runs on one node only).
      assert.ok(await nodeHas(c, i, image), `node ${i + 1} pulled ${image}`);
    }
    const pods = await workers();
    assert.ok(pods.length >= c.nodes.length, `worker Pods: ${pods.length}`);
    // The installed daemon, with its ServiceAccount's rights, read each worker's log into the
    // removal record (the workers have no token): every node's removal of the image is there.
    const records = await rest.list<{ spec: { node: string; rows: { id: string; outcome: string }[] } }>(
      '/apis/erase.imageinventory.dev/v1alpha1/imagejobrecords',
    );
    for (const n of c.nodes)
      assert.ok(
        records.items.some(
          (r) => r.spec.node === n.name && r.spec.rows.some((x) => x.id === id && x.outcome === 'removed'),
        ),
        `the removal record of ${n.name} holds ${vars.UNUSED}`,
      );
    for (const p of pods) {
      assert.equal(p.spec.containers[0]!.image, image, p.metadata.name);
      assert.deepEqual(p.spec.imagePullSecrets, [{ name: 'inv-registry' }], p.metadata.name);
    }
  }

  before(async function () {
    this.timeout(900_000); // the first suite to ask starts the whole cluster
    started = Date.now();
    blocks = asWrittenBlocks(PAGE, SECTION);
    c = await wholeCluster();
    rest = new KubeRest(clusterConfig(c));
    reg = await (await registryScript()).start({ tls: true });
    vars = {
      REGISTRY: `${reg.host}/as-written`,
      REGISTRY_HOST: reg.host,
      REGISTRY_USER: reg.user!,
      REGISTRY_PASSWORD: reg.password!,
      REGISTRY_CA: reg.caFile!,
      TAG: `aw-${id}`,
      NEW_TAG: `aw2-${id}`,
      UNUSED: `docker.io/library/as-written-unused:${id}`,
    };
    const bin = await shellBin();
    undo.push(bin.remove);
    shellEnv = {
      ...vars,
      PATH: `${bin.dir}:${process.env.PATH}`,
      KUBECONFIG: c.kubeconfig,
      NO_COLOR: '1',
      // Helm keeps its caches and repositories config out of the developer's home (as test/support/helm.ts).
      HELM_CACHE_HOME: path.join(repoRoot, '.cache', 'tools', 'helm-home', 'cache'),
      HELM_CONFIG_HOME: path.join(repoRoot, '.cache', 'tools', 'helm-home', 'config'),
      HELM_DATA_HOME: path.join(repoRoot, '.cache', 'tools', 'helm-home', 'data'),
    };
    const toml = blocks.find((b) => b.name === 'hosts.toml');
    if (toml) undo.push(await trustRegistry(c, reg.host, reg.caFile!, toml.body));
    undo.push(defaultRuntimeSocket(c));
    undo.push(routeKubernetesService(c));
  });

  after(async () => {
    try {
      if (c && blocks.length) {
        // Whatever a failed step left: the release, inv's objects, the Secrets that keep the namespaces.
        await runBash(
          [
            'helm uninstall inv --wait || true',
            'kubectl delete imagelists.erase.imageinventory.dev imagelist --ignore-not-found --wait=false || true',
            `for ns in ${SYSTEM_NS} ${WORKERS_NS}; do kubectl delete secret inv-registry -n $ns --ignore-not-found || true; done`,
            'inv uninstall || true',
          ].join('\n'),
          { env: shellEnv, cwd: repoRoot, timeoutMs: 180_000 },
        );
        await namespacesGone().catch(() => undefined);
        await removeRefs(c, [ref(vars.TAG!), ref(vars.NEW_TAG!), vars.UNUSED!]);
        // The kubelets recorded these pulls with credentials (see ./pull-records.ts).
        await forgetPullRecords(c);
      }
    } finally {
      for (const u of undo.reverse()) await u();
      rest?.close();
      await reg?.stop();
      process.stderr.write(`      (install as written, its set-up included: ${Date.now() - started} ms)\n`);
    }
  });

  it('the page marks every block of the section, and the test runs each (or says why not)', () => {
    assert.deepEqual(
      blocks.map((b) => b.name),
      EXPECTED,
    );
    const variables = blocks.find((b) => b.name === 'variables')!;
    assert.deepEqual(
      assignedNames(variables.body).sort(),
      Object.keys(vars).sort(),
      'the variables the page sets',
    );
    for (const b of blocks.filter((x) => !['variables', 'not run', 'hosts.toml'].includes(x.name)))
      assert.equal(b.lang, 'sh', `${b.name} is a shell block`);
  });

  it('2. npm run image builds the image and pushes it to the TLS registry with the password', async () => {
    await run('push');
  });

  it('4. inv install --image --image-pull-secret: the daemon Pod pulls from the registry, is Ready; inv check passes', async () => {
    await run('install');
    const out = await run('pull-secret'); // the Secrets, the rollout, `inv check`
    assert.match(out, /Status check results are √/);
    await daemonFrom(ref(vars.TAG!));
    // Whoever may view a namespace may read its Images: the controller-manager aggregates
    // install's image-inventory-view into the built-in view role.
    await until('view reads Images', async () =>
      (
        await rest.request<{ rules?: { apiGroups?: string[]; resources?: string[] }[] }>(
          'GET',
          '/apis/rbac.authorization.k8s.io/v1/clusterroles/view',
        )
      ).rules?.some((x) => x.apiGroups?.includes('imageinventory.dev') && x.resources?.includes('images')),
    );
  });

  it('5. the first erase: every node pulls the worker image from the registry, and the image goes', async () => {
    await erasesWith(ref(vars.TAG!));
  });

  it('8. inv uninstall keeps the namespaces holding the pull Secrets, then removes them; the CRDs stay', async () => {
    const out = await run('uninstall');
    for (const ns of [SYSTEM_NS, WORKERS_NS])
      assert.match(out, new RegExp(`namespace/${ns} kept[^\\n]*inv-registry`), out);
    await namespacesGone(out);
    assert.ok(await gone('/apis/rbac.authorization.k8s.io/v1/clusterroles/image-inventory-controller'));
    assert.ok(await gone('/apis/rbac.authorization.k8s.io/v1/clusterroles/image-inventory-view'));
    for (const crd of CRDS)
      assert.equal(await gone(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`), false, crd);
  });

  it('6. helm install with only the image and its pull Secret: the daemon pulls from the registry; inv check passes', async () => {
    // The nodes forget the image of the steps before, so this install must pull it again.
    await removeRefs(c, [ref(vars.TAG!)]);
    for (let i = 0; i < c.nodes.length; i++)
      await until(
        `node ${i + 1} without ${ref(vars.TAG!)}`,
        async () => !(await nodeHas(c, i, ref(vars.TAG!))),
      );
    await run('helm-install');
    const out = await run('pull-secret');
    assert.match(out, /Status check results are √/);
    await daemonFrom(ref(vars.TAG!));
  });

  it('7. push NEW_TAG, helm upgrade: the daemon rolls to it, and the next erase runs its workers on it', async () => {
    await run('push', { TAG: vars.NEW_TAG! });
    const before = (await daemonPods(rest)).map((p) => p.metadata.uid);
    await run('helm-upgrade');
    await daemonFrom(ref(vars.NEW_TAG!), before);
    await erasesWith(ref(vars.NEW_TAG!));
  });

  it('8. helm uninstall removes the namespaces with the Secrets in them; the CRDs stay', async () => {
    await namespacesGone(await run('helm-uninstall'));
    for (const crd of CRDS)
      assert.equal(await gone(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`), false, crd);
    // That the Images stay with the CRDs is test/nodes/install/helm.test.ts's (a watched workload's).
  });
});
