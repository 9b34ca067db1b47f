// Access to the run's real test API server: the admin kubeconfig, typed clients, and a
// fresh namespace per test file so files never see each other's objects.
import * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { ensureNamespace } from '../../src/core/kube/namespaces.js';
import { KubeRest } from '../../src/core/kube/rest.js';

export function kubeconfigPath(): string {
  const p = process.env.INV_TEST_KUBECONFIG;
  if (!p) throw new Error('INV_TEST_KUBECONFIG is not set: run the tests through mocha (npm test)');
  return p;
}

export function adminConfig(): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigPath());
  return kc;
}

/**
 * Creates a namespace named `<prefix>-<random>` and waits for its default ServiceAccount
 * (created by the ServiceAccounts controller), so Pods can be admitted at once.
 */
export async function newNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`.slice(0, 63);
  const rest = new KubeRest(adminConfig());
  try {
    await ensureNamespace(rest, name);
  } finally {
    rest.close();
  }
  return name;
}
