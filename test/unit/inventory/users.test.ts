// Pure: who the rules credit (status.users), and the image report's filters and groups.
import assert from 'node:assert/strict';
import { desiredImages, usersStatus, USERS_CAP } from '../../../src/core/inventory/rules.js';
import type { NamespaceObjects } from '../../../src/core/inventory/source-fields.js';
import { compileExclusion } from '../../../src/core/refs/exclusion.js';
import { filterUses, groupUses, registryOf, type ImageUse } from '../../../src/core/report/image-report.js';

const empty = (): NamespaceObjects => ({
  deployments: [],
  statefulSets: [],
  daemonSets: [],
  cronJobs: [],
  jobs: [],
  pods: [],
});
const spec = (image: string) => ({ containers: [{ name: 'c', image }] });

describe('image users', () => {
  it('credit users as the rules credit kinds: CronJob for its Jobs, owned Pods only through ephemeral containers', () => {
    const objs = empty();
    objs.deployments!.push({
      metadata: { name: 'web' },
      spec: { template: { spec: spec('app:1') } },
    } as never);
    objs.cronJobs!.push({
      metadata: { name: 'nightly', uid: 'cj1' },
      spec: { jobTemplate: { spec: { template: { spec: spec('app:1') } } } },
    } as never);
    objs.jobs!.push({
      metadata: { name: 'nightly-1', ownerReferences: [{ kind: 'CronJob', name: 'nightly', uid: 'cj1' }] },
      spec: { template: { spec: spec('app:1') } },
    } as never);
    objs.pods!.push({
      metadata: { name: 'web-x', ownerReferences: [{ kind: 'ReplicaSet', name: 'web-1', uid: 'r' }] },
      spec: { ...spec('app:1'), ephemeralContainers: [{ name: 'dbg', image: 'debug:1' }] },
    } as never);
    objs.pods!.push({ metadata: { name: 'naked' }, spec: spec('app:1') } as never);
    objs.replicaSets = [
      {
        metadata: {
          name: 'web-1',
          uid: 'r',
          ownerReferences: [{ kind: 'Deployment', name: 'web', controller: true }],
        },
      },
    ];
    const d = desiredImages('ns', objs);
    assert.deepEqual(usersStatus(d.users.get('docker.io/library/app:1')), {
      users: ['CronJob/nightly', 'Deployment/web', 'Pod/naked'],
      userCount: 3,
    });
    assert.deepEqual(usersStatus(d.users.get('docker.io/library/debug:1')).users, ['Pod/web-x']);
  });

  it(`caps users at ${USERS_CAP}, sorted, with the true count`, () => {
    const many = Array.from({ length: 50 }, (_, i) => `Pod/p${String(i).padStart(2, '0')}`).reverse();
    const s = usersStatus(many);
    assert.equal(s.userCount, 50);
    assert.deepEqual(s.users, many.slice().sort().slice(0, USERS_CAP));
  });
});

describe('image report', () => {
  const uses: ImageUse[] = [
    {
      namespace: 'a',
      image: 'docker.io/bitnami/redis:7',
      kinds: ['Deployment'],
      users: ['Deployment/cache'],
      userCount: 1,
    },
    { namespace: 'b', image: 'docker.io/bitnami/redis:7', kinds: ['Pod'], users: ['Pod/tool'], userCount: 1 },
    {
      namespace: 'b',
      image: 'quay.io/org/app:1',
      kinds: ['Deployment', 'Pod'],
      users: ['Deployment/x', 'Pod/y'],
      userCount: 2,
    },
    {
      namespace: 'a',
      image: 'registry.example.com:5000/team/api:2',
      kinds: ['Job'],
      users: ['Job/j'],
      userCount: 1,
    },
  ];
  const glob = (p: string) => {
    const c = compileExclusion(p);
    assert.ok(c.ok);
    return c.matcher;
  };

  it('filters by image glob (short or full), registry and kind', () => {
    assert.deepEqual(
      filterUses(uses, { image: glob('bitnami/*') }).map((u) => u.namespace),
      ['a', 'b'],
    );
    assert.deepEqual(filterUses(uses, { image: glob('docker.io/bitnami/*') }).length, 2);
    assert.deepEqual(
      filterUses(uses, { registry: 'registry.example.com:5000' }).map((u) => u.image),
      ['registry.example.com:5000/team/api:2'],
    );
    const pods = filterUses(uses, { kinds: ['Pod'] });
    assert.deepEqual(
      pods.map((u) => [u.image, u.users, u.userCount]),
      [
        ['docker.io/bitnami/redis:7', ['Pod/tool'], 1],
        ['quay.io/org/app:1', ['Pod/y'], 1],
      ],
    );
    assert.equal(registryOf('docker.io/library/nginx:1'), 'docker.io');
  });

  it('groups by image, namespace and registry with counts', () => {
    const byImage = groupUses(uses, 'image');
    assert.equal(byImage.by, 'image');
    assert.deepEqual(
      byImage.rows.map((r) => [r.image, r.userCount, r.namespaces.map((n) => n.namespace)]),
      [
        ['docker.io/bitnami/redis:7', 2, ['a', 'b']],
        ['quay.io/org/app:1', 2, ['b']],
        ['registry.example.com:5000/team/api:2', 1, ['a']],
      ],
    );
    assert.deepEqual(groupUses(uses, 'namespace').rows, [
      { namespace: 'a', images: 2, registries: 2, userCount: 2 },
      { namespace: 'b', images: 2, registries: 2, userCount: 3 },
    ]);
    assert.deepEqual(groupUses(uses, 'registry').rows, [
      { registry: 'docker.io', images: 1, namespaces: 2, userCount: 2 },
      { registry: 'quay.io', images: 1, namespaces: 1, userCount: 2 },
      { registry: 'registry.example.com:5000', images: 1, namespaces: 1, userCount: 1 },
    ]);
  });
});
