// Creating a namespace that can take Pods at once. The ServiceAccount admission plugin rejects
// Pods until the namespace's "default" ServiceAccount exists, and that appears asynchronously
// (the ServiceAccounts controller creates it), so callers that create Pods right away wait for it.
import { sleep } from '../concurrency.js';
import * as resources from './resources.js';
import { isAlreadyExists, isNotFound, KubeApiError, type KubeRest } from './rest.js';

/** Creates `name` unless it exists, then waits for its default ServiceAccount. */
export async function ensureNamespace(rest: KubeRest, name: string, timeoutMs = 20_000): Promise<void> {
  try {
    await resources.create(rest, 'Namespace', undefined, { metadata: { name } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await resources.get(rest, 'ServiceAccount', name, 'default');
      return;
    } catch (e) {
      if (!isNotFound(e)) throw e;
      if (Date.now() > deadline)
        throw new Error(`default ServiceAccount never appeared in namespace ${name}`);
      await sleep(50);
    }
  }
}

/**
 * True when namespace `name` surely does not exist (a 404 on GET). A user whose Roles live only in
 * that namespace may not read the cluster-scoped Namespace: a 403 proves nothing and is false.
 */
export async function namespaceMissing(rest: KubeRest, name: string): Promise<boolean> {
  try {
    await resources.get(rest, 'Namespace', undefined, name);
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    if (e instanceof KubeApiError && e.code === 403) return false;
    throw e;
  }
}
