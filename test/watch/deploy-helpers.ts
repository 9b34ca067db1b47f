// The install bundle (deploy/) as the deploy tests read and apply it: its kustomization, its
// objects, and `kubectl apply -k deploy/ --server-side` done with the API directly.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import type { KubeRest } from '../../src/core/kube/rest.js';
import { repoRoot } from '../support/paths.js';

export const deployDir = path.join(repoRoot, 'deploy');
export const SYSTEM_NS = 'image-inventory-system';
export const WORKERS_NS = 'image-inventory-workers';
export const SA = 'image-inventory-controller';

export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [k: string]: unknown;
}

export function kustomization(): { namespace: string; resources: string[] } {
  const k = parseYaml(fs.readFileSync(path.join(deployDir, 'kustomization.yaml'), 'utf8')) as {
    namespace?: string;
    resources: string[];
  };
  return { namespace: k.namespace ?? SYSTEM_NS, resources: k.resources };
}

export function bundle(): Obj[] {
  const k = kustomization();
  return k.resources.flatMap((r) =>
    parseAllDocuments(fs.readFileSync(path.join(deployDir, r), 'utf8'))
      .map((d) => d.toJS() as Obj | null)
      .filter((o): o is Obj => Boolean(o)),
  );
}

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
]);
const PLURAL: Record<string, string> = {
  Namespace: 'namespaces',
  CustomResourceDefinition: 'customresourcedefinitions',
  ServiceAccount: 'serviceaccounts',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  Deployment: 'deployments',
  NetworkPolicy: 'networkpolicies',
  ConfigMap: 'configmaps',
  Service: 'services',
};

function objectPath(o: Obj, namespace: string): string {
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  const plural = PLURAL[o.kind];
  if (!plural) throw new Error(`test apply: unknown kind ${o.kind}`);
  const ns = CLUSTER_SCOPED.has(o.kind) ? '' : `/namespaces/${o.metadata.namespace ?? namespace}`;
  return `${base}${ns}/${plural}/${o.metadata.name}`;
}

/** `kubectl apply -k deploy/ --server-side`, done with the API directly (kubectl may be absent). */
export async function applyBundle(rest: KubeRest): Promise<void> {
  await applyObjects(rest, bundle());
}

/** The same apply of some of the bundle's objects (its RBAC alone, say). */
export async function applyObjects(rest: KubeRest, objs: Obj[]): Promise<void> {
  const { namespace } = kustomization();
  for (const o of objs) {
    await rest.request('PATCH', objectPath(o, namespace), {
      query: { fieldManager: 'inv-test', force: true },
      body: o,
      contentType: 'application/apply-patch+yaml',
    });
  }
}
