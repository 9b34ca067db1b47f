// Shared fixtures for inventory tests against the real API server.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { imagesPath, type ImageResource } from '../../src/core/inventory/image-resource.js';
import { scanCluster, type ScanReport } from '../../src/core/inventory/scan.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig } from '../support/kube.js';

export interface Env {
  kc: k8s.KubeConfig;
  rest: KubeRest;
  core: k8s.CoreV1Api;
  apps: k8s.AppsV1Api;
  batch: k8s.BatchV1Api;
}

export async function setupEnv(): Promise<Env> {
  const kc = adminConfig();
  const rest = new KubeRest(kc);
  await installCrds(rest);
  return {
    kc,
    rest,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    batch: kc.makeApiClient(k8s.BatchV1Api),
  };
}

export const podSpec = (images: string[], init: string[] = []): k8s.V1PodSpec => ({
  containers: images.map((image, i) => ({ name: `c${i}`, image })),
  ...(init.length ? { initContainers: init.map((image, i) => ({ name: `init${i}`, image })) } : {}),
});

export const template = (app: string, images: string[], init: string[] = []): k8s.V1PodTemplateSpec => ({
  metadata: { labels: { app } },
  spec: podSpec(images, init),
});

export async function scan(env: Env, ns: string, dryRun = false): Promise<ScanReport> {
  return scanCluster(env.rest, { namespaces: [ns], dryRun, checkNamespaces: true });
}

/** The namespace's Images as image → kinds. */
export async function inventory(env: Env, ns: string): Promise<Record<string, string>> {
  const { items } = await env.rest.list<ImageResource>(imagesPath(ns));
  const out: Record<string, string> = {};
  for (const i of items) out[i.spec?.image ?? `?${i.metadata.name}`] = i.status?.kinds ?? '';
  return out;
}

export async function listImages(env: Env, ns: string): Promise<ImageResource[]> {
  return (await env.rest.list<ImageResource>(imagesPath(ns))).items;
}

/** Reads the API server's own request counters for Image writes (POST/PUT/PATCH/APPLY/DELETE; server-side apply counts as APPLY). */
export async function serverImageWrites(env: Env): Promise<number> {
  const raw = await fetchText(env, '/metrics');
  let n = 0;
  for (const line of raw.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    if (!line.includes('group="imageinventory.dev"') || !line.includes('resource="images"')) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? '';
    if (['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE'].includes(verb)) n += Number(line.split(' ').pop());
  }
  return n;
}

async function fetchText(env: Env, path: string): Promise<string> {
  const https = await import('node:https');
  const opts: import('node:https').RequestOptions = {};
  await env.kc.applyToHTTPSOptions(opts);
  const url = new URL(path, env.kc.getCurrentCluster()!.server);
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca: opts.ca, headers: opts.headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** What another tool (a backup operator, a policy engine) might put on an Image we manage. */
export const FOREIGN = {
  labels: { 'backup.example.com/tier': 'gold' },
  annotations: { 'backup.example.com/last': '2026-11-30T00:00:00Z' },
  finalizers: ['backup.example.com/protect'],
};

/**
 * Puts FOREIGN labels, annotations and a finalizer on an Image, plus an ownerReference to a
 * ConfigMap created for it, with a merge patch, as another tool would.
 */
export async function decorate(env: Env, ns: string, name: string): Promise<void> {
  const cm = await env.core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { generateName: 'owner-' } },
  });
  await env.rest.request('PATCH', imagesPath(ns, name), {
    contentType: 'application/merge-patch+json',
    body: {
      metadata: {
        ...FOREIGN,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata!.name, uid: cm.metadata!.uid },
        ],
      },
    },
  });
}

/** Asserts that everything `decorate` put on the Image is still there. */
export async function assertForeignKept(env: Env, ns: string, name: string, when: string): Promise<void> {
  const img = await env.rest.get<{
    metadata: {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
      finalizers?: string[];
      ownerReferences?: { kind: string }[];
    };
  }>(imagesPath(ns, name));
  const m = img.metadata;
  for (const [k, v] of Object.entries(FOREIGN.labels)) assert.equal(m.labels?.[k], v, `${when}: label ${k}`);
  for (const [k, v] of Object.entries(FOREIGN.annotations))
    assert.equal(m.annotations?.[k], v, `${when}: annotation ${k}`);
  assert.deepEqual(m.finalizers, FOREIGN.finalizers, `${when}: finalizers`);
  assert.deepEqual(
    m.ownerReferences?.map((o) => o.kind),
    ['ConfigMap'],
    `${when}: ownerReferences`,
  );
}

/** Removes the foreign finalizer so the namespace can go away at the end of a test. */
export async function releaseFinalizers(env: Env, ns: string, name: string): Promise<void> {
  await env.rest.request('PATCH', imagesPath(ns, name), {
    contentType: 'application/merge-patch+json',
    body: { metadata: { finalizers: null } },
  });
}
