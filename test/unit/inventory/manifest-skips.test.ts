// Offline manifests that cannot be used whole: containers whose `image` is not a string (each
// shape YAML and JSON produce), and skipped documents counted instead of kept one by one.
import assert from 'node:assert/strict';
import { parseDocuments } from '../../../src/core/inventory/manifests/parse.js';
import {
  describeSkipped,
  ManifestCollector,
  offlineInventory,
  SKIPPED_DETAILED,
} from '../../../src/core/inventory/manifests/collect.js';

function collect(text: string): ManifestCollector {
  const c = new ManifestCollector('default');
  for (const d of parseDocuments(text, 'f.yaml')) c.add(d.value, 'f.yaml', d.where);
  return c;
}

const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers:
      - name: bad
        image: ${image}
      - name: good
        image: nginx:1.25
`;

describe('offline manifests: containers the rules cannot read', () => {
  const shapes: [string, string, RegExp][] = [
    ['a float', '1.25', /image is a number \(1\.25\), not a string \(quote it\)/],
    ['a boolean', 'true', /image is a boolean \(true\), not a string/],
    ['a date', '2024-01-01', /image is a date \(2024-01-01T00:00:00\.000Z\), not a string/],
    ['a list', '[nginx]', /image is a list, not a string/],
    ['a map', '{repo: nginx}', /image is a map, not a string/],
    ['binary', '!!binary aGVsbG8=', /image is binary data \(5 bytes\), not a string/],
  ];
  for (const [what, yaml, reason] of shapes) {
    it(`skips a container whose image is ${what}, keeps the rest of the document, and names it`, () => {
      const c = collect(deployment(yaml));
      const report = offlineInventory(c.read);
      assert.deepEqual(
        report.images.map((i) => i.image),
        ['docker.io/library/nginx:1.25'],
      );
      assert.equal(c.read.skipped.length, 1);
      const line = describeSkipped(c.read.skipped[0]!);
      assert.match(
        line,
        /^skipped container "bad" of apps\/v1 Deployment web \(f\.yaml: document 1, line 1\): /,
      );
      assert.match(line, reason);
    });
  }

  it('skips a JSON container whose image is a number (125), in every pod-spec place', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'j', image: 125 }], initContainers: [{ name: 'i', image: 'busybox' }] },
    };
    const cron = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj' },
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'k', image: 7 }] } } } } },
    };
    const c = collect(JSON.stringify([pod, cron]));
    const report = offlineInventory(c.read);
    assert.deepEqual(
      report.images.map((i) => i.image),
      ['docker.io/library/busybox:latest'],
    );
    assert.deepEqual(
      c.read.skipped.map((s) => [s.kind, s.container, s.reason]),
      [
        ['Pod', 'j', 'image is a number (125), not a string (quote it)'],
        ['CronJob', 'k', 'image is a number (7), not a string (quote it)'],
      ],
    );
  });

  it('skips lists that are not lists and entries that are not maps, without throwing', () => {
    const c = collect(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [5, null, {name: 3, image: x}, {name: ok, image: redis}]
  initContainers: "abc"
`);
    assert.deepEqual(
      offlineInventory(c.read).images.map((i) => i.image),
      ['docker.io/library/redis:latest'],
    );
    assert.deepEqual(
      c.read.skipped.map((s) => [s.container, s.reason]),
      [
        ['containers[0]', 'the container is a number (5), not a map'],
        ['containers[1]', 'the container is null, not a map'],
        ['containers[2]', 'name is a number (3), not a string'],
        ['initContainers', 'initContainers is a string, not a list'],
      ],
    );
  });
});

describe('offline manifests: skipped documents are counted, not kept', () => {
  it('counts empty documents in one entry and one line', () => {
    const c = collect('--- {}\n'.repeat(10_000) + '---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n');
    assert.equal(c.read.objects, 1);
    assert.equal(c.read.skipped.length, 1);
    assert.equal(c.read.skipped[0]!.count, 10_000);
    assert.equal(
      describeSkipped(c.read.skipped[0]!),
      '10,000 empty documents skipped (f.yaml: the first at document 1, line 1)',
    );
  });

  it('lists the first few of each kind of problem and counts the rest', () => {
    const c = collect('--- {a: 1}\n'.repeat(1000) + '--- 5\n'.repeat(3));
    assert.equal(c.read.skipped.length, SKIPPED_DETAILED + 1 + 3);
    const agg = c.read.skipped.find((s) => s.count !== undefined)!;
    assert.equal(agg.count, 1000 - SKIPPED_DETAILED);
    assert.equal(
      describeSkipped(agg),
      `980 more documents skipped (f.yaml: the first at document ${SKIPPED_DETAILED + 1}, line ${SKIPPED_DETAILED + 1}): no apiVersion or kind`,
    );
    assert.equal(c.read.skipped.filter((s) => /not a Kubernetes object/.test(s.reason)).length, 3);
  });
});
