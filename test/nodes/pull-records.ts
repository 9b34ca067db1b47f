// Undoing what a pull with credentials leaves on the nodes, so the next suite finds them as the
// cluster made them. Kubernetes 1.35+ kubelets (KubeletEnsureSecretPulledImages) record that an
// image's content was pulled with credentials; from then on, Pods without them must pull it again.
// The images these suites push are the worker image's content under another name, so every later
// suite's workers (no pull secret, an unpullable inv.local ref) would fail with ErrImagePull.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nodesScript, until, type WholeCluster } from '../support/nodes.js';
import { ctrFor } from '../support/servers/registry.js';

/** Removes each kubelet's records of images pulled with credentials, and restarts it. */
export async function forgetPullRecords(c: WholeCluster): Promise<void> {
  const script = await nodesScript();
  for (let i = 1; i <= c.nodes.length; i++) {
    fs.rmSync(path.join(c.dir, `node-${i}`, 'kubelet', 'image_manager'), { recursive: true, force: true });
    await script.startKubelet(c.dir, i);
  }
  for (const n of c.nodes)
    await until(`${n.name} Ready`, () => script.nodeReady(c.kubeconfig, n.name), 60_000);
}

/**
 * Removes these names from every node (only the names: CRI RemoveImage would remove the image
 * with every name, the cluster's own worker image ref included).
 */
export async function removeRefs(c: WholeCluster, refs: string[]): Promise<void> {
  const ctr = await ctrFor(path.join(c.dir, 'node-1', 'cri'));
  for (const n of c.nodes)
    for (const ref of refs)
      spawnSync(
        ctr,
        ['--address', n.criEndpoint.replace(/^unix:\/\//, ''), '-n', 'k8s.io', 'images', 'rm', ref],
        {
          timeout: 30_000,
          stdio: 'ignore',
        },
      );
}
