// Access to the run's real test API server: the admin kubeconfig, typed clients, and a
// fresh namespace per test file so files never see each other's objects.
import * as k8s from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates a namespace named `<prefix>-<random>` and waits for its default ServiceAccount
 * (created by the ServiceAccounts controller), so Pods can be admitted at once.
 */
export async function newNamespace(prefix: string): Promise<string> {
  const kc = adminConfig();
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const name = `${prefix}-${randomBytes(3).toString('hex')}`.slice(0, 63);
  await core.createNamespace({ body: { metadata: { name } } });
  for (let i = 0; i < 200; i++) {
    try {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
      return name;
    } catch {
      await sleep(50);
    }
  }
  throw new Error(`default ServiceAccount never appeared in namespace ${name}`);
}
