// When an object with our owner label but no recorded UID may still be adopted: its content is
// exactly what we would create. A controller killed between its POST and the status write that
// records the new object's UID finds, after a restart, its own object without proof that it is
// its own; treating it as foreign would move the name (or fail the job) on every such crash.
// Adopting on identical content is as safe as creating: the bytes are the ones we would have
// written, whoever wrote them, and whoever can write them can also change our own objects later
// (the workers verify their inputs' SHA-256 for that reason). Anything more or less, or a
// finalizer that could hold the object on deletion, and it stays foreign (fail closed).
import type { KubeRest } from '../kube/rest.js';

/** The shape compared here (objects.ts's KubeObject fits it; kept apart to avoid a cycle). */
interface KubeObject {
  metadata?: { name?: string; finalizers?: string[]; [k: string]: unknown };
  [k: string]: unknown;
}

/** Stable JSON (sorted keys, undefined dropped) so equal manifests always compare and hash alike. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Top-level fields that are not content: identity and type, metadata, what the server reports. */
const NOT_CONTENT = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/**
 * Whether `live` holds exactly the content of `desired` (every top-level field but identity,
 * metadata and status, both ways) and carries no finalizer. Fields the API server defaults make
 * a difference, so only kinds without defaulted content (ConfigMaps) are ever adopted this way.
 */
export function sameContent(live: KubeObject, desired: KubeObject): boolean {
  if ((live.metadata?.finalizers ?? []).length > 0) return false;
  const keys = new Set([...Object.keys(live), ...Object.keys(desired)].filter((k) => !NOT_CONTENT.has(k)));
  for (const k of keys) if (canonical(live[k]) !== canonical(desired[k])) return false;
  return true;
}

/**
 * sameContent against what the API server would store for `desired`: compared as it is first,
 * then (for kinds the server defaults, such as a PodTemplate's Pod spec) against a server-side
 * dry run of its create under a generated name. Any error answers false: kept foreign.
 */
export async function sameAsCreated(
  rest: KubeRest,
  collection: string,
  live: KubeObject,
  desired: KubeObject,
): Promise<boolean> {
  if (sameContent(live, desired)) return true;
  if ((live.metadata?.finalizers ?? []).length > 0) return false;
  const { name, ...metadata } = desired.metadata ?? {};
  const probe = await rest
    .request<KubeObject>('POST', collection, {
      body: { ...desired, metadata: { ...metadata, generateName: `${name ?? 'probe'}-` } },
      query: { dryRun: 'All' },
    })
    .catch(() => undefined);
  return probe !== undefined && sameContent(live, probe);
}
