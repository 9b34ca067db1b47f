// What Deployments leave in a real cluster, for the benches' Pods to be owned as a cluster's are:
// each Deployment controls its current ReplicaSet and one older revision scaled to 0 (the
// controller keeps revisionHistoryLimit of them), and the current one controls the Pods. No
// controller-manager runs in the bench's API server, so they are created here, with real UIDs.
// Such Pods credit nothing (their Deployment is credited); an owner that does not exist would
// be credited as a bare ReplicaSet, which no cluster has by the thousand.
import type { KubeRest } from '../../src/core/kube/rest.js';

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: true;
  blockOwnerDeletion: true;
}
export interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: { name: string; image: string }[] };
}
interface Created {
  metadata: { name: string; uid: string };
}

const ref = (kind: string, apiVersion: string, o: Created): OwnerRef => ({
  apiVersion,
  kind,
  name: o.metadata.name,
  uid: o.metadata.uid,
  controller: true,
  blockOwnerDeletion: true,
});

/**
 * Creates Deployment `name` (unless `existing` is given) and its two ReplicaSets; returns the
 * ownerReference its Pods carry (to the current ReplicaSet).
 */
export async function deploymentOwner(
  rest: KubeRest,
  ns: string,
  name: string,
  template: PodTemplate,
  existing?: Created,
): Promise<OwnerRef> {
  const apps = `/apis/apps/v1/namespaces/${ns}`;
  const selector = { matchLabels: template.metadata.labels };
  const d =
    existing ??
    (await rest.request<Created>('POST', `${apps}/deployments`, {
      body: { metadata: { name }, spec: { replicas: 1, selector, template } },
    }));
  const owner = ref('Deployment', 'apps/v1', d);
  const rs = async (hash: string, replicas: number, t: PodTemplate) =>
    rest.request<Created>('POST', `${apps}/replicasets`, {
      body: {
        metadata: {
          name: `${name}-${hash}`,
          labels: { ...t.metadata.labels, 'pod-template-hash': hash },
          ownerReferences: [owner],
        },
        spec: {
          replicas,
          selector: { matchLabels: { ...t.metadata.labels, 'pod-template-hash': hash } },
          template: { ...t, metadata: { labels: { ...t.metadata.labels, 'pod-template-hash': hash } } },
        },
      },
    });
  const old = {
    ...template,
    spec: { containers: template.spec.containers.map((c) => ({ ...c, image: `${c.image}-old` })) },
  };
  await rs('0ld', 0, old);
  return ref('ReplicaSet', 'apps/v1', await rs('cur', 1, template));
}
