// The CustomResourceDefinitions this CLI works with, and how a missing one is recognised.
// An API server answers a request for a resource type it does not serve with a bare
// "404 page not found" (not a Status object), which callers used to pass through verbatim; here
// it becomes one error that names the CRD and says what to do.
import { KINDS } from './kinds.js';
import { groupVersionPath } from './resources.js';
import { KubeApiError, type KubeRest } from './rest.js';

export interface OurCrd {
  /** metadata.name of the CRD, e.g. images.imageinventory.dev */
  name: string;
  group: string;
  /** The version this CLI reads and writes. */
  version: string;
  plural: string;
  kind: string;
}

// Group, version and plural from the kind table; the CRD's name is `plural.group`.
const ourCrd = (kind: 'Image' | 'ImageList' | 'ImageJob' | 'ImageJobRecord'): OurCrd => {
  const { group, version, plural } = KINDS[kind];
  return { name: `${plural}.${group}`, group, version, plural, kind };
};
export const IMAGE_CRD: OurCrd = ourCrd('Image');
export const IMAGELIST_CRD: OurCrd = ourCrd('ImageList');
export const IMAGEJOB_CRD: OurCrd = ourCrd('ImageJob');
/** The removal record: ImageJobRecords outlive their ImageJob (`inv erase history`). */
export const IMAGEJOBRECORD_CRD: OurCrd = ourCrd('ImageJobRecord');
export const OUR_CRDS: readonly OurCrd[] = [IMAGE_CRD, IMAGELIST_CRD, IMAGEJOB_CRD, IMAGEJOBRECORD_CRD];
export const ERASE_CRDS: readonly OurCrd[] = [IMAGELIST_CRD, IMAGEJOB_CRD, IMAGEJOBRECORD_CRD];

export class CrdMissingError extends Error {
  constructor(readonly crd: OurCrd) {
    super(`the ${crd.kind} CRD (${crd.name}) is not installed in this cluster; run \`inv install\``);
  }
}

/**
 * What `inv images` and `inv scan --dry-run` say (on stderr) when they read the workloads because
 * the Image CRD is not there: a user with only a kubeconfig sees the images, and learns that
 * nothing of inv is installed rather than that the command failed.
 */
export const NO_INVENTORY_NOTE =
  `note: inv is not installed in this cluster (no ${IMAGE_CRD.kind} CRD, ${IMAGE_CRD.name}): the images ` +
  'are read from the workloads, nothing is written; `inv install` then `inv scan` keeps them as Image resources';

/**
 * The CRD a failed request was about, when the failure means "this type is not served": a 404
 * that is not a Status with reason NotFound (that one means the object is absent) on a path of
 * one of our groups.
 */
export function asCrdMissing(e: unknown): CrdMissingError | undefined {
  if (e instanceof CrdMissingError) return e;
  if (!(e instanceof KubeApiError) || e.code !== 404 || e.reason === 'NotFound') return undefined;
  const m = /^\/apis\/([^/]+)\/([^/]+)\/(?:namespaces\/[^/]+\/)?([^/]+)/.exec(e.path);
  const crd = m && OUR_CRDS.find((c) => c.group === m[1] && c.plural === m[3]);
  return crd ? new CrdMissingError(crd) : undefined;
}

interface ApiResourceList {
  resources?: { name: string }[];
}

/**
 * Which of `crds` the API server does not serve at the version this CLI uses. Uses discovery
 * (/apis/<group>/<version>), which every authenticated user may read, unlike the CRD objects
 * themselves. One GET per group.
 */
export async function missingCrds(rest: KubeRest, crds: readonly OurCrd[]): Promise<OurCrd[]> {
  const byGroup = new Map<string, OurCrd[]>();
  for (const c of crds) {
    const key = groupVersionPath(c.group, c.version);
    byGroup.set(key, [...(byGroup.get(key) ?? []), c]);
  }
  const missing: OurCrd[] = [];
  for (const [path, list] of byGroup) {
    try {
      const res = await rest.request<ApiResourceList>('GET', path);
      const served = new Set((res.resources ?? []).map((r) => r.name));
      missing.push(...list.filter((c) => !served.has(c.plural)));
    } catch (e) {
      if (!(e instanceof KubeApiError && e.code === 404)) throw e;
      missing.push(...list);
    }
  }
  return missing;
}

/**
 * Whether the API server serves `subresource` of `crd` (discovery lists "images/status" when the
 * CRD declares a status subresource). One GET with the client's deadline; a CRD that is not served
 * at all is CrdMissingError.
 */
export async function servesSubresource(rest: KubeRest, crd: OurCrd, subresource: string): Promise<boolean> {
  let res: ApiResourceList;
  try {
    res = await rest.request<ApiResourceList>('GET', groupVersionPath(crd.group, crd.version));
  } catch (e) {
    if (e instanceof KubeApiError && e.code === 404) throw new CrdMissingError(crd);
    throw e;
  }
  const served = new Set((res.resources ?? []).map((r) => r.name));
  if (!served.has(crd.plural)) throw new CrdMissingError(crd);
  return served.has(`${crd.plural}/${subresource}`);
}

/** Fails with CrdMissingError for the first of `crds` that is not served. */
export async function requireCrds(rest: KubeRest, crds: readonly OurCrd[]): Promise<void> {
  const [first] = await missingCrds(rest, crds);
  if (first) throw new CrdMissingError(first);
}
