import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from the compiled location dist/test/support/. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * The same-release kubectl that scripts/cluster.mjs builds for this run's Kubernetes release
 * (INV_K8S_VERSION; scripts/k8s-versions.mjs), in .cache/bin/k8s-<version>/.
 */
export const kubectlBin = (
  (await import(path.join(repoRoot, 'scripts', 'cluster.mjs'))) as { binaries: { kubectl: string } }
).binaries.kubectl;
