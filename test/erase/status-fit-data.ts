// The data and set-up of the status-size test (status-fit.test.ts): a worker's termination
// summary at its largest honest size (every count and field a node's result is made of, about
// 3.8 KB with its rows), different on every node; a list of targets of 1 MB (just under the limit
// of list-limits.ts); an ImageJob carrying it; what the controller's status writer is handed;
// the ImageJob CRD's status schema, to install older or stricter variants.
import { MAX_TARGETS_BYTES } from '../../src/core/erase/api/list-limits.js';
import { DEFAULT_CONFIG } from '../../src/core/erase/config/config.js';
import { IMAGEJOBS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';
import type { JobContext } from '../../src/core/erase/imagejob/context.js';
import { RestReader } from '../../src/core/erase/cluster/reader.js';
import { readCrds } from '../../src/core/kube/crd-install.js';
import { noopLogger } from '../../src/core/observability/logger.js';
import type { EraseEnv } from './helpers.js';

/** An ImageJob named `name` carrying `images`, created directly (no list, no controller). */
export function createJob(env: EraseEnv, name: string, images: string[]): Promise<ImageJob> {
  return env.rest.request<ImageJob>('POST', IMAGEJOBS_PATH, {
    body: {
      apiVersion: 'erase.imageinventory.dev/v1alpha1',
      kind: 'ImageJob',
      metadata: { name },
      spec: {
        imageList: { name, uid: '00000000-0000-0000-0000-000000000000', generation: 1 },
        namespace: env.namespace,
        images,
        config: DEFAULT_CONFIG,
      },
    },
  });
}

/** What the status writer (pass.ts) and failRefused use of a JobContext. */
export const statusContext = (env: EraseEnv): JobContext =>
  ({
    rest: env.rest,
    reader: { wrote: () => undefined },
    direct: new RestReader(env.rest),
    now: () => new Date(),
    log: noopLogger,
    resyncMs: 1000,
  }) as unknown as JobContext;

interface Crd {
  metadata: { name: string };
  spec: {
    versions: {
      schema: {
        openAPIV3Schema: { properties: { status: { properties: Record<string, Record<string, unknown>> } } };
      };
    }[];
  };
}

/** The shipped ImageJob CRD, a copy to change. */
export const imageJobCrd = (): Crd =>
  readCrds().find((c) => c.metadata.name === 'imagejobs.erase.imageinventory.dev') as unknown as Crd;

export const statusSchema = (crd: Crd) =>
  crd.spec.versions[0]!.schema.openAPIV3Schema.properties.status.properties;

/** Targets whose JSON takes just under MAX_TARGETS_BYTES. */
export function oneMegabyteList(): string[] {
  const out: string[] = [];
  let bytes = 1;
  for (let i = 0; ; i++) {
    const ref = `registry.example.com/team-${i % 97}/app-${String(i).padStart(6, '0')}:v1.${i % 1000}.${'x'.repeat(40)}`;
    if (bytes + ref.length + 3 > MAX_TARGETS_BYTES - 100) return out;
    out.push(ref);
    bytes += ref.length + 3;
  }
}

/**
 * Node `i`'s summary: counts of thousands, a threshold run's file system and a scan's head (so
 * every field of a node's result is set), about 1.9 TB freed (5,000 such nodes sum past 2^53),
 * and rows up to 3.8 KB; every 50th node failed one target, with a long error.
 */
export function honestReport(node: string, i: number): string {
  const failed = i % 50 === 0;
  const rows: object[] = [];
  if (failed)
    rows.push({
      t: `registry.example.com/team-${i % 97}/app:v1`,
      i: `sha256:${'ab'.repeat(32)}`,
      o: 'failed',
      e: `rpc error: code = Unknown desc = failed to remove image: image is referenced by a container being created on ${node} ${'.'.repeat(60)}`,
    });
  const summary = {
    node,
    runtime: 'containerd 1.7.27',
    counts: {
      removed: 1000 + (i % 997),
      'in-use': 200 + (i % 89),
      pinned: 3,
      'sandbox-image': 1,
      excluded: 40 + (i % 31),
      protected: 3000 + (i % 1009),
      'below-threshold': 10 + (i % 7),
      'recently-unused': 20 + (i % 11),
      'not-present': 500 + (i % 83),
      failed: failed ? 1 : 0,
      'vulnerable-kept': 5 + (i % 5),
      clean: 100 + (i % 53),
    },
    bytes: 1_900_000_000_000 + i * 104_729,
    scan: { c: 1300, v: 12 + (i % 9), k: 5 + (i % 5), n: 4000 + (i % 977), s: 'CRITICAL', ms: 95_000 + i },
    fs: { u: 800_000_000_000 + i * 7, c: 1_000_000_000_000, a: 690_000_000_000 + i * 3 },
    results: rows,
  };
  for (let r = 0; JSON.stringify(summary).length < 3700; r++)
    rows.push({
      t: `registry.example.com/team-${r}/app-${i}:v${r}`,
      i: `sha256:${(i * 1_000_003 + r).toString(16).padStart(64, '0')}`,
      o: 'removed',
      n: [`registry.example.com/team-${r}/app-${i}:v${r}`],
      s: 1_500_000_000 + r,
    });
  return JSON.stringify(summary);
}
