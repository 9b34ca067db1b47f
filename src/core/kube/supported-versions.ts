// What inv supports, and the tests that show it: the Kubernetes minors, the container runtimes and
// the Helm releases. The one place they are written: `inv check` and `inv version` compare the
// server against SUPPORTED_KUBERNETES, docs/supported-versions.md's tables are generated from this
// file (src/docs/supported-versions-table.ts), and test/unit/repo/supported-versions.test.ts checks it
// against what the scripts build and run (test/cluster/go.mod, scripts/cluster.mjs,
// scripts/tools.mjs, scripts/test.mjs), so a version bumped there and not here fails. Pure.
import { compareMinor, type KubeVersion } from './kube-version.js';

export interface Minor {
  major: number;
  minor: number;
}

/**
 * The minors upstream Kubernetes supports today (its three newest), each tested: the oldest and
 * the newest on real kubelets, the one between on the API server.
 */
export const SUPPORTED_KUBERNETES: { oldest: Minor; newest: Minor } = {
  oldest: { major: 1, minor: 35 },
  newest: { major: 1, minor: 37 },
};

const minorText = (m: Minor) => `${m.major}.${m.minor}`;
/** "1.35 to 1.37", as the check, `inv version` and the docs say it. */
export const SUPPORTED_RANGE = `${minorText(SUPPORTED_KUBERNETES.oldest)} to ${minorText(SUPPORTED_KUBERNETES.newest)}`;

export type Support = 'supported' | 'older' | 'newer' | 'unknown';

/** Where a server's version stands against the supported range ('unknown': it could not be read). */
export function supportOf(v: KubeVersion | undefined): Support {
  if (!v) return 'unknown';
  if (compareMinor(v, SUPPORTED_KUBERNETES.oldest) < 0) return 'older';
  if (compareMinor(v, SUPPORTED_KUBERNETES.newest) > 0) return 'newer';
  return 'supported';
}

/** The page that states what is supported, named where a server falls outside it. */
export const SUPPORT_DOC = 'docs/supported-versions.md';

/** `inv version`'s warning for a server outside the range, naming it. */
export function supportWarning(version: string, support: Exclude<Support, 'supported'>): string {
  const what =
    support === 'unknown'
      ? `the server's version ${JSON.stringify(version)} names no Kubernetes minor`
      : `the server's Kubernetes ${version} is ${support} than the supported ${SUPPORTED_RANGE}`;
  return `${what}: inv is not tested there (${SUPPORT_DOC})`;
}

/** What covers a row: the runs of `npm test` (scripts/test.mjs) and the test files. */
export interface Coverage {
  runs: readonly string[];
  tests: readonly string[];
}

export interface TestedKubernetes extends Coverage {
  /** The release built from the Go module proxy (k8s.io/kubernetes). */
  version: string;
  /** The local cluster's and the suite's version (test/cluster/go.mod). */
  isDefault?: boolean;
  /** The runtime of its nodes, when it runs real kubelets. */
  nodes?: string;
  what: string;
}

/**
 * The suites of the older releases' runs (scripts/test.mjs K135_SUITES and API136_SUITES, as
 * test/<suite>.test.ts): what depends on the server's version.
 */
const K135_SUITES = [
  'nodes/inventory',
  'nodes/erase',
  'nodes/check-nodes',
  'nodes/printer-columns',
  'install/list-kind',
  'install/first-run',
  'erase/list-limits',
  'docs/examples',
  'watch/watch',
  'watch/lease-health',
  'controller/leader-election',
];
const API136_SUITES = [
  'install/list-kind',
  'erase/list-limits',
  'docs/examples',
  'inventory/rules',
  'watch/watch',
  'watch/lease-health',
  'erase/steps',
  'erase/scenarios',
  'cli/scan-cli',
];
const testFiles = (suites: readonly string[]) => suites.map((s) => `test/${s}.test.ts`);

export const TESTED_KUBERNETES: readonly TestedKubernetes[] = [
  {
    version: 'v1.37.2',
    isDefault: true,
    nodes: 'containerd v2.4.2 (CRI-O v1.34.0 in the crio run)',
    what: 'everything: the whole suite, the real-node suites, `npm run demo`, `node:up`, `cluster:up`',
    runs: ['suite', 'nodes', 'crio'],
    tests: ['test/'],
  },
  {
    version: 'v1.36.3',
    what: 'the API-server suites: the CRDs (schemas and CEL rules), scan, watch and the Lease, the erase controllers',
    runs: ['api136'],
    tests: testFiles(API136_SUITES),
  },
  {
    version: 'v1.35.4',
    nodes: 'containerd 1.6.20',
    what: 'CRD install and upgrade (CEL), the inventory on real controllers, erase on real kubelets, the daemon’s watches and Lease, `inv check`',
    runs: ['k135'],
    tests: testFiles(K135_SUITES),
  },
];

export interface TestedRuntime extends Coverage {
  name: 'containerd' | 'CRI-O';
  version: string;
  /** Where the tested binary comes from. */
  source: string;
  /** The kubelets it runs under in the real-node runs. */
  kubelets: readonly string[];
  why: string;
  /** For CRI-O: the suites of its run (scripts/test.mjs CRIO_NODE_SUITES). */
  suites?: readonly string[];
}

/**
 * The real-node suites the crio run runs (named images, `*` with protection, thresholds, waves,
 * check --nodes, scoped prunes and keep-newest by the creation time CRI-O reports, scan mode from
 * CRI-O's store, freed space not measured where CRI-O's ImageFsInfo does not count the layers).
 */
const CRIO_SUITES = [
  'erase',
  'protect',
  'threshold',
  'rollout',
  'check-nodes',
  'scope-retention',
  'scan-crio',
  'freed-space',
];

export const TESTED_RUNTIMES: readonly TestedRuntime[] = [
  {
    name: 'containerd',
    version: 'v2.4.2',
    source: 'built from the Go module proxy (scripts/cluster.mjs)',
    kubelets: ['v1.37.2'],
    why: 'the default on the nodes: from Kubernetes 1.36 on, nodes need containerd 2.x',
    runs: ['nodes', 'suite'],
    // The suite's own containerd 2.x: what only it shows, and the prunes run on both containerds.
    tests: ['test/nodes/', 'test/noderemove/runtime2.test.ts', 'test/noderemove/prune.test.ts'],
  },
  {
    name: 'containerd',
    version: '1.6.20',
    source: 'Debian’s package',
    kubelets: ['v1.35.4'],
    why: 'on the 1.35 run only: Kubernetes 1.35 is the last minor that supports containerd 1.x (containerd 1.6 itself reached its end of life in August 2025)',
    runs: ['k135', 'suite'],
    tests: [
      ...testFiles(K135_SUITES.filter((s) => s.startsWith('nodes/'))),
      'test/cri/containerd.test.ts',
      'test/noderemove/prune.test.ts',
    ],
  },
  {
    name: 'CRI-O',
    version: 'v1.34.0',
    source: 'built from the Go module proxy (scripts/crio.mjs), the only release it serves',
    kubelets: ['v1.37.2'],
    why: 'a version skew: CRI-O’s minor follows Kubernetes’s, and 1.34 runs here under the 1.37 kubelet; only the erase suites run on it',
    suites: CRIO_SUITES,
    runs: ['crio', 'suite'],
    tests: [
      ...CRIO_SUITES.map((s) => `test/nodes/${s}.test.ts`),
      'test/noderemove/crio.test.ts',
      'test/scanner/crio-store.test.ts',
    ],
  },
];

export interface TestedHelm extends Coverage {
  version: string;
  /** The scripts/tools.mjs tool that builds it. */
  tool: string;
  what: string;
}

export const TESTED_HELM: readonly TestedHelm[] = [
  {
    version: 'v4.3.2',
    tool: 'helm',
    what: 'lint, template, install, test, upgrade and uninstall, on the real-node cluster',
    runs: ['nodes', 'suite'],
    tests: ['test/nodes/install/helm.test.ts', 'test/helm/'],
  },
  {
    version: 'v3.21.4',
    tool: 'helm3',
    what: 'lint, template and install, on the API server; Helm 4 then upgrades that release',
    runs: ['suite'],
    tests: ['test/helm/helm3.test.ts'],
  },
];

/**
 * The CEL features the CRDs (crds/*.yaml, x-kubernetes-validations) use, and the first minor
 * whose API server has each on by default. A CRD with a rule the server cannot compile is
 * refused at install. The unit test finds every field the CRDs' rules use here.
 */
export const CRD_CEL_FEATURES: readonly { field: string; what: string; onByDefault: Minor; ga: Minor }[] = [
  {
    field: 'rule',
    what: 'CEL validation rules (x-kubernetes-validations), with their `message`',
    onByDefault: { major: 1, minor: 25 },
    ga: { major: 1, minor: 29 },
  },
  {
    field: 'reason',
    what: 'a rule’s `reason` (the error’s type)',
    onByDefault: { major: 1, minor: 28 },
    ga: { major: 1, minor: 29 },
  },
  {
    field: 'optionalOldSelf',
    what: '`optionalOldSelf` (a rule that sees no old object on create: the ImageList name rule)',
    onByDefault: { major: 1, minor: 30 },
    ga: { major: 1, minor: 33 },
  },
];
