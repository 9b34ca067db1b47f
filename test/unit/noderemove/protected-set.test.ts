// The inventory's protection as pure data: building the reasons, packing into ConfigMap-sized
// chunks and back, matching tags and digests on the worker, the decision it changes (only for
// `*`), the referenced-target warning, node results with protected and bytes, sizes, and how
// often a prune waiting for the set asks again.
import assert from 'node:assert/strict';
import {
  buildProtectedSet,
  CHUNK_BYTES,
  packProtectedSet,
  ProtectedIndex,
  unpackProtectedSet,
} from '../../../src/core/contract/protected-set.js';
import { referencedTargets } from '../../../src/core/erase-request/referenced-targets.js';
import { protectionRetryMs } from '../../../src/core/erase/imagejob/plan.js';
import {
  countResults,
  decodeResult,
  encodeResult,
  resultFromPod,
} from '../../../src/core/contract/results.js';
import { decodeNode, toNodeStatus } from '../../../src/core/erase/api/node-status.js';
import {
  compileAll,
  decide,
  terminationSummary,
  type SandboxGuard,
} from '../../../src/core/noderemove/index.js';
import { bytesFreed } from '../../../src/core/noderemove/types.js';
import { formatBytes } from '../../../src/core/size.js';

const HEX = 'ab'.repeat(32);
const known: SandboxGuard = { determined: true, via: 'status', detail: 'registry.k8s.io/pause:3.9' };

describe('inventory protection (pure)', () => {
  it('folds uses into one reason per normalized ref, naming kinds and namespaces', () => {
    const set = buildProtectedSet([
      { namespace: 'shop', image: 'docker.io/library/nginx:1.25', kinds: ['Deployment'] },
      { namespace: 'web', image: 'nginx:1.25', kinds: ['CronJob', 'Pod'] },
      { namespace: 'a', image: 'redis:7', kinds: ['Job'] },
      { namespace: 'b', image: 'redis:7', kinds: ['Job'] },
      { namespace: 'c', image: 'redis:7', kinds: ['Job'] },
      { namespace: 'd', image: 'redis:7', kinds: ['Job'] },
      { namespace: 'x', image: 'Bad/Ref', kinds: ['Pod'] },
    ]);
    assert.deepEqual(
      [...set],
      [
        ['docker.io/library/nginx:1.25', 'referenced by CronJob in web, Deployment in shop, Pod in web'],
        ['docker.io/library/redis:7', 'referenced by Job in a, Job in b, Job in c and 1 more'],
      ],
    );
  });

  it('packs 20,000 refs into ConfigMap-sized chunks and reads them back', () => {
    const uses = Array.from({ length: 20_000 }, (_, i) => ({
      namespace: `team-${i % 300}`,
      image: `registry.example.com/team${i % 300}/service-${i}:v${i % 7}.${i % 13}.0`,
      kinds: ['Deployment', 'Pod'],
    }));
    const set = buildProtectedSet(uses);
    const chunks = packProtectedSet(set);
    const bytes = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
    process.stderr.write(`      (20,000 refs: ${chunks.length} ConfigMaps, ${bytes} bytes in all)\n`);
    assert.ok(chunks.length >= 2);
    for (const c of chunks) assert.ok(Buffer.byteLength(c) <= CHUNK_BYTES);
    const back = unpackProtectedSet(chunks.map((text, i) => ({ name: `c${i}`, text })));
    assert.deepEqual([...back], [...set]);
    assert.throws(
      () => unpackProtectedSet([{ name: 'x', text: '{"v":2,"refs":[]}' }]),
      /x: not a protected-image list/,
    );
    assert.throws(() => unpackProtectedSet([{ name: 'y', text: 'nope' }]), /y: not JSON/);
  });

  it('matches every tag and repo digest of an image; a tag+digest ref protects by either', () => {
    const idx = new ProtectedIndex(
      new Map([
        ['docker.io/library/nginx:1.25', 'r1'],
        [`docker.io/library/app@sha256:${HEX}`, 'r2'],
        [`quay.io/org/tool:2@sha256:${'cd'.repeat(32)}`, 'r3'],
      ]),
    );
    assert.equal(idx.reasonFor(['docker.io/library/nginx:1.25']), 'r1');
    assert.equal(idx.reasonFor(['docker.io/library/nginx:1.26']), undefined);
    assert.equal(idx.reasonFor([`docker.io/library/app@sha256:${HEX}`]), 'r2');
    assert.equal(idx.reasonFor(['quay.io/org/tool:2']), 'r3');
    assert.equal(idx.reasonFor([`quay.io/org/tool@sha256:${'cd'.repeat(32)}`]), 'r3');
  });

  it('keeps protected images only for *, after in-use/pinned/excluded; a targeted removal goes ahead', () => {
    const images = [
      {
        id: `sha256:${'1'.repeat(64)}`,
        repoTags: ['docker.io/library/nginx:1.25'],
        repoDigests: [],
        pinned: false,
        size: 100,
      },
      {
        id: `sha256:${'2'.repeat(64)}`,
        repoTags: [],
        repoDigests: [`docker.io/library/app@sha256:${HEX}`],
        pinned: false,
        size: 200,
      },
      {
        id: `sha256:${'3'.repeat(64)}`,
        repoTags: ['docker.io/library/old:1'],
        repoDigests: [],
        pinned: false,
        size: 300,
      },
      { id: `sha256:${'4'.repeat(64)}`, repoTags: ['nginx:1.25'], repoDigests: [], pinned: true, size: 400 },
    ];
    const protection = new ProtectedIndex(
      new Map([
        ['docker.io/library/nginx:1.25', 'referenced by Deployment in shop'],
        [`docker.io/library/app@sha256:${HEX}`, 'referenced by CronJob in batch'],
      ]),
    );
    const run = (targets: string[]) =>
      decide({ images, containers: [], targets, exclusions: compileAll([]), sandbox: known, protection }).map(
        (d) => [d.imageId.slice(7, 8), d.outcome, d.detail, d.size],
      );
    assert.deepEqual(run(['*']), [
      ['1', 'protected', 'referenced by Deployment in shop', 100],
      ['2', 'protected', 'referenced by CronJob in batch', 200],
      ['3', 'remove', '', 300],
      ['4', 'pinned', 'pinned by the runtime', 400],
    ]);
    assert.deepEqual(
      run(['nginx:1.25']).map((d) => d[1]),
      ['remove', 'pinned'],
    );
  });

  it('names the users of targeted images from the Image resources', () => {
    const image = (ns: string, ref: string, users: string[]) => ({
      metadata: { name: 'x', namespace: ns },
      spec: { image: ref },
      status: { kinds: 'Deployment', users },
    });
    const found = referencedTargets(
      ['nginx:1.25', `app@sha256:${HEX}`, 'redis:7', 'sha256:' + HEX],
      [
        image('shop', 'docker.io/library/nginx:1.25', ['Deployment/web']),
        image('web', 'docker.io/library/nginx:1.25', ['CronJob/nightly', 'Pod/debug']),
        image('a', `docker.io/library/app:2@sha256:${HEX}`, ['Job/once']),
        image('b', 'docker.io/library/redis:6', ['Deployment/cache']),
      ],
    );
    assert.deepEqual(found, [
      {
        target: 'nginx:1.25',
        users: ['Deployment/web in shop', 'CronJob/nightly in web', 'Pod/debug in web'],
      },
      { target: `app@sha256:${HEX}`, users: ['Job/once in a'] },
    ]);
  });

  it('carries protected counts and bytes from the worker summary to the node result and the job', () => {
    const results = [
      {
        target: '*',
        imageId: 'sha256:1',
        aliases: [],
        size: 1000,
        outcome: 'removed' as const,
        error: '',
        detail: '',
      },
      {
        target: 'x',
        imageId: 'sha256:1',
        aliases: [],
        size: 1000,
        outcome: 'removed' as const,
        error: '',
        detail: '',
      },
      {
        target: '*',
        imageId: 'sha256:2',
        aliases: [],
        size: 5,
        outcome: 'protected' as const,
        error: '',
        detail: 'referenced by Pod in a',
      },
    ];
    assert.equal(bytesFreed(results), 1000, 'one image counted once');
    const summary = terminationSummary({
      node: 'n1',
      runtime: { name: 'containerd', version: '2', apiVersion: 'v1' },
      results,
    });
    assert.match(summary, /"e":"referenced by Pod in a"/);
    const r = resultFromPod('n1', { phase: 'Succeeded', message: summary });
    // Two targets matched sha256:1: one image removed, counted once (as its bytes are).
    assert.deepEqual([r.removed, r.protected, r.bytes], [1, 1, 1000]);
    assert.deepEqual(decodeNode(toNodeStatus(r)), r);
    assert.deepEqual(decodeResult(encodeResult(r)), r);
    // A line written before protected and bytes existed still reads.
    assert.deepEqual(decodeResult('n2|Succeeded|3|1|0|0|'), {
      ...r,
      node: 'n2',
      removed: 3,
      inUse: 1,
      protected: 0,
      bytes: 0,
      reason: '',
    });
    assert.throws(() => decodeResult('n|Succeeded|1|2'), /malformed/);
    const c = countResults([r, { ...r, node: 'n3', bytes: 24 }]);
    assert.deepEqual([c.removed, c.protected, c.bytes], [2, 2, 1024]);
    assert.equal(formatBytes(3_200_000_000), '3.2 GB');
    assert.equal(formatBytes(999), '999 B');
  });
});

describe('a prune waiting for its protected set', () => {
  it('asks the cache every 5 s, and a fresh scan less often the longer it waits (5 s to a minute)', () => {
    assert.equal(protectionRetryMs(0, false), 5000);
    assert.equal(protectionRetryMs(3_600_000, false), 5000);
    assert.equal(protectionRetryMs(0, true), 5000);
    assert.equal(protectionRetryMs(49_000, true), 5000);
    assert.equal(protectionRetryMs(120_000, true), 12_000);
    assert.equal(protectionRetryMs(3_600_000, true), 60_000);
    // An hour blocked: at most one scan a minute once it has waited 10 minutes.
    let t = 0;
    let scans = 0;
    while (t < 3_600_000) {
      t += protectionRetryMs(t, true);
      scans++;
    }
    assert.ok(scans < 150, `${scans} scans in an hour`);
  });
});
