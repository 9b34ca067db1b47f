// docs/supported-versions.md's tables: the supported Kubernetes range, the tested releases, the
// runtimes and the Helm releases, each with what covers it, and the CEL features the CRDs need,
// from their one definition (core/kube/supported-versions.ts).
import {
  CRD_CEL_FEATURES,
  SUPPORTED_KUBERNETES,
  SUPPORTED_RANGE,
  TESTED_HELM,
  TESTED_KUBERNETES,
  TESTED_RUNTIMES,
  type Coverage,
  type Minor,
} from '../core/kube/supported-versions.js';
import { table } from './regions.js';

const code = (s: string) => `\`${s}\``;
const minor = (m: Minor) => `${m.major}.${m.minor}`;
const covered = (c: Coverage) =>
  `runs ${c.runs.map(code).join(', ')}; ${c.tests.map((t) => (t === 'test/' ? 'every test' : code(t))).join(', ')}`;

export function supportedVersionsTables(): string {
  const { oldest, newest } = SUPPORTED_KUBERNETES;
  const cel = CRD_CEL_FEATURES.reduce((a, f) =>
    f.onByDefault.major * 1000 + f.onByDefault.minor > a.onByDefault.major * 1000 + a.onByDefault.minor
      ? f
      : a,
  );
  return [
    `**Kubernetes ${SUPPORTED_RANGE}** (the minors upstream supports). \`inv check\` warns when the`,
    `API server is older than ${minor(oldest)} or newer than ${minor(newest)}; \`inv version\` says so on stderr.`,
    '',
    table(
      ['Kubernetes', 'nodes', 'what runs on it', 'covered by'],
      TESTED_KUBERNETES.map((k) => [
        k.isDefault ? `**${k.version}** (default)` : k.version,
        k.nodes ?? 'API server only',
        k.what,
        covered(k),
      ]),
    ),
    table(
      ['runtime', 'source', 'under kubelet', 'why', 'covered by'],
      TESTED_RUNTIMES.map((r) => [
        `${r.name} ${r.version}`,
        r.source,
        r.kubelets.join(', '),
        r.why + (r.suites ? ` (suites: ${r.suites.join(', ')})` : ''),
        covered(r),
      ]),
    ),
    table(
      ['Helm', 'what is run', 'covered by'],
      TESTED_HELM.map((h) => [h.version, h.what, covered(h)]),
    ),
    `The CRDs validate with CEL rules (\`x-kubernetes-validations\`), which the API server compiles`,
    `when the CRD is installed (a rule it cannot compile refuses the CRD). What they use needs`,
    `Kubernetes ${minor(cel.onByDefault)} or later, which every supported minor is:`,
    '',
    table(
      ['CRD feature', 'on by default since', 'GA in'],
      CRD_CEL_FEATURES.map((f) => [f.what, minor(f.onByDefault), minor(f.ga)]),
    ),
  ].join('\n');
}
