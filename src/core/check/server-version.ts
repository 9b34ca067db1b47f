// `inv check`: is the API server's Kubernetes within the range inv supports
// (kube/supported-versions.ts)? Pure: it judges what /version answered. Outside the range is a
// warning, not a failure: inv may well work there, it is just not what was tested, and `inv
// check`'s exit status stays about what is broken (docs/cli.md, exit codes).
import { parseKubeVersion, type VersionInfo } from '../kube/kube-version.js';
import { SUPPORT_DOC as DOC, SUPPORTED_RANGE, supportOf } from '../kube/supported-versions.js';
import type { CheckResult } from './result.js';

export function serverVersionCheck(info: VersionInfo): CheckResult {
  const name = 'the Kubernetes version is supported';
  const v = parseKubeVersion(info);
  const base = { group: 'kubernetes-api', name };
  switch (supportOf(v)) {
    case 'supported':
      return { ...base, status: 'pass', detail: `${v!.text} (supported: ${SUPPORTED_RANGE})` };
    case 'older':
      return {
        ...base,
        status: 'warn',
        detail: `${v!.text} is older than the supported ${SUPPORTED_RANGE}`,
        hint: `inv is not tested on Kubernetes ${v!.major}.${v!.minor}; upgrade the cluster to a supported minor (${DOC})`,
      };
    case 'newer':
      return {
        ...base,
        status: 'warn',
        detail: `${v!.text} is newer than the supported ${SUPPORTED_RANGE}`,
        hint: `inv is not tested on Kubernetes ${v!.major}.${v!.minor} yet; look for a newer inv (${DOC})`,
      };
    case 'unknown':
      return {
        ...base,
        status: 'warn',
        detail: `cannot read a Kubernetes version from the server's ${JSON.stringify(info.gitVersion ?? '')} (supported: ${SUPPORTED_RANGE})`,
        hint: `see ${DOC} for what is supported`,
      };
  }
}
