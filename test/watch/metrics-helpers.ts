// Shared by the secure metrics tests (secure-metrics, metrics-flood): an HTTPS GET that reports
// the status and the served certificate, and the ServiceAccounts of a scraper and a daemon made
// with the shipped ClusterRoles (deploy/), with their tokens.
import type { X509Certificate } from 'node:crypto';
import https from 'node:https';
import { readBundle } from '../../src/core/install/bundle.js';
import { applyObject, type KubeObject } from '../../src/core/kube/apply.js';
import type { KubeRest } from '../../src/core/kube/rest.js';
import { serviceAccountToken } from '../support/service-account.js';

export interface Answer {
  status: number;
  body: string;
  cert: X509Certificate;
}

/** GET over HTTPS (`ca` verifies, else TLS is not verified), from `localAddress` when given. */
export function get(
  url: string,
  token?: string,
  ca?: string,
  localAddress?: string,
  agent?: https.Agent,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        ...(ca ? { ca, checkServerIdentity: () => undefined } : { rejectUnauthorized: false }),
        agent: agent ?? false,
        timeout: 10_000,
        ...(localAddress ? { localAddress } : {}),
      },
      (res) => {
        const cert = (res.socket as import('node:tls').TLSSocket).getPeerX509Certificate()!;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cert }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

/**
 * ServiceAccounts in `ns`: `controller` bound to the shipped daemon ClusterRole, `reader` to
 * inv-metrics-reader, `nobody` to nothing. token(sa) makes a new token (an hour); cleanup()
 * deletes the ClusterRoleBindings.
 */
export async function metricsAccounts(admin: KubeRest, ns: string) {
  const bindings: string[] = [];
  const token = (sa: string) => serviceAccountToken(admin, ns, sa);
  const bind = async (sa: string, role: string) => {
    const name = `${ns}-${sa}`;
    bindings.push(name);
    await applyObject(
      admin,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
      } as KubeObject,
      { force: true },
    );
  };
  // The shipped ClusterRoles: the daemon's and the metrics reader's, as deploy/ has them.
  const shipped = ['image-inventory-controller', 'inv-metrics-reader'];
  for (const o of readBundle().filter((x) => x.kind === 'ClusterRole' && shipped.includes(x.metadata.name)))
    await applyObject(admin, o, { force: true });
  for (const sa of ['controller', 'reader', 'nobody']) {
    await admin.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } },
    });
  }
  await bind('controller', 'image-inventory-controller');
  await bind('reader', 'inv-metrics-reader');
  const tokens: Record<string, string> = {};
  for (const sa of ['controller', 'reader', 'nobody']) tokens[sa] = await token(sa);
  return {
    tokens,
    token,
    async cleanup() {
      for (const b of bindings)
        await admin
          .request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${b}`)
          .catch(() => undefined);
    },
  };
}
