// Loads cluster credentials the way kubectl does: an explicit --kubeconfig, else
// $KUBECONFIG, else ~/.kube/config, else the in-cluster ServiceAccount.
import { KubeConfig } from '@kubernetes/client-node';
import fs from 'node:fs';

export interface KubeTarget {
  kubeconfig?: string;
  context?: string;
}

export class KubeConfigError extends Error {}

export function loadKubeConfig(target: KubeTarget = {}): KubeConfig {
  const kc = new KubeConfig();
  if (target.kubeconfig) {
    if (!fs.existsSync(target.kubeconfig)) {
      throw new KubeConfigError(`kubeconfig ${target.kubeconfig} does not exist`);
    }
    kc.loadFromFile(target.kubeconfig);
  } else {
    kc.loadFromDefault();
  }
  if (target.context) {
    if (!kc.getContextObject(target.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new KubeConfigError(
        `context "${target.context}" is not in the kubeconfig (known: ${known.join(', ') || 'none'})`,
      );
    }
    kc.setCurrentContext(target.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster || !cluster.server) {
    throw new KubeConfigError(
      'no cluster configured: pass --kubeconfig, set KUBECONFIG, or run inside a Pod with a ServiceAccount',
    );
  }
  return kc;
}
