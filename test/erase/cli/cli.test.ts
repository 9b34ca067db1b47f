// `inv erase` as a real subprocess: --standalone runs the controllers in-process until the job
// finishes; -o json gives the full result; exit codes 0/1/2.
// The kubelet harness plays the nodes so that one node fails on demand (exit code 1); the CLI
// on real nodes runs in the demo and test/nodes/.
import assert from 'node:assert/strict';
import { kubeconfigPath } from '../../support/kube.js';
import { invAsync } from '../../support/inv-async.js';
import { EraseEnv, eraseEnvPerTest } from '../helpers.js';
import { envFlags } from './cli-helpers.js';

const inv = (args: string[]) => invAsync(args);

describe('inv erase (CLI)', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  eraseEnvPerTest((e) => (env = e));

  it('--standalone -o json: exit 0 and per-node results when Completed, exit 1 when Failed', async () => {
    const nodes = await env.nodes([{ name: 'a' }, { name: 'b' }]);
    env.startKubelet((n) => (n === nodes[1] ? 'fail' : 'run'));
    const common = [...envFlags(env), '--standalone', '-o', 'json', '--name', `cli-${env.tag}`];
    let r = await inv([
      'erase',
      '--images',
      'busybox:1',
      '--node-selector',
      `erase-test=${env.tag},kubernetes.io/hostname=${nodes[0]}`,
      ...common,
    ]);
    assert.equal(r.code, 0, r.stderr);
    let out = JSON.parse(r.stdout);
    assert.equal(out.phase, 'Completed');
    assert.deepEqual(
      out.results.map((n: { node: string; outcome: string }) => [n.node, n.outcome]),
      [[nodes[0], 'Succeeded']],
    );
    r = await inv(['erase', '--images', 'busybox:1', '--node-selector', `erase-test=${env.tag}`, ...common]);
    assert.equal(r.code, 1, r.stderr);
    out = JSON.parse(r.stdout);
    assert.equal(out.phase, 'Failed');
    assert.deepEqual([out.nodes.desired, out.nodes.succeeded, out.nodes.failed], [2, 1, 1]);
  });

  it('warns who references an image named for removal, and ends with the bytes it freed', async () => {
    const nodes = await env.nodes([{ name: 'a' }]);
    env.startKubelet(() => 'run');
    // The inventory says a Deployment in this namespace uses busybox:1.
    await env.rest.request('POST', `/apis/imageinventory.dev/v1alpha1/namespaces/${env.namespace}/images`, {
      body: {
        apiVersion: 'imageinventory.dev/v1alpha1',
        kind: 'Image',
        metadata: {
          name: 'busybox-1',
          labels: { 'app.kubernetes.io/managed-by': 'image-inventory-controller' },
        },
        spec: { image: 'docker.io/library/busybox:1' },
        status: { kinds: 'Deployment', users: ['Deployment/web'], userCount: 1 },
      },
    });
    const r = await inv([
      'erase',
      '--images',
      'busybox:1',
      '--node-selector',
      `erase-test=${env.tag},kubernetes.io/hostname=${nodes[0]}`,
      ...envFlags(env),
      '--standalone',
      '--dry-run',
      '--name',
      `cli-warn-${env.tag}`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`warning: busybox:1 is referenced by Deployment/web in ${env.namespace}`),
    );
    assert.match(r.stdout, /WOULD FREE/);
    assert.match(
      r.stdout,
      /^would remove \d+ image\(s\), would free \d+(\.\d+)? (B|kB|MB|GB) on \d+ node\(s\)/m,
    );
  });

  it('bad input exits 2 before touching the cluster; --all-unused needs --yes off a TTY', async () => {
    let r = await inv(['erase', '--images', 'UPPER/Case:bad', '--kubeconfig', kubeconfigPath()]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /invalid image "UPPER\/Case:bad"/);
    r = await inv(['erase', '--all-unused', '--kubeconfig', kubeconfigPath()]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /confirm with --yes/);
    r = await inv([
      'erase',
      '--images',
      'nginx',
      '--node-selector',
      'a in (',
      '--kubeconfig',
      kubeconfigPath(),
    ]);
    assert.equal(r.code, 2);
  });
});
