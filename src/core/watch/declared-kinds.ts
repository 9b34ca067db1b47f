// The daemon's declared source kinds at start: discovery says which are served. A kind that is
// not (its CRD is not installed, or its scope is not the declared one) is logged once and skipped; the daemon
// runs with the rest, and a CRD installed later is picked up at the next start (a Pod of such a
// kind's object is still credited meanwhile, under the kind, by the owned-Pod rule). When
// discovery itself keeps failing, the daemon starts with the built-in kinds only, for the same
// reason: nothing is lost, only credited under the owner's kind through its Pods.
import { sleep } from '../concurrency.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { discoverKinds } from '../inventory/discover-kinds.js';
import { BUILTIN, type SourceKinds, type SourceKindSpec } from '../inventory/source-kinds.js';
import { KubeRest, type KubeRestOptions } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';

export async function discoverDeclaredKinds(
  kubeConfig: KubeConfig,
  restOptions: KubeRestOptions,
  declared: readonly SourceKindSpec[],
  logger: Logger,
  attempts = 5,
): Promise<SourceKinds> {
  if (!declared.length) return BUILTIN;
  const rest = new KubeRest(kubeConfig, restOptions);
  try {
    for (let i = 1; ; i++) {
      try {
        const d = await discoverKinds(rest, declared);
        for (const s of d.skipped)
          logger.warn('declared source kind skipped', { kind: s.kind, group: s.group, reason: s.reason });
        logger.info('declared source kinds in force', { kinds: d.served.map((k) => `${k.kind}.${k.group}`) });
        return d.kinds;
      } catch (e) {
        if (i >= attempts) {
          logger.error('discovery of the declared source kinds failed; running with the built-in kinds', {
            err: (e as Error).message,
          });
          return BUILTIN;
        }
        await sleep(500 * 2 ** i);
      }
    }
  } finally {
    rest.close();
  }
}
