// Pure parts of `inv watch`: duration flags and the event predicates.
import assert from 'node:assert/strict';
import type { StrippedPod } from '../../src/core/inventory/strip.js';
import { parseDurationMs } from '../../src/core/duration.js';
import { parseDuration } from '../../src/core/erase/config/config.js';
import { parseTimeout } from '../../src/core/noderemove/index.js';
import { generationChanged, podBringsNewImage, podChanged } from '../../src/core/watch/predicates.js';

describe('inv watch units', () => {
  it('parses one duration syntax everywhere: explicit units, a bare number refused', () => {
    const d = (s: string) => parseDurationMs(s, '--x');
    assert.equal(d('500ms'), 500);
    assert.equal(d('1m30s'), 90_000);
    assert.equal(d('1.5s'), 1500);
    assert.equal(d('1h'), 3_600_000);
    assert.equal(d('0'), 0);
    assert.throws(() => d('90'), /--x: "90" has no unit: write e\.g\. 90s or 90ms/);
    assert.throws(() => d('5x'), /--x: must be a duration like 500ms/);
    assert.throws(() => d(''), /--x: must be a duration/);
    // The same rules behind the erase configuration (seconds) and node-remove --call-timeout (ms).
    assert.equal(parseDuration('1m30s', 'jobTimeout'), 90);
    assert.throws(() => parseDuration(30, 'jobTimeout'), /jobTimeout: must be a duration with its unit/);
    assert.throws(() => parseDuration('30', 'jobTimeout'), /jobTimeout: "30" has no unit/);
    assert.equal(parseTimeout('750ms'), 750);
    assert.throws(() => parseTimeout('750'), /--call-timeout: "750" has no unit/);
  });

  it('pod predicate: containers, init, ephemeral, owners and deletionTimestamp only', () => {
    const base = (): StrippedPod => ({
      metadata: {
        name: 'p',
        namespace: 'n',
        generation: 1,
        ownerReferences: [{ kind: 'ReplicaSet', name: 'rs', uid: 'u' }],
      },
      spec: { containers: [{ name: 'c', image: 'a:1' }] },
    });
    assert.equal(podChanged(base(), base()), false);
    assert.equal(podChanged(base(), { ...base(), metadata: { ...base().metadata, generation: 2 } }), false);
    const img = base();
    img.spec.containers![0]!.image = 'a:2';
    assert.equal(podChanged(base(), img), true);
    const init = base();
    init.spec.initContainers = [{ name: 'i', image: 'b:1' }];
    assert.equal(podChanged(base(), init), true);
    const eph = base();
    eph.spec.ephemeralContainers = [{ name: 'd', image: 'dbg:1' }];
    assert.equal(podChanged(base(), eph), true);
    const orphan = base();
    delete orphan.metadata.ownerReferences;
    assert.equal(podChanged(base(), orphan), true);
    const dying = base();
    dying.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    assert.equal(podChanged(base(), dying), true);
  });

  it('workload predicate: generation (and deletionTimestamp)', () => {
    const w = (generation?: number, image = 'a', deletionTimestamp?: string) => ({
      metadata: { generation, ...(deletionTimestamp ? { deletionTimestamp } : {}) },
      spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
    });
    assert.equal(generationChanged(w(1), w(1)), false);
    assert.equal(generationChanged(w(1), w(2)), true);
    assert.equal(generationChanged(w(1), w(1, 'a', 'now')), true);
    // Without generations, the stripped template decides.
    assert.equal(generationChanged(w(undefined, 'a'), w(undefined, 'a')), false);
    assert.equal(generationChanged(w(undefined, 'a'), w(undefined, 'b')), true);
  });

  it('priority: a Pod brings a new image only with a valid ref that has no Image yet', () => {
    const pod = (containers: string[], init: string[] = []): StrippedPod => ({
      metadata: { name: 'p', namespace: 'n' },
      spec: {
        containers: containers.map((image, i) => ({ name: `c${i}`, image })),
        initContainers: init.map((image, i) => ({ name: `i${i}`, image })),
      },
    });
    const have = new Set(['docker.io/library/nginx:1.25', 'registry.example.com/app:v1']);
    const has = (ref: string) => have.has(ref);
    // Refs compare normalized: "nginx:1.25" is docker.io/library/nginx:1.25.
    assert.equal(podBringsNewImage(pod(['nginx:1.25', 'registry.example.com/app:v1']), has), false);
    assert.equal(podBringsNewImage(pod(['nginx:1.25'], ['busybox:1']), has), true);
    assert.equal(podBringsNewImage(pod(['nginx:1.26']), has), true);
    // An invalid or empty ref makes no Image: nothing new to wait for.
    assert.equal(podBringsNewImage(pod(['Not A Ref!!', '']), has), false);
  });
});
