// The source-to-kinds rules, one test per rule of the shared spec (seed-inventory-controller.md):
// what each source kind's template credits, the Jobs a live CronJob covers, naked and owned Pods,
// deleted objects, the invalid refs reported and kindsString. The kinds credited to owners that
// are not source kinds, and ReplicationController, are in rules-owners.test.ts; the shared
// builders in rules-fixtures.ts.
import type * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { desiredImages, kindsString, type InvalidRef } from '../../../src/core/inventory/rules.js';
import type {
  Kind,
  NamespaceObjects,
  ObjectMeta,
  PodSpec,
} from '../../../src/core/inventory/source-fields.js';
import { c, cronJob, kinds, lib, meta, NS, objs, pod, rsOwned, spec, workload } from './rules-fixtures.js';

const DELETED = '2025-01-01T00:00:00Z';

const cronOwned = (cronName: string, uid?: string) => ({
  ownerReferences: [
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      name: cronName,
      controller: true,
      ...(uid === undefined ? {} : { uid }),
    },
  ],
});

describe('desiredImages', () => {
  it('credits Deployment, StatefulSet and DaemonSet templates (containers + init) to their kind', () => {
    assert.deepEqual(
      kinds({
        deployments: [workload('web', spec(['nginx:1.25'], ['busybox']))],
        statefulSets: [workload('db', spec(['postgres:16'], ['busybox']))],
        daemonSets: [workload('agent', spec(['fluent/fluent-bit:3']))],
      }),
      {
        [lib('nginx:1.25')]: 'Deployment',
        [lib('busybox:latest')]: 'Deployment,StatefulSet',
        [lib('postgres:16')]: 'StatefulSet',
        'docker.io/fluent/fluent-bit:3': 'DaemonSet',
      },
    );
  });

  it('counts templates at 0 replicas (replicas are not even read)', () => {
    const d = workload('scaled-down', spec(['nginx']));
    (d.spec as { replicas?: number }).replicas = 0;
    assert.deepEqual(kinds({ deployments: [d] }), { [lib('nginx:latest')]: 'Deployment' });
  });

  it('includes ephemeral containers of a workload template when present', () => {
    assert.deepEqual(kinds({ deployments: [workload('web', spec(['nginx'], [], ['busybox:debug']))] }), {
      [lib('nginx:latest')]: 'Deployment',
      [lib('busybox:debug')]: 'Deployment',
    });
  });

  it('credits the CronJob jobTemplate to CronJob', () => {
    assert.deepEqual(kinds({ cronJobs: [cronJob('backup', spec(['restic/restic:0.17'], ['alpine']))] }), {
      'docker.io/restic/restic:0.17': 'CronJob',
      [lib('alpine:latest')]: 'CronJob',
    });
  });

  it('credits a Job without a CronJob owner to Job', () => {
    assert.deepEqual(kinds({ jobs: [workload('migrate', spec(['app:migrate'], ['wait:1']))] }), {
      [lib('app:migrate')]: 'Job',
      [lib('wait:1')]: 'Job',
    });
  });

  describe('Job owned by a CronJob', () => {
    const cj = cronJob('backup', spec(['restic']), { uid: 'cj-uid' });
    const job = (extra: Partial<ObjectMeta>) =>
      workload('backup-28000000', spec(['restic', 'job-only:1']), extra);

    it('is skipped when the live CronJob has the same uid', () => {
      assert.deepEqual(kinds({ cronJobs: [cj], jobs: [job(cronOwned('backup', 'cj-uid'))] }), {
        [lib('restic:latest')]: 'CronJob',
      });
    });
    it('is skipped when the ownerRef uid is empty or missing', () => {
      for (const uid of ['', undefined]) {
        assert.deepEqual(kinds({ cronJobs: [cj], jobs: [job(cronOwned('backup', uid))] }), {
          [lib('restic:latest')]: 'CronJob',
        });
      }
    });
    it('is credited to Job when the uid is stale (CronJob recreated): both kinds', () => {
      assert.deepEqual(kinds({ cronJobs: [cj], jobs: [job(cronOwned('backup', 'old-uid'))] }), {
        [lib('restic:latest')]: 'CronJob,Job',
        [lib('job-only:1')]: 'Job',
      });
    });
    it('is credited to Job when the live CronJob has no uid but the ownerRef does', () => {
      const noUid = cronJob('backup', spec(['restic']));
      assert.deepEqual(kinds({ cronJobs: [noUid], jobs: [job(cronOwned('backup', 'cj-uid'))] }), {
        [lib('restic:latest')]: 'CronJob,Job',
        [lib('job-only:1')]: 'Job',
      });
    });
    it('is credited to Job when the CronJob is missing', () => {
      assert.deepEqual(kinds({ jobs: [job(cronOwned('backup', 'cj-uid'))] }), {
        [lib('restic:latest')]: 'Job',
        [lib('job-only:1')]: 'Job',
      });
      assert.deepEqual(
        kinds({
          cronJobs: [cronJob('other', spec(['x']), { uid: 'cj-uid' })],
          jobs: [job(cronOwned('backup'))],
        }),
        {
          [lib('x:latest')]: 'CronJob',
          [lib('restic:latest')]: 'Job',
          [lib('job-only:1')]: 'Job',
        },
      );
    });
    it('is credited to Job when the CronJob is being deleted (not live)', () => {
      const dying = cronJob('backup', spec(['restic']), { uid: 'cj-uid', deletionTimestamp: DELETED });
      assert.deepEqual(kinds({ cronJobs: [dying], jobs: [job(cronOwned('backup', 'cj-uid'))] }), {
        [lib('restic:latest')]: 'Job',
        [lib('job-only:1')]: 'Job',
      });
    });
    it('is credited to Job when its owner is not a CronJob', () => {
      const owner = { ownerReferences: [{ kind: 'Workflow', name: 'backup', uid: 'cj-uid' }] };
      assert.deepEqual(kinds({ cronJobs: [cj], jobs: [job(owner)] }), {
        [lib('restic:latest')]: 'CronJob,Job',
        [lib('job-only:1')]: 'Job',
      });
    });
  });

  it('credits a naked Pod (no or empty ownerReferences) with containers, init and ephemeral', () => {
    for (const owners of [{}, { ownerReferences: [] }]) {
      assert.deepEqual(kinds({ pods: [pod('debug', spec(['nginx'], ['busybox'], ['alpine:3']), owners)] }), {
        [lib('nginx:latest')]: 'Pod',
        [lib('busybox:latest')]: 'Pod',
        [lib('alpine:3')]: 'Pod',
      });
    }
  });

  it('credits only ephemeral containers of an owned Pod to Pod', () => {
    assert.deepEqual(
      kinds({
        deployments: [workload('web', spec(['nginx'], ['init:1']))],
        pods: [pod('web-123-abc', spec(['nginx'], ['init:1'], ['busybox:debug']), rsOwned)],
      }),
      { [lib('nginx:latest')]: 'Deployment', [lib('init:1')]: 'Deployment', [lib('busybox:debug')]: 'Pod' },
    );
    // The ReplicaSet's Deployment is not there: nothing covers the Pod, its images count.
    assert.deepEqual(kinds({ pods: [pod('web-123-abc', spec(['nginx'], ['init:1']), rsOwned)] }), {
      [lib('nginx:latest')]: 'Deployment',
      [lib('init:1')]: 'Deployment',
    });
  });

  it('an ephemeral container using the template image adds Pod to the kinds', () => {
    assert.deepEqual(
      kinds({
        deployments: [workload('web', spec(['nginx']))],
        pods: [pod('web-123-abc', spec(['nginx'], [], ['nginx']), rsOwned)],
      }),
      { [lib('nginx:latest')]: 'Deployment,Pod' },
    );
  });

  describe('objects with deletionTimestamp contribute nothing', () => {
    const gone = { deletionTimestamp: DELETED };
    const cases: [string, Partial<NamespaceObjects>][] = [
      ['Deployment', { deployments: [workload('d', spec(['a']), gone)] }],
      ['StatefulSet', { statefulSets: [workload('s', spec(['a']), gone)] }],
      ['DaemonSet', { daemonSets: [workload('ds', spec(['a']), gone)] }],
      ['CronJob', { cronJobs: [cronJob('cj', spec(['a']), gone)] }],
      ['Job', { jobs: [workload('j', spec(['a']), gone)] }],
      ['naked Pod', { pods: [pod('p', spec(['a'], [], ['b']), gone)] }],
      ['owned Pod', { pods: [pod('p', spec(['a'], [], ['b']), { ...gone, ...rsOwned })] }],
    ];
    for (const [label, o] of cases) {
      it(label, () =>
        assert.deepEqual(desiredImages(NS, objs(o)), { images: new Map(), users: new Map(), invalid: [] }),
      );
    }
    it('including invalid refs (no reports for deleted objects)', () => {
      const r = desiredImages(
        NS,
        objs({ deployments: [workload('d', spec(['Bad']), { deletionTimestamp: new Date() })] }),
      );
      assert.deepEqual(r.invalid, []);
    });
  });

  it('reports empty, missing and invalid refs without stopping the others', () => {
    const podSpec: PodSpec = {
      containers: [
        c('nginx', 'ok'),
        c('', 'empty'),
        c(undefined, 'missing'),
        c('   ', 'blank'),
        c('Nginx:1', 'upper'),
      ],
      initContainers: [c(' busybox', 'spaced'), c('redis@sha256:abc', 'digest'), c('redis:7', 'ok-init')],
    };
    const r = desiredImages(
      NS,
      objs({ deployments: [workload('web', podSpec)], pods: [pod('p', spec(['alpine']))] }),
    );
    assert.deepEqual(Object.fromEntries([...r.images].map(([k, v]) => [k, kindsString(v)])), {
      [lib('nginx:latest')]: 'Deployment',
      [lib('redis:7')]: 'Deployment',
      [lib('alpine:latest')]: 'Pod',
    });
    const base = { namespace: NS, source: 'Deployment/web', kind: 'Deployment' as Kind, name: 'web' };
    const expected: InvalidRef[] = [
      { ...base, container: 'empty', image: '', reason: 'empty image' },
      { ...base, container: 'missing', image: '', reason: 'empty image' },
      { ...base, container: 'blank', image: '   ', reason: 'empty image' },
      { ...base, container: 'upper', image: 'Nginx:1', reason: 'uppercase letters in repository name' },
      { ...base, container: 'spaced', image: ' busybox', reason: 'whitespace in reference' },
      { ...base, container: 'digest', image: 'redis@sha256:abc', reason: 'digest must be sha256:<64 hex>' },
    ];
    assert.deepEqual(r.invalid, expected);
  });

  it('reports invalid refs with the source kind that carries them', () => {
    const r = desiredImages(
      NS,
      objs({
        cronJobs: [cronJob('cj', spec(['-x']))],
        jobs: [workload('j', spec(['-y']))],
        deployments: [workload('web', spec([]))],
        pods: [pod('naked', spec(['-z'])), pod('owned', spec(['-ignored'], [], ['-w']), rsOwned)],
      }),
    );
    assert.deepEqual(
      r.invalid.map((i) => `${i.source} ${i.container} ${i.image}`),
      // The owned Pod runs an image its Deployment's template does not hold: it counts, and is
      // reported on the Pod.
      ['CronJob/cj c0 -x', 'Job/j c0 -y', 'Pod/naked c0 -z', 'Pod/owned e0 -w', 'Pod/owned c0 -ignored'],
    );
  });

  it('does not report invalid refs of a Job it skips (its CronJob reports them)', () => {
    const r = desiredImages(
      NS,
      objs({
        cronJobs: [cronJob('cj', spec(['-bad']), { uid: 'u' })],
        jobs: [workload('cj-1', spec(['-bad']), cronOwned('cj', 'u'))],
      }),
    );
    assert.deepEqual(
      r.invalid.map((i) => i.source),
      ['CronJob/cj'],
    );
  });

  it('tolerates missing specs and lists', () => {
    const bare = { metadata: meta('bare') };
    const nulls = {
      metadata: meta('nulls'),
      spec: { containers: null, initContainers: null, ephemeralContainers: null },
    };
    assert.deepEqual(
      desiredImages(
        NS,
        objs({
          deployments: [bare, { metadata: meta('x'), spec: { template: null } }],
          cronJobs: [bare],
          jobs: [bare],
          pods: [bare, nulls],
        }),
      ),
      { images: new Map(), users: new Map(), invalid: [] },
    );
  });

  it('ignores objects of another namespace', () => {
    assert.deepEqual(kinds({ deployments: [workload('web', spec(['nginx']), { namespace: 'team-b' })] }), {});
    assert.deepEqual(
      kinds({ deployments: [{ metadata: { name: 'web' }, spec: { template: { spec: spec(['nginx']) } } }] }),
      {
        [lib('nginx:latest')]: 'Deployment',
      },
    );
  });

  it('keys on the normalized ref, so spellings of one image merge', () => {
    assert.deepEqual(
      kinds({
        deployments: [workload('a', spec(['nginx']))],
        statefulSets: [workload('b', spec(['docker.io/library/nginx:latest']))],
        daemonSets: [workload('c', spec(['index.docker.io/nginx']))],
      }),
      { [lib('nginx:latest')]: 'DaemonSet,Deployment,StatefulSet' },
    );
  });

  it('accepts @kubernetes/client-node V1 objects that carry metadata.name (type-level check)', () => {
    type Named<T> = T & { metadata: k8s.V1ObjectMeta & { name: string } };
    const fromClient: NamespaceObjects = {
      deployments: [] as Named<k8s.V1Deployment>[],
      statefulSets: [] as Named<k8s.V1StatefulSet>[],
      daemonSets: [] as Named<k8s.V1DaemonSet>[],
      cronJobs: [] as Named<k8s.V1CronJob>[],
      jobs: [] as Named<k8s.V1Job>[],
      pods: [] as Named<k8s.V1Pod>[],
    };
    assert.equal(desiredImages(NS, fromClient).images.size, 0);
  });
});

describe('kindsString', () => {
  it('sorts and comma-joins, without duplicates', () => {
    assert.equal(kindsString(['Pod', 'Deployment']), 'Deployment,Pod');
    assert.equal(
      kindsString(new Set<Kind>(['StatefulSet', 'CronJob', 'Job', 'DaemonSet', 'Pod', 'Deployment'])),
      'CronJob,DaemonSet,Deployment,Job,Pod,StatefulSet',
    );
    assert.equal(kindsString(['Job', 'Job']), 'Job');
    assert.equal(kindsString([]), '');
  });
});
