// The Kubernetes releases the local cluster and the tests build and run, and which one a process
// uses. One Go source tree (test/cluster) builds them all: the newest from test/cluster/go.mod,
// each older one from a go.mod of its own (test/cluster/versions/<version>.mod and .sum, passed
// to `go build -modfile`), whose replace list is its k8s.io/kubernetes release's: every staging
// module at k8s.io/<module> v0.<minor>.<patch>. Code that differs between releases sits in files
// picked by a build tag (test/cluster/informer_name*.go).
//
// Pick one with INV_K8S_VERSION (cluster.mjs, nodes.mjs, the demo and the tests honour it):
//   INV_K8S_VERSION=v1.35.4 npm run node:up
//
// To add a release: take its go.mod's `go` line, etcd version and staging list (`go mod
// download -json k8s.io/kubernetes@vX.Y.Z` prints where its go.mod is), write versions/vX.Y.Z.mod
// like the others, run `go mod tidy -modfile=versions/vX.Y.Z.mod` in test/cluster, add it here.

/** The default: the newest release, what `npm run node:up`, the demo and the suite run. */
export const DEFAULT_K8S_VERSION = 'v1.37.2';

/** Every tested release, newest first (each has a run in scripts/test.mjs). */
export const K8S_VERSIONS = ['v1.37.2', 'v1.36.3', 'v1.35.4'];

const ALL = ['testcluster', 'kubelet', 'kube-controller-manager', 'kube-scheduler', 'kubectl'];

/**
 * How each release is built: its go.mod (undefined: test/cluster/go.mod), its build tags, and
 * the binaries it gets. 1.36 runs only the API-server suites, so it needs no kubelet,
 * controller-manager or scheduler (their builds would cost minutes on a cold machine).
 */
export const K8S_BUILDS = {
  'v1.37.2': { modfile: undefined, tags: [], components: ALL },
  'v1.36.3': {
    modfile: 'versions/v1.36.3.mod',
    tags: ['k8s_pre137'],
    components: ['testcluster', 'kubectl'],
  },
  'v1.35.4': { modfile: 'versions/v1.35.4.mod', tags: ['k8s_pre137'], components: ALL },
};

/** The release this process uses: INV_K8S_VERSION, else the default. */
export function selectedK8sVersion(env = process.env) {
  const v = env.INV_K8S_VERSION || DEFAULT_K8S_VERSION;
  if (!K8S_BUILDS[v]) {
    throw new Error(`INV_K8S_VERSION=${v}: not a release the tests build (${K8S_VERSIONS.join(', ')})`);
  }
  return v;
}
