// Installs the project's CustomResourceDefinitions (crds/*.yaml) and waits until the API
// server reports them Established, so callers can use the new types right away.
// installCrds() replaces whatever CRD has our name: it is for tests and the demo, on clusters
// of their own. `inv` itself installs through src/core/install/install.ts, which refuses a
// same-named CRD that inv did not write.
import { sleep } from '../concurrency.js';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../package-root.js';
import * as resources from './resources.js';
import { isNotFound, type KubeRest } from './rest.js';

/** The package's crds/ directory (src/core/package-root.ts finds the package). */
export const crdDir = path.join(packageRoot(), 'crds');

interface Crd {
  metadata: { name: string; resourceVersion?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

export function readCrds(dir = crdDir): Crd[] {
  const out: Crd[] = [];
  for (const f of fs.readdirSync(dir).sort()) {
    if (!/\.ya?ml$/.test(f)) continue;
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(dir, f), 'utf8'))) {
      const obj = doc.toJS() as Crd | null;
      if (obj) out.push(obj);
    }
  }
  return out;
}

export async function installCrds(rest: KubeRest, crds = readCrds(), timeoutMs = 30_000): Promise<string[]> {
  for (const crd of crds) {
    const name = crd.metadata.name;
    try {
      const cur = await resources.get<Crd>(rest, 'CustomResourceDefinition', undefined, name);
      await resources.replace(rest, 'CustomResourceDefinition', undefined, name, {
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: cur.metadata.resourceVersion },
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await resources.create(rest, 'CustomResourceDefinition', undefined, crd);
    }
  }
  const names = crds.map((c) => c.metadata.name);
  await waitEstablished(rest, names, timeoutMs);
  return names;
}

/** Waits until the API server reports every named CRD Established (its type is served). */
export async function waitEstablished(rest: KubeRest, names: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const cur = await resources.get<Crd>(rest, 'CustomResourceDefinition', undefined, name, {
        timeoutMs: 10_000,
      });
      if (cur.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
      await sleep(100);
    }
  }
}
