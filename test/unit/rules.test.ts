// The source-to-kinds rules, one test per rule of the shared spec (seed-inventory-controller.md).
import type * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { desiredImages, kindsString, type InvalidRef } from '../../src/core/inventory/rules.js';
import { SourceKinds } from '../../src/core/inventory/source-kinds.js';
import type {
  Container,
  CronJobObject,
  Kind,
  NamespaceObjects,
  ObjectMeta,
  PodObject,
  PodSpec,
  TemplatedObject,
} from '../../src/core/inventory/source-fields.js';

const NS = 'team-a';
const DELETED = '2025-01-01T00:00:00Z';

const c = (image: string | undefined, name = 'main'): Container =>
  image === undefined ? { name } : { name, image };
const spec = (containers: string[], init: string[] = [], ephemeral?: string[]): PodSpec => {
  const s: PodSpec = {
    containers: containers.map((i, n) => c(i, `c${n}`)),
    initContainers: init.map((i, n) => c(i, `i${n}`)),
  };
  if (ephemeral) s.ephemeralContainers = ephemeral.map((i, n) => c(i, `e${n}`));
  return s;
};
const meta = (name: string, extra: Partial<ObjectMeta> = {}): ObjectMeta => ({
  name,
  namespace: NS,
  ...extra,
});
const workload = (name: string, s: PodSpec, extra: Partial<ObjectMeta> = {}): TemplatedObject => ({
  metadata: meta(name, extra),
  spec: { template: { spec: s } },
});
const cronJob = (name: string, s: PodSpec, extra: Partial<ObjectMeta> = {}): CronJobObject => ({
  metadata: meta(name, extra),
  spec: { jobTemplate: { spec: { template: { spec: s } } } },
});
const pod = (name: string, s: PodSpec, extra: Partial<ObjectMeta> = {}): PodObject => ({
  metadata: meta(name, extra),
  spec: s,
});
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
const rsOwned = {
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-123', uid: 'rs-uid' }],
};

// The ReplicaSet of rsOwned's Pods, as its metadata is read: controlled by Deployment web.
const deploymentRs = {
  metadata: meta('web-123', {
    uid: 'rs-uid',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd', controller: true }],
  }),
};

function objs(partial: Partial<NamespaceObjects>): NamespaceObjects {
  return {
    deployments: [],
    statefulSets: [],
    daemonSets: [],
    cronJobs: [],
    jobs: [],
    pods: [],
    replicaSets: [deploymentRs],
    ...partial,
  };
}

/** The result as plain data: normalized ref -> "Kind,Kind". */
function kinds(o: Partial<NamespaceObjects>): Record<string, string> {
  const { images } = desiredImages(NS, objs(o));
  return Object.fromEntries([...images].map(([ref, ks]) => [ref, kindsString(ks)]));
}

const lib = (s: string) => `docker.io/library/${s}`;

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

describe('ReplicationController (a built-in kind added through the registry alone)', () => {
  it('credits its template as ReplicationController, and its Pods nothing more', () => {
    const rcOwned = {
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', controller: true },
      ],
    };
    assert.deepEqual(
      kinds({
        replicationControllers: [workload('legacy', spec(['legacy:2'], ['init:1']))],
        pods: [pod('legacy-x', spec(['legacy:2'], ['init:1']), rcOwned)],
      }),
      { [lib('legacy:2')]: 'ReplicationController', [lib('init:1')]: 'ReplicationController' },
    );
  });
});

describe('owned Pods no source kind controls (credited to the top owner)', () => {
  const owned = (kind: string, name: string, apiVersion: string, uid = 'u') => ({
    ownerReferences: [{ apiVersion, kind, name, uid, controller: true }],
  });
  const rs = (name: string, uid: string, owner?: { kind: string; name: string; apiVersion: string }) => ({
    metadata: meta(name, {
      uid,
      ...(owner ? { ownerReferences: [{ ...owner, uid: 'o', controller: true }] } : {}),
    }),
  });

  it('a bare ReplicaSet credits its Pods as ReplicaSet (users: ReplicaSet/name)', () => {
    const r = desiredImages(
      NS,
      objs({
        replicaSets: [rs('bare', 'b')],
        pods: [
          pod('bare-x', spec(['nginx'], ['init:1'], ['dbg:1']), owned('ReplicaSet', 'bare', 'apps/v1', 'b')),
        ],
      }),
    );
    assert.deepEqual(kindsString(r.images.get(lib('nginx:latest'))!), 'ReplicaSet');
    assert.deepEqual(kindsString(r.images.get(lib('init:1'))!), 'ReplicaSet');
    assert.deepEqual(kindsString(r.images.get(lib('dbg:1'))!), 'Pod');
    assert.deepEqual([...r.users.get(lib('nginx:latest'))!], ['ReplicaSet/bare']);
  });

  it("a ReplicaSet of an unknown kind credits its Pods to that kind; a Deployment's to nothing", () => {
    assert.deepEqual(
      kinds({
        replicaSets: [
          rs('ro-1', 'r1', { kind: 'Rollout', name: 'ro', apiVersion: 'argoproj.io/v1alpha1' }),
          rs('web-1', 'w1', { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }),
        ],
        deployments: [workload('web', spec(['web']))],
        pods: [
          pod('ro-1-x', spec(['argo']), owned('ReplicaSet', 'ro-1', 'apps/v1', 'r1')),
          pod('web-1-x', spec(['web']), owned('ReplicaSet', 'web-1', 'apps/v1', 'w1')),
        ],
      }),
      { [lib('argo:latest')]: 'Rollout', [lib('web:latest')]: 'Deployment' },
    );
  });

  it('a Pod of an unknown CRD, of a Node (static Pod) or of a ReplicaSet not seen is credited', () => {
    assert.deepEqual(
      kinds({
        replicaSets: [],
        jobs: [workload('j', spec(['job']))],
        pods: [
          pod('wf-1', spec(['step']), owned('Workflow', 'wf', 'argoproj.io/v1alpha1')),
          pod('etcd-n1', spec(['etcd']), owned('Node', 'n1', 'v1')),
          pod('gone-x', spec(['gone']), owned('ReplicaSet', 'gone', 'apps/v1')),
          pod('job-x', spec(['job']), owned('Job', 'j', 'batch/v1')),
        ],
      }),
      {
        [lib('job:latest')]: 'Job',
        [lib('step:latest')]: 'Workflow',
        [lib('etcd:latest')]: 'Node',
        [lib('gone:latest')]: 'ReplicaSet',
      },
    );
  });

  it('a kind that is not a kind name is credited as the Pod; a declared kind without a template, with its Pods', () => {
    assert.deepEqual(kinds({ pods: [pod('p', spec(['x']), owned('a,b', 'o', 'v1'))] }), {
      [lib('x:latest')]: 'Pod',
    });
    const declared = new SourceKinds([
      {
        kind: 'Workflow',
        group: 'argoproj.io',
        version: 'v1alpha1',
        plural: 'workflows',
        key: 'Workflow.argoproj.io',
        podSpecs: [],
        declared: true,
      },
    ]);
    const wfPod = pod('wf-1', spec(['step']), owned('Workflow', 'wf', 'argoproj.io/v1alpha1'));
    const r = desiredImages(
      NS,
      objs({ 'Workflow.argoproj.io': [{ metadata: meta('wf') }], pods: [wfPod] }),
      declared,
    );
    // Its template holds no image: what its Pods run is its own (./live-revisions.ts).
    assert.deepEqual([...r.users.get(lib('step:latest'))!], ['Workflow/wf (not in its template, 1 Pod)']);
    // Once the Workflow is gone, nothing covers its Pod any more.
    assert.deepEqual(
      kindsString(desiredImages(NS, objs({ pods: [wfPod] }), declared).images.get(lib('step:latest'))!),
      'Workflow',
    );
  });
});
