// The users of test/nodes/hazards/attacks.test.ts: a ServiceAccount per role of docs/security.md's security
// model, holding exactly that role, with a token, a KubeRest and a kubeconfig file of its own
// (for `inv` run as that user); and `inv` as an asynchronous subprocess, so the in-process
// controllers keep running while it waits.
import * as k8s from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { KubeRest } from '../../../src/core/kube/rest.js';
import { repoRoot } from '../../support/paths.js';
import type { NodeEraseEnv } from '../helpers.js';
import { serviceAccountToken } from '../../support/service-account.js';

export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The rules of the `image-eraser` ClusterRole exactly as docs/security.md shows it. */
export function docsEraserRules(): Rule[] {
  const readme = fs.readFileSync(path.join(repoRoot, 'docs', 'security.md'), 'utf8');
  for (const m of readme.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    const doc = parse(m[1]!.replace(/^ {2}/gm, '')) as { kind?: string; metadata?: { name?: string } };
    if (doc?.kind === 'ClusterRole' && doc.metadata?.name === 'image-eraser')
      return (doc as unknown as { rules: Rule[] }).rules;
  }
  throw new Error('docs/security.md shows no image-eraser ClusterRole');
}

/** The roles of docs/security.md's table, as a cluster-wide part and a part in the workers' namespace. */
export function roles(): Record<string, { cluster: Rule[]; inWorkers?: Rule[] }> {
  const read = ['get', 'list', 'watch'];
  return {
    eraser: { cluster: docsEraserRules() },
    viewer: {
      cluster: [
        { apiGroups: ['imageinventory.dev'], resources: ['images'], verbs: read },
        { apiGroups: ['erase.imageinventory.dev'], resources: ['imagelists', 'imagejobs'], verbs: read },
      ],
    },
    // "ConfigMap writer in the workers' namespace", plus what it takes to see a new job.
    cmwriter: {
      cluster: [{ apiGroups: ['erase.imageinventory.dev'], resources: ['imagejobs'], verbs: read }],
      inWorkers: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }],
    },
  };
}

export interface User {
  role: string;
  rest: KubeRest;
  kubeconfig: string;
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** A ServiceAccount (in `home`) holding exactly `role`, with a one-hour token. */
export async function makeUser(
  env: NodeEraseEnv,
  home: string,
  role: string,
  def: { cluster: Rule[]; inWorkers?: Rule[] },
  dir: string,
): Promise<User> {
  const { rest } = env;
  const name = `${role}-${env.tag}`;
  const post = (p: string, body: unknown) => rest.request('POST', p, { body });
  const ref = (kind: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
  const subjects = [{ kind: 'ServiceAccount', name, namespace: home }];
  await post(`/api/v1/namespaces/${home}/serviceaccounts`, { metadata: { name } });
  await post(`${RBAC}/clusterroles`, { metadata: { name }, rules: def.cluster });
  await post(`${RBAC}/clusterrolebindings`, { metadata: { name }, roleRef: ref('ClusterRole'), subjects });
  if (def.inWorkers) {
    await post(`${RBAC}/namespaces/${env.namespace}/roles`, { metadata: { name }, rules: def.inWorkers });
    await post(`${RBAC}/namespaces/${env.namespace}/rolebindings`, {
      metadata: { name },
      roleRef: ref('Role'),
      subjects,
    });
  }
  const token = await serviceAccountToken(rest, home, name);
  const cluster = env.kc.getCurrentCluster()!;
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData, caFile: cluster.caFile }],
    users: [{ name, token }],
    contexts: [{ name, cluster: 'c', user: name }],
    currentContext: name,
  });
  const kubeconfig = path.join(dir, `${role}.kubeconfig`);
  fs.writeFileSync(kubeconfig, kc.exportConfig(), { mode: 0o600 });
  return { role, rest: new KubeRest(kc), kubeconfig };
}

/** Removes the cluster-scoped RBAC objects of `makeUser` (the rest goes with the namespaces). */
export async function dropUser(env: NodeEraseEnv, u: User): Promise<void> {
  u.rest.close();
  const name = `${u.role}-${env.tag}`;
  for (const kind of ['clusterrolebindings', 'clusterroles'])
    await env.rest.request('DELETE', `${RBAC}/${kind}/${name}`).catch(() => undefined);
}

/** The HTTP status of a request as that user: 201/200, or the refusal's code. */
export const statusOf = (p: Promise<unknown>): Promise<number> =>
  p.then(
    () => 200,
    (e: { code?: number }) => e.code ?? -1,
  );

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `inv ARGS` as a subprocess, without blocking this process (the controllers run in it). */
export function inv(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), 150_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export const tmpDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'inv-attacks-'));
