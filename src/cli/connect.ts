// The cluster a command talks to, from the shared flags: --kubeconfig and --context pick the
// kubeconfig (falling back to $KUBECONFIG, ~/.kube/config, then in-cluster), kubectl's connection
// flags (--server, --token, --as, --user, --cluster, ...) override its current context, and
// --request-timeout sets every request's deadline. Its own module, so commands that never talk to a cluster
// (node-remove) do not load client-node with flags.ts.
import type { KubeConfig } from '@kubernetes/client-node';
import { overrideProblems } from '../core/kube/connection.js';
import { loadKubeConfig } from '../core/kube/config.js';
import { KubeRest, type KubeRestOptions } from '../core/kube/rest.js';
import { connectionOverrides, restOptions, type KubeFlagValues } from './flags.js';

/**
 * Throws a message naming what is wrong (no cluster configured, a kubeconfig that cannot be
 * used, --as-group without --as, a bad --request-timeout).
 */
export function connect(flags: KubeFlagValues): {
  kc: KubeConfig;
  rest: KubeRest;
} {
  const { kc, restOptions: options } = cluster(flags);
  return { kc, rest: new KubeRest(kc, options) };
}

/**
 * The kubeconfig and the client options for a component that makes its own clients (the
 * daemon), with `extra` over the flags' options. Throws as connect() does.
 */
export function cluster(
  flags: KubeFlagValues,
  extra: Partial<KubeRestOptions> = {},
): { kc: KubeConfig; restOptions: KubeRestOptions } {
  const overrides = connectionOverrides(flags);
  const problems = overrideProblems(overrides);
  if (problems.length > 0) throw new Error(problems.join('; '));
  const kc = loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context, overrides });
  return { kc, restOptions: { ...restOptions(flags), ...extra } };
}
