// Acting as a ServiceAccount against the run's API server: a token from the TokenRequest API and
// a kubeconfig that presents it, as the suites that check RBAC (the deployed Roles, the metrics
// endpoint's authorization, the requester's limits) each did by hand.
import fs from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import type { KubeRest } from '../../src/core/kube/rest.js';

/** A bound token for ServiceAccount `namespace/name`, valid for `seconds` (the API's TokenRequest). */
export async function serviceAccountToken(
  rest: KubeRest,
  namespace: string,
  name: string,
  seconds = 3600,
): Promise<string> {
  const tr = await rest.request<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: seconds },
      },
    },
  );
  return tr.status.token;
}

/** Writes a kubeconfig for `admin`'s server that authenticates with `token` (mode 0600); returns `file`. */
export function writeTokenKubeconfig(admin: k8s.KubeConfig, token: string, file: string): string {
  const cluster = admin.getCurrentCluster()!;
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  fs.writeFileSync(file, kc.exportConfig(), { mode: 0o600 });
  return file;
}
