// `inv check --nodes` on real nodes: with the daemon (`inv watch --leader-elect`, run here as a
// process) holding its Lease, a dry-run worker runs on each real kubelet and proves the
// configured runtime socket answers there; a socket path that does not exist fails each node.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { runCli } from '../cli/run-cli.js';
import { type WholeCluster } from '../support/nodes.js';
import { killDaemon, spawnDaemon, type ChildDaemon } from '../watch/helpers.js';
import { NodeEraseEnv } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

describe('inv check --nodes on real nodes', function () {
  this.timeout(300_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  let daemon: ChildDaemon | undefined;
  const lease = `inv-check-${randomBytes(3).toString('hex')}`;
  let flags: string[];

  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000); // the first suite to ask starts the whole cluster
    env = await new NodeEraseEnv(c).setup();
    // Workers mount the CRI socket: their namespace runs at the privileged level.
    await env.rest.request('PATCH', `/api/v1/namespaces/${env.namespace}`, {
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } },
    });
    flags = [
      '--kubeconfig',
      c.kubeconfig,
      '--daemon-namespace',
      env.namespace,
      '--leader-elect-id',
      lease,
      '--erase-namespace',
      env.namespace,
      '--erase-config-namespace',
      env.namespace,
    ];
    daemon = spawnDaemon([
      '--kubeconfig',
      c.kubeconfig,
      '--leader-elect',
      '--leader-elect-namespace',
      env.namespace,
      '--leader-elect-id',
      lease,
      '--erase-namespace',
      env.namespace,
      '--erase-config-namespace',
      env.namespace,
      '--namespaces',
      env.namespace,
    ]);
    await daemon.waitForLog('leadership', (r) => r.msg === 'acquired leader lease', 30_000);
  });
  after(async () => {
    if (daemon) await killDaemon(daemon, 'SIGTERM');
    await env?.teardown();
  });

  it('passes with a line per node when the runtime socket answers, naming its runtime', async () => {
    const r = runCli(['check', '--nodes', ...flags]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    for (const n of c.nodes) {
      // As the node's kubelet reports it from its CRI Version call: "containerd://1.6.20", or
      // "containerd://2.4.2+unknown" for the containerd 2.x built from Go modules.
      const node = await env.rest.get<{ status: { nodeInfo: { containerRuntimeVersion: string } } }>(
        `/api/v1/nodes/${n.name}`,
      );
      const [name, version] = node.status.nodeInfo.containerRuntimeVersion.split('://');
      assert.ok(name && version, node.status.nodeInfo.containerRuntimeVersion);
      const label = `${name} ${version}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      assert.match(
        r.stdout,
        new RegExp(
          `^√ node ${n.name}: the runtime socket answers a dry-run worker: \\d+ unused images; runtime ${label}$`,
          'm',
        ),
      );
    }
  });

  it('fails each node when the configured socket path does not exist', async () => {
    await env.rest.request('PATCH', `/api/v1/namespaces/${env.namespace}/configmaps/inv-erase-config`, {
      contentType: 'application/merge-patch+json',
      body: {
        data: {
          'config.yaml': [
            'runtimeSocket: /run/inv-check-nothing-here.sock',
            'workerStartGrace: 3s',
            'worker:',
            `  image: ${c.workerImage}`,
            '  criTimeout: 5s',
          ].join('\n'),
        },
      },
    });
    // The worker never starts (its hostPath Socket volume cannot mount): the node fails at the
    // check's job deadline.
    const r = runCli(['check', '--nodes', '--nodes-timeout', '20s', ...flags]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    for (const n of c.nodes)
      assert.match(
        r.stdout,
        new RegExp(`^× node ${n.name}: the runtime socket answers a dry-run worker: Failed: .+$`, 'm'),
      );
  });
});
