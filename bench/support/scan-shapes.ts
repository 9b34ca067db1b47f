// The clusters `bench scan-all` measures on, beside its mixed shape (scan-all.ts):
//   - `deploy3`: each namespace a Deployment at 0 replicas and 3 Pods (issue 56's target shape:
//     many small namespaces, where one LIST per kind per namespace costs the most);
//   - `pods`: each namespace `perNamespace` Pods of 2 containers (few large namespaces).
// Pods wait for the namespace's default ServiceAccount, which scan-all creates with it.
import type { KubeRest } from '../../src/core/kube/rest.js';

const SIDECAR = { name: 'proxy', image: 'registry.example.com/mesh/proxy:1.2' };

export async function seedDeploy3(rest: KubeRest, ns: string, n: number): Promise<number> {
  const image = `registry.example.com/team${n % 50}/web:v${n % 3}`;
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image }, SIDECAR] },
  };
  await rest.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: {
      metadata: { name: 'web' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template },
    },
  });
  for (let i = 0; i < 3; i++)
    await rest.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        metadata: { name: `web-${i}`, labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: i === 2 ? `${image}-debug` : image }, SIDECAR] },
      },
    });
  return 4;
}

export async function seedPods(rest: KubeRest, ns: string, n: number, perNamespace: number): Promise<number> {
  for (let i = 0; i < perNamespace; i++)
    await rest.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        metadata: { name: `p-${i}`, labels: { app: `a${i % 20}` } },
        spec: {
          containers: [{ name: 'app', image: `registry.example.com/team${n % 20}/web${i % 20}:v1` }, SIDECAR],
        },
      },
    });
  return perNamespace;
}
