// Loads cluster credentials the way kubectl does: an explicit --kubeconfig, else
// $KUBECONFIG, else ~/.kube/config, else the in-cluster ServiceAccount.
//
// client-node's loadFromDefault() falls back to an unauthenticated http://localhost:8080 when it
// finds nothing, so a user without any configuration got a TLS error about that made-up server.
// We walk the same sources ourselves and, when none applies, say what was tried.
import { KubeConfig } from '@kubernetes/client-node';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface KubeTarget {
  kubeconfig?: string;
  context?: string;
}

export class KubeConfigError extends Error {}

/** Where the in-cluster configuration comes from (client-node reads the same paths). */
export const SERVICEACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function loadKubeConfig(target: KubeTarget = {}): KubeConfig {
  const kc = new KubeConfig();
  if (target.kubeconfig) {
    if (!fs.existsSync(target.kubeconfig)) {
      throw new KubeConfigError(`kubeconfig ${target.kubeconfig} does not exist (--kubeconfig)`);
    }
    kc.loadFromFile(target.kubeconfig);
  } else {
    loadDefault(kc);
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
      `no cluster configured: the kubeconfig has no current context with a cluster server${
        kc.getContexts().length ? ' (pick one with --context)' : ''
      }`,
    );
  }
  return kc;
}

function loadDefault(kc: KubeConfig): void {
  const tried: string[] = ['--kubeconfig (not given)'];
  const env = process.env.KUBECONFIG;
  if (env) {
    const files = env.split(path.delimiter).filter(Boolean);
    const present = files.filter((f) => fs.existsSync(f));
    if (present.length === 0) {
      // kubectl stops here too: a set $KUBECONFIG replaces ~/.kube/config.
      throw new KubeConfigError(
        `no cluster configured: $KUBECONFIG names ${files.join(path.delimiter)}, which does not exist`,
      );
    }
    kc.loadFromFile(present[0]!);
    for (const f of present.slice(1)) {
      const more = new KubeConfig();
      more.loadFromFile(f);
      kc.mergeConfig(more);
    }
    return;
  }
  tried.push('$KUBECONFIG (not set)');
  const home = process.env.HOME || os.homedir();
  const file = path.join(home, '.kube', 'config');
  if (fs.existsSync(file)) {
    kc.loadFromFile(file);
    return;
  }
  tried.push(`~/.kube/config (${file} does not exist)`);
  if (process.env.KUBERNETES_SERVICE_HOST && fs.existsSync(SERVICEACCOUNT_TOKEN)) {
    kc.loadFromCluster();
    return;
  }
  tried.push(
    process.env.KUBERNETES_SERVICE_HOST
      ? `in-cluster (no ServiceAccount token at ${SERVICEACCOUNT_TOKEN})`
      : 'in-cluster (not in a Pod: KUBERNETES_SERVICE_HOST is not set)',
  );
  throw new KubeConfigError(`no cluster configured: tried ${tried.join(', ')}`);
}
