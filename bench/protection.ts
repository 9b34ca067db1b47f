// Benchmark for the inventory's protection of a `*` prune: the size of the protected set handed
// to the workers for a cluster with 20,000 distinct refs (and how many ConfigMaps carry it), and
// how long a worker takes to read it and decide over 2,000 images (matching every tag and repo
// digest). Pure, in-process. Prints figures; never fails on timing.
import {
  buildProtectedSet,
  packProtectedSet,
  ProtectedIndex,
  unpackProtectedSet,
} from '../src/core/contract/protected-set.js';
import { compileAll, decide } from '../src/core/noderemove/index.js';

const REFS = 20_000;
const IMAGES = 2_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export async function main(): Promise<Record<string, string | number>> {
  const uses = Array.from({ length: REFS }, (_, i) => ({
    namespace: `team-${i % 300}`,
    image:
      i % 4 === 0
        ? `registry.example.com/team${i % 300}/service-${i}@sha256:${i.toString(16).padStart(64, '0')}`
        : `registry.example.com/team${i % 300}/service-${i}:v${i % 7}.${i % 13}.0`,
    kinds: i % 3 ? ['Deployment'] : ['CronJob', 'Pod'],
  }));
  let t0 = process.hrtime.bigint();
  const set = buildProtectedSet(uses);
  const chunks = packProtectedSet(set);
  const buildMs = ms(t0);
  const bytes = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);

  // 2,000 images on the node: every other one is referenced (by tag or by repo digest).
  const images = Array.from({ length: IMAGES }, (_, k) => {
    const i = k * 2;
    const repo = `registry.example.com/team${i % 300}/service-${i}`;
    return {
      id: `sha256:${(k + 1).toString(16).padStart(64, 'f')}`,
      repoTags: [`${repo}:v${i % 7}.${i % 13}.0`, `${repo}:latest`],
      repoDigests: [`${repo}@sha256:${i.toString(16).padStart(64, '0')}`],
      pinned: false,
      size: 50_000_000,
    };
  });
  const runs: number[] = [];
  let kept = 0;
  for (let r = 0; r < 7; r++) {
    t0 = process.hrtime.bigint();
    const index = new ProtectedIndex(unpackProtectedSet(chunks.map((text, i) => ({ name: `c${i}`, text }))));
    const decisions = decide({
      images,
      containers: [],
      targets: ['*'],
      exclusions: compileAll([]),
      sandbox: { determined: true, via: 'status', detail: 'registry.k8s.io/pause:3.9' },
      protection: index,
    });
    runs.push(ms(t0));
    kept = decisions.filter((d) => d.outcome === 'protected').length;
  }
  return {
    'distinct refs': set.size,
    'protected set: bytes handed to workers': bytes,
    'protected set: ConfigMaps': chunks.length,
    'build + pack on the controller (ms)': Math.round(buildMs),
    'worker: read set + decide over 2,000 images, median of 7 (ms) [target well under 1000]': Math.round(
      median(runs),
    ),
    'images kept as protected': kept,
  };
}
