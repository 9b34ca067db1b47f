// `inv install --daemon --source-kinds FILE`: the bundle's SourceKinds ConfigMap gets the file,
// its ClusterRole list and watch on each declared kind, and the daemon's pod template a hash of
// the file, so a changed file restarts the daemon (it reads the kinds at start). Pure.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/apply.js';
import type { SourceKindSpec } from '../inventory/source-kinds.js';

import { SOURCE_KINDS_CONFIGMAP, SOURCE_KINDS_KEY } from '../inventory/declared-kinds.js';

export { SOURCE_KINDS_CONFIGMAP, SOURCE_KINDS_KEY };
export const SOURCE_KINDS_ROLE = 'image-inventory-source-kinds';
export const SOURCE_KINDS_HASH = 'imageinventory.dev/source-kinds-sha256';

/** list + watch on each kind (those with a plural: from the file or from discovery). */
export function sourceKindRules(
  kinds: readonly SourceKindSpec[],
): { apiGroups: string[]; resources: string[]; verbs: string[] }[] {
  return kinds
    .filter((k) => k.plural)
    .map((k) => ({ apiGroups: [k.group], resources: [k.plural], verbs: ['list', 'watch'] }));
}

export function withSourceKinds(
  objects: KubeObject[],
  text: string,
  kinds: readonly SourceKindSpec[],
): KubeObject[] {
  const hash = createHash('sha256').update(text).digest('hex');
  // Given a file, its ConfigMap and ClusterRole are applied like the rest of the bundle (they
  // are create-only otherwise, so an install without --source-kinds keeps what is there).
  const applied = (o: KubeObject): KubeObject => {
    const annotations = { ...(o.metadata.annotations as Record<string, string> | undefined) };
    delete annotations['imageinventory.dev/install'];
    return { ...o, metadata: { ...o.metadata, annotations } } as KubeObject;
  };
  return objects.map((o) => {
    if (o.kind === 'ConfigMap' && o.metadata.name === SOURCE_KINDS_CONFIGMAP)
      return applied({ ...o, data: { [SOURCE_KINDS_KEY]: text } } as KubeObject);
    if (o.kind === 'ClusterRole' && o.metadata.name === SOURCE_KINDS_ROLE)
      return applied({ ...o, rules: sourceKindRules(kinds) } as KubeObject);
    if (o.kind === 'Deployment') {
      const d = structuredClone(o) as KubeObject & {
        spec: { template: { metadata?: { annotations?: Record<string, string> } } };
      };
      const m = (d.spec.template.metadata ??= {});
      m.annotations = { ...m.annotations, [SOURCE_KINDS_HASH]: hash };
      return d;
    }
    return o;
  });
}
