// Image string fields of declared source kinds: the path grammar (refused at load, with the entry
// named), the extraction on hostile input (deep nesting, huge lists, values that are not strings,
// very long strings), the stripped form reading the same as the whole object, and the rules
// crediting what the fields name. Cluster-scoped entries: their objects count in the namespace
// the entry names, their collection is the cluster's, and install's rules cover them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  imagesAt,
  IMAGE_FIELD_LIMITS,
  parseImageFieldPath,
  projectImageFields,
} from '../../../src/core/inventory/image-fields.js';
import { parseSourceKinds } from '../../../src/core/inventory/declared-kinds.js';
import { desiredImages, usersStatus } from '../../../src/core/inventory/rules.js';
import { SourceKinds } from '../../../src/core/inventory/source-kinds.js';
import { collectionPath, stripFor } from '../../../src/core/inventory/sources.js';
import { sourceKindRules } from '../../../src/core/install/source-kinds.js';
import { blockingNamespaces } from '../../../src/core/erase/worker/blocking-namespaces.js';
import { MAX_REFERENCE_LENGTH } from '../../../src/core/refs/normalize.js';
import type { RawObject } from '../../../src/core/inventory/strip.js';
import { repoRoot } from '../../support/paths.js';

const file = (entries: string) =>
  `apiVersion: cli.imageinventory.dev/v1\nkind: SourceKinds\nkinds:\n${entries}`;
const load = (entries: string) => parseSourceKinds(file(entries), 'kinds.yaml');
const TASK = '  - { group: tekton.dev, version: v1, kind: Task, imageFields: [%] }\n';
const task = (paths: string) => load(TASK.replace('%', paths));

describe('image field paths', () => {
  it('parses the grammar: fields, and [*] for each element of a list', () => {
    assert.deepEqual(parseImageFieldPath('spec.image').steps, [{ field: 'spec' }, { field: 'image' }]);
    assert.deepEqual(parseImageFieldPath('spec.cacheSpec[*].images[*]').steps, [
      { field: 'spec' },
      { field: 'cacheSpec' },
      { each: true },
      { field: 'images' },
      { each: true },
    ]);
    assert.deepEqual(parseImageFieldPath('spec.matrix[*][*]').steps.length, 4);
  });

  it('refuses bad paths at load, naming the entry and what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['spec.steps[].image', /field 2 "steps\[\]": only \[\*\] .* may follow a name, not "\[\]"/],
      ['spec..image', /field 2 "" has no name/],
      ['spec.steps[0].image', /only \[\*\]/],
      ['spec.steps[*]x', /not "x"/],
      ['[*].image', /field 1 "\[\*\]" has no name/],
      ['spec.im-age', /"im-age" is not a field name/],
      ['spec.__proto__.image', /"__proto__" is not allowed/],
      ['metadata.annotations', /metadata holds no images/],
      ['spec.a[*].b[*].c[*].d[*].e[*]', /more than 4 \[\*\]/],
      [Array.from({ length: 17 }, () => 'a').join('.'), /more than 16 fields/],
    ];
    for (const [p, want] of cases) {
      assert.throws(
        () => task(JSON.stringify(p)),
        (e: Error) =>
          e.message.startsWith('kinds.yaml: kinds[0] (Task.tekton.dev): image field path') &&
          want.test(e.message),
        p,
      );
    }
    assert.throws(
      () => task(JSON.stringify('x'.repeat(IMAGE_FIELD_LIMITS.maxLength + 1))),
      /must NOT have more than 256/,
    );
    assert.throws(() => task('""'), /must NOT have fewer than 1/);
  });

  it('refuses a cluster-scoped entry without its namespace, and a namespace without the scope', () => {
    const base =
      '  - { group: tekton.dev, version: v1beta1, kind: ClusterTask, imageFields: ["spec.steps[*].image"]';
    assert.throws(
      () => load(`${base}, scope: Cluster }\n`),
      /ClusterTask\.tekton\.dev\): a cluster-scoped kind needs namespace/,
    );
    assert.throws(() => load(`${base}, namespace: ci }\n`), /namespace is only for a cluster-scoped kind/);
    assert.throws(
      () => load(`${base}, scope: Cluster, namespace: ci, workloadRefs: [spec.ref] }\n`),
      /cannot have workloadRefs/,
    );
    assert.throws(
      () => load(`${base}, scope: Cluster, namespace: Not_A_Name }\n`),
      /namespace must match pattern/,
    );
    const [k] = load(`${base}, scope: Cluster, namespace: ci }\n`);
    assert.equal(k!.namespace, 'ci');
  });
});

describe('imagesAt', () => {
  const at = (o: unknown, p: string) => imagesAt(o, parseImageFieldPath(p));

  it('names each string a path reaches, with its place', () => {
    const o = { spec: { steps: [{ image: 'a:1' }, { name: 'no-image' }, null, { image: 'b:1' }] } };
    assert.deepEqual(at(o, 'spec.steps[*].image'), [
      { at: 'spec.steps[0].image', image: 'a:1' },
      { at: 'spec.steps[3].image', image: 'b:1' },
    ]);
    assert.deepEqual(at({ spec: { images: ['x', 'y'] } }, 'spec.images[*]'), [
      { at: 'spec.images[0]', image: 'x' },
      { at: 'spec.images[1]', image: 'y' },
    ]);
    assert.deepEqual(at({}, 'spec.image'), []);
    assert.deepEqual(at({ spec: null }, 'spec.image'), []);
  });

  it('reports values of the wrong shape at their place, without walking into them', () => {
    assert.deepEqual(at({ spec: { image: 1.25 } }, 'spec.image'), [
      { at: 'spec.image', problem: 'spec.image is a number (1.25), not a string' },
    ]);
    assert.deepEqual(at({ spec: { image: new Date(0) } }, 'spec.image'), [
      { at: 'spec.image', problem: 'spec.image is a date (1970-01-01T00:00:00.000Z), not a string' },
    ]);
    assert.deepEqual(at({ spec: { steps: { image: 'a' } } }, 'spec.steps[*].image'), [
      { at: 'spec.steps', problem: 'spec.steps is a map, not a list' },
    ]);
    assert.deepEqual(at({ spec: { steps: ['a'] } }, 'spec.steps[*].image'), [
      { at: 'spec.steps[0]', problem: 'spec.steps[0] is a string, not a map' },
    ]);
    assert.deepEqual(at({ spec: { images: [['nested']] } }, 'spec.images[*]'), [
      { at: 'spec.images[0]', problem: 'spec.images[0] is a list, not a string' },
    ]);
    // A prototype's fields are not the object's.
    assert.deepEqual(at({ spec: {} }, 'spec.toString'), []);
  });

  it('stays linear on hostile input: deep nesting, a huge list, a very long string', () => {
    let deep: unknown = 'img:1';
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const o = { spec: { deep, images: Array.from({ length: 200_000 }, (_, i) => `r/i:${i}`) } };
    const t = Date.now();
    assert.equal(at(o, 'spec.images[*]').length, 200_000);
    // Only as deep as the path: the nesting below is never walked.
    assert.deepEqual(at(o, 'spec.deep.a.a'), [
      { at: 'spec.deep.a.a', problem: 'spec.deep.a.a is a map, not a string' },
    ]);
    assert.ok(Date.now() - t < 2000, `${Date.now() - t} ms`);
    const long = 'r/'.padEnd(10_000_000, 'a');
    assert.equal(at({ spec: { image: long } }, 'spec.image')[0]!.image!.length, 10_000_000);
  });

  it('reads the stripped form exactly as the whole object, and keeps no long string', () => {
    const paths = ['spec.steps[*].image', 'spec.sidecars[*].image', 'spec.images[*]', 'spec.image'].map(
      parseImageFieldPath,
    );
    const o = {
      spec: {
        steps: [
          { image: 'a', script: 'x'.repeat(1000) },
          { image: 7 },
          null,
          { image: 'r/'.padEnd(100_000, 'b') },
        ],
        sidecars: 'not a list',
        images: [true, 'c', {}],
        image: { nested: 'map' },
        unrelated: { big: 'y'.repeat(10_000) },
      },
    };
    const out: Record<string, unknown> = {};
    projectImageFields(o, paths, out);
    for (const p of paths) {
      const whole = imagesAt(o, p).map((f) =>
        f.image === undefined ? f : { ...f, image: f.image.slice(0, MAX_REFERENCE_LENGTH + 1) },
      );
      assert.deepEqual(imagesAt(out, p), whole, p.text);
    }
    assert.ok(JSON.stringify(out).length < MAX_REFERENCE_LENGTH + 500, JSON.stringify(out).slice(0, 200));
  });
});

describe('declared kinds with image fields', () => {
  const kinds = load(
    [
      '  - { group: kubefledged.io, version: v1alpha2, kind: ImageCache, plural: imagecaches, imageFields: ["spec.cacheSpec[*].images[*]"] }',
      '  - { group: apps.kruise.io, version: v1alpha1, kind: ImagePullJob, plural: imagepulljobs, imageFields: [spec.image] }',
      '  - { group: tekton.dev, version: v1beta1, kind: ClusterTask, plural: clustertasks, scope: Cluster, namespace: ci, imageFields: ["spec.steps[*].image"] }',
      '',
    ].join('\n'),
  );
  const sk = new SourceKinds(kinds);
  const [cache, pull, clusterTask] = kinds as [never, never, (typeof kinds)[number]];

  it('credits the images to the kind and the object (status.users), and reports bad ones', () => {
    const objs = {
      'ImageCache.kubefledged.io': [
        stripFor(cache)({
          metadata: { name: 'warm', namespace: 'ns' },
          spec: {
            cacheSpec: [
              { images: ['nginx:1.27', 'docker.io/library/redis:7'] },
              { images: ['nginx:1.27', 'BAD IMAGE'] },
            ],
          },
        } as RawObject),
      ],
      'ImagePullJob.apps.kruise.io': [
        stripFor(pull)({
          metadata: { name: 'job', namespace: 'ns' },
          spec: { image: 'nginx:1.27' },
        } as RawObject),
        stripFor(pull)({ metadata: { name: 'odd', namespace: 'ns' }, spec: { image: 42 } } as RawObject),
      ],
    };
    const d = desiredImages('ns', objs, sk);
    assert.deepEqual([...d.images.keys()].sort(), [
      'docker.io/library/nginx:1.27',
      'docker.io/library/redis:7',
    ]);
    assert.deepEqual([...d.images.get('docker.io/library/nginx:1.27')!].sort(), [
      'ImageCache',
      'ImagePullJob',
    ]);
    assert.deepEqual(usersStatus(d.users.get('docker.io/library/nginx:1.27')).users, [
      'ImageCache/warm',
      'ImagePullJob/job',
    ]);
    assert.deepEqual(
      d.invalid.map((i) => [i.source, i.container, i.field, i.reason.split(':')[0]]),
      [
        ['ImageCache/warm', 'spec.cacheSpec[1].images[1]', true, d.invalid[0]!.reason.split(':')[0]],
        ['ImagePullJob/odd', 'spec.image', true, 'spec.image is a number (42), not a string'],
      ],
    );
  });

  it('a cluster-scoped kind: one collection, its objects in the namespace the entry names', () => {
    assert.equal(collectionPath(clusterTask), '/apis/tekton.dev/v1beta1/clustertasks');
    assert.equal(collectionPath(clusterTask, 'ci'), '/apis/tekton.dev/v1beta1/clustertasks');
    const o = stripFor(clusterTask)({
      metadata: { name: 'build' },
      spec: { steps: [{ image: 'golang:1.23' }] },
    } as RawObject);
    assert.equal(o.metadata.namespace, 'ci');
    const d = desiredImages('ci', { 'ClusterTask.tekton.dev': [o] }, sk);
    assert.deepEqual([...d.users.get('docker.io/library/golang:1.23')!], ['ClusterTask/build']);
  });

  it("a failed LIST of a cluster-scoped kind names no namespace as blocking the prune's protected set", async () => {
    // Probing each namespace would list the one collection again, once per namespace.
    assert.deepEqual(await blockingNamespaces(undefined as never, clusterTask), []);
  });

  it("install's rules grant list and watch on every declared kind, cluster-scoped ones included", () => {
    assert.deepEqual(sourceKindRules(kinds), [
      { apiGroups: ['kubefledged.io'], resources: ['imagecaches'], verbs: ['list', 'watch'] },
      { apiGroups: ['apps.kruise.io'], resources: ['imagepulljobs'], verbs: ['list', 'watch'] },
      { apiGroups: ['tekton.dev'], resources: ['clustertasks'], verbs: ['list', 'watch'] },
    ]);
  });
});

describe('the docs of image fields', () => {
  it("state the grammar's limits as the code has them", () => {
    const text = fs.readFileSync(path.join(repoRoot, 'docs', 'inventory.md'), 'utf8').replace(/\s+/g, ' ');
    const { maxLength, maxSegments, maxWildcards } = IMAGE_FIELD_LIMITS;
    assert.ok(
      text.includes(
        `At most ${maxLength} characters, ${maxSegments} fields and ${maxWildcards} \`[*]\` per path`,
      ),
      'docs/inventory.md, "Image fields and cluster-scoped kinds": the limits',
    );
    assert.ok(text.includes(`longer than a reference can be (${MAX_REFERENCE_LENGTH} characters)`));
  });
});
