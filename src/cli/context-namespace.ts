// kubectl's habit for commands that read one namespace unless told otherwise: the context's
// namespace, else "default", said on stderr so it is never a surprise and never in the way of
// -o json. Shared by `inv scan` and `inv images`.
import type { KubeConfig } from '@kubernetes/client-node';
import { colors } from './output/style.js';

/** The namespace to read, announced on stderr as "<verb> namespace X (why; ...)". */
export function contextNamespace(kc: KubeConfig, verb: 'Reading' | 'Scanning'): string {
  const context = kc.getContextObject(kc.getCurrentContext());
  const ns = context?.namespace || 'default';
  const why = context?.namespace
    ? `the namespace of context "${context.name}"`
    : `context "${kc.getCurrentContext()}" names no namespace`;
  process.stderr.write(
    colors(process.stderr).dim(`${verb} namespace ${ns} (${why}; -n NAMESPACE or -A for others)\n`),
  );
  return ns;
}
