// The workers' pull secrets (inv-erase-config `worker.imagePullSecrets`) on real nodes: the worker
// image lives only in a real registry that requires credentials (the Distribution registry,
// htpasswd, on 127.0.0.1; scripts/registry.mjs), under a tag made for this run, so the kubelets
// must pull it. Without valid credentials every node fails fast with the pull failure; with the
// administrator's kubernetes.io/dockerconfigjson Secret the kubelets pull it and the erase succeeds.
import assert from 'node:assert/strict';
import path from 'node:path';
import { isNotFound } from '../../../src/core/kube/rest.js';
import { nodeCri, type WholeCluster } from '../../support/nodes.js';
import { ctrFor, pullSecret, registryScript, type Registry } from '../../support/servers/registry.js';
import { NodeEraseEnv, results } from '../helpers.js';
import { forgetPullRecords, removeRefs } from '../pull-records.js';
import { useWholeCluster } from '../../support/suite-hooks.js';

const SECRET = 'inv-worker-pull';

describe('worker image pull secrets (a registry that requires credentials)', function () {
  this.timeout(120_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let reg: Registry | undefined;
  let ref = '';
  let ctr = '';
  const criAddress = (i: number) => c.nodes[i]!.criEndpoint.replace(/^unix:\/\//, '');

  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000); // the first suite to ask starts the whole cluster
    const registry = await registryScript();
    const started = Date.now();
    reg = await registry.start({ timeoutMs: 30_000 });
    ctr = await ctrFor(path.join(c.dir, 'node-1', 'cri'));
    env = await new NodeEraseEnv(c).setup();
    // A tag of this run only: no node has it, so IfNotPresent must pull.
    ref = `${reg.host}/inv/inv-worker:pull-${env.tag}`;
    registry.push({
      ctr,
      address: criAddress(0),
      local: c.workerImage,
      remote: ref,
      user: reg.user,
      password: reg.password,
    });
    process.stderr.write(`      (registry started and ${ref} pushed in ${Date.now() - started} ms)\n`);
    env.startControllers();
  });

  after(async () => {
    try {
      // Only the tag this test pulled (removeRefs keeps the image's other names).
      if (ref && c) await removeRefs(c, [ref]);
      // Kubernetes 1.35+ kubelets (KubeletEnsureSecretPulledImages) recorded that the worker
      // image's content was pulled with credentials: from then on, Pods without them must pull it
      // again, and every later suite's workers (no pull secret, an unpullable inv.local ref) would
      // fail with ErrImagePull. Forget those records and restart the kubelets, so the nodes are as
      // before this file: the worker image preloaded (the default NeverVerifyPreloadedImages).
      if (ref && c) await forgetPullRecords(c);
      if (env) await env.teardown(); // the namespace with the Secret and the configuration
    } finally {
      await reg?.stop();
    }
  });

  /** The administrator's Secret for the registry (replaced if present). */
  async function putSecret(password: string): Promise<void> {
    const p = `/api/v1/namespaces/${env.namespace}/secrets`;
    await env.rest
      .request('DELETE', `${p}/${SECRET}`)
      .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
    await env.rest.request('POST', p, { body: pullSecret(SECRET, reg!.host, reg!.user, password) });
  }

  const hasRef = async (i: number): Promise<boolean> => {
    const cri = await nodeCri(c, i);
    try {
      return (await cri.listImages()).some((img) => img.repoTags.includes(ref));
    } finally {
      cri.close();
    }
  };

  it('without valid credentials every node fails fast, naming the pull failure (401 Unauthorized)', async () => {
    // No Secret at all, then a Secret with a wrong password: the registry refuses both.
    for (const secret of [undefined, `wrong-${env.tag}`]) {
      if (secret) await putSecret(secret);
      await env.config(secret ? `  imagePullSecrets: [${SECRET}]` : '', ref);
      const started = Date.now();
      const job = await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`] }));
      const took = Date.now() - started;
      assert.equal(job.status?.phase, 'Failed', job.status?.message);
      const r = results(job);
      for (const n of c.nodes) {
        assert.equal(r[n.name]?.outcome, 'Failed', JSON.stringify(r[n.name]));
        assert.match(r[n.name]!.reason, /^image-pull: (ErrImagePull|ImagePullBackOff)/, r[n.name]!.reason);
        // containerd 1.6 says "401 Unauthorized", 2.x "authorization failed"; the cut keeps the end.
        assert.match(r[n.name]!.reason, /401 Unauthorized|authorization failed/, r[n.name]!.reason);
      }
      // "Fast" is the reason, not a clock: a node that waited out the job's timeout (30 minutes
      // by default) would fail with a timeout reason, not image-pull, and the wait above would
      // have given up first. The time is printed for the reader.
      process.stderr.write(
        `      (${secret ? 'wrong password' : 'no Secret'}: Failed in ${took} ms: ${r[c.nodes[0]!.name]!.reason})\n`,
      );
    }
    for (let i = 0; i < c.nodes.length; i++) assert.equal(await hasRef(i), false, 'nothing was pulled');
  });

  it('with the pull secret in inv-erase-config the kubelets pull the worker image and the erase succeeds', async () => {
    await putSecret(reg!.password);
    await env.config(`  imagePullSecrets: [${SECRET}]`, ref);
    const job = await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`] }));
    assert.equal(job.status?.phase, 'Completed', job.status?.message);
    const r = results(job);
    for (const n of c.nodes) assert.equal(r[n.name]?.outcome, 'Succeeded', JSON.stringify(r[n.name]));
    const workers = await env.workers(job.metadata.name);
    for (const [node, pod] of workers) {
      const spec = pod.spec as { imagePullSecrets?: { name: string }[]; containers?: { image?: string }[] };
      assert.deepEqual(spec.imagePullSecrets, [{ name: SECRET }], node);
      assert.equal(spec.containers?.[0]?.image, ref, node);
    }
    // The kubelets really pulled it: each node's containerd now has the registry's ref.
    for (let i = 0; i < c.nodes.length; i++) assert.ok(await hasRef(i), `node ${i + 1} has ${ref}`);
  });
});
