// `inv install`: server-side applies the CRDs (and, with the daemon, the whole deploy/ bundle)
// in dependency order, then waits until the CRDs are Established so that `inv scan` can run
// right after. Never deletes anything: an object dropped from a newer bundle stays until
// `inv uninstall` or the administrator removes it.
import { applyObject, displayName, objectPath, type ApplyAction, type KubeObject } from '../kube/apply.js';
import { waitEstablished } from '../kube/crd-install.js';
import { isAlreadyExists, type KubeRest } from '../kube/rest.js';
import { applyOrder, readBundle } from './bundle.js';

export interface InstallOptions {
  /** Also the daemon: namespaces, RBAC, Deployment, NetworkPolicies. */
  daemon: boolean;
  image?: string;
  /** Deadline for the CRDs to become Established. */
  timeoutMs?: number;
  onApplied?: (name: string, action: ApplyAction) => void;
}

/** Objects annotated so are created when missing and never changed afterwards (the erase configuration). */
export const INSTALL_ANNOTATION = 'imageinventory.dev/install';
export const isCreateOnly = (o: KubeObject): boolean =>
  (o.metadata.annotations as Record<string, string> | undefined)?.[INSTALL_ANNOTATION] === 'create-only';

/**
 * The objects install would apply, in order. Without the daemon: the CRDs, and the erase
 * configuration with its namespace (erase refuses to run without it, `--standalone` too).
 */
export function installObjects(opts: Pick<InstallOptions, 'daemon' | 'image'>): KubeObject[] {
  const all = applyOrder(readBundle({ image: opts.image }));
  if (opts.daemon) return all;
  const config = all.find((o) => o.kind === 'ConfigMap' && isCreateOnly(o));
  return all.filter(
    (o) =>
      o.kind === 'CustomResourceDefinition' ||
      o === config ||
      (o.kind === 'Namespace' && o.metadata.name === config?.metadata.namespace),
  );
}

/** Creates `o` unless it exists: an administrator's later edits are never overwritten. */
async function createIfMissing(rest: KubeRest, o: KubeObject): Promise<ApplyAction> {
  try {
    await rest.request('POST', objectPath(o).replace(/\/[^/]+$/, ''), { body: o });
    return 'created';
  } catch (e) {
    if (isAlreadyExists(e)) return 'unchanged';
    throw e;
  }
}

export async function install(
  rest: KubeRest,
  opts: InstallOptions,
): Promise<{ name: string; action: ApplyAction }[]> {
  const out: { name: string; action: ApplyAction }[] = [];
  const objects = installObjects(opts);
  for (const o of objects) {
    const action = isCreateOnly(o) ? await createIfMissing(rest, o) : (await applyObject(rest, o)).action;
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
