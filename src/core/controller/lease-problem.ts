// Small helpers of the Lease clients (leader-election.ts, heartbeat.ts): an abortable sleep, the
// status code of a failed call, and why a Lease call failed in words an operator can act on.
import { KubeApiError } from '../kube/rest.js';

export { sleep } from './backoff.js';

export const statusCode = (err: unknown): number | undefined =>
  err instanceof KubeApiError ? err.code : undefined;

/**
 * Why a Lease call failed, in words an operator can act on. A 404 on create means the
 * namespace is missing (the Lease itself was just found missing), the commonest first-run fault.
 */
export function leaseProblem(verb: string, namespace: string, name: string, err: unknown): string {
  const where = `Lease ${namespace}/${name}`;
  const code = statusCode(err);
  if (verb === 'create' && code === 404)
    return `cannot create ${where}: namespace ${namespace} does not exist (create it, or pass --leader-elect-namespace)`;
  if (code === 403) return `cannot ${verb} ${where}: forbidden (${(err as Error).message})`;
  return `cannot ${verb} ${where}: ${err instanceof Error ? err.message : String(err)}`;
}
