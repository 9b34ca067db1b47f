// `inv install`: server-side applies the CRDs (and, with the daemon, the whole deploy/ bundle)
// in dependency order, then waits until the CRDs are Established so that `inv scan` can run
// right after. Never deletes anything: an object dropped from a newer bundle stays until
// `inv uninstall` or the administrator removes it.
import { applyObject, displayName, type ApplyAction, type KubeObject } from '../kube/apply.js';
import { waitEstablished } from '../kube/crd-install.js';
import type { KubeRest } from '../kube/rest.js';
import { applyOrder, readBundle } from './bundle.js';
import { withSourceKinds } from './source-kinds.js';
import type { SourceKindSpec } from '../inventory/source-kinds.js';

export interface InstallOptions {
  /** Also the daemon: namespaces, RBAC, Deployment, NetworkPolicies. */
  daemon: boolean;
  image?: string;
  /** Declared source kinds for the daemon: the file's text and its kinds (plurals resolved). */
  sourceKinds?: { text: string; kinds: readonly SourceKindSpec[] };
  /** Deadline for the CRDs to become Established. */
  timeoutMs?: number;
  onApplied?: (name: string, action: ApplyAction) => void;
}

/** The objects install would apply, in order. */
export function installObjects(opts: Pick<InstallOptions, 'daemon' | 'image' | 'sourceKinds'>): KubeObject[] {
  let all = applyOrder(readBundle({ image: opts.image }));
  if (opts.sourceKinds) all = withSourceKinds(all, opts.sourceKinds.text, opts.sourceKinds.kinds);
  return opts.daemon ? all : all.filter((o) => o.kind === 'CustomResourceDefinition');
}

export async function install(
  rest: KubeRest,
  opts: InstallOptions,
): Promise<{ name: string; action: ApplyAction }[]> {
  const out: { name: string; action: ApplyAction }[] = [];
  const objects = installObjects(opts);
  for (const o of objects) {
    const { action } = await applyObject(rest, o);
    const name = displayName(o);
    out.push({ name, action });
    opts.onApplied?.(name, action);
  }
  await waitEstablished(
    rest,
    objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name),
    opts.timeoutMs ?? 60_000,
  );
  return out;
}
