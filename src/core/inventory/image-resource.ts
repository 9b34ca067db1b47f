// The Image custom resource as the inventory reads and writes it.
import { apiVersionOf, KINDS } from '../kube/kinds.js';
import { resourcePath } from '../kube/resources.js';
export const IMAGE_API_VERSION = apiVersionOf(KINDS.Image);
export { MANAGED_BY_LABEL } from '../constants.js';
import { MANAGED_BY_LABEL } from '../constants.js';
export const MANAGED_BY_VALUE = 'image-inventory-controller';

export interface ImageResource {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: { image?: string };
  status?: ImageStatus;
}

export interface ImageStatus {
  kinds?: string;
  /** "Kind/name" of the objects credited, sorted, at most USERS_CAP of them. */
  users?: string[];
  /** How many objects are credited (users may be capped). */
  userCount?: number;
}

/** True when `cur` already says what `want` says (so no status write is needed). */
export function sameStatus(cur: ImageStatus | undefined, want: ImageStatus): boolean {
  return (
    (cur?.kinds ?? '') === (want.kinds ?? '') &&
    (cur?.userCount ?? 0) === (want.userCount ?? 0) &&
    JSON.stringify(cur?.users ?? []) === JSON.stringify(want.users ?? [])
  );
}

export const isManaged = (img: ImageResource): boolean =>
  img.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE;

/** Images of one namespace (all namespaces without one), or one Image, or its status. */
export const imagesPath = (namespace?: string, name?: string, sub?: 'status'): string =>
  resourcePath('Image', namespace, name || undefined, sub);

/** Strips an Image to what the inventory compares, so large namespaces stay cheap to hold. */
export function stripImage(o: ImageResource): ImageResource {
  const out: ImageResource = {
    metadata: {
      name: o.metadata.name,
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      ...(o.metadata.uid ? { uid: o.metadata.uid } : {}),
      ...(o.metadata.resourceVersion ? { resourceVersion: o.metadata.resourceVersion } : {}),
      ...(o.metadata.labels?.[MANAGED_BY_LABEL] !== undefined
        ? { labels: { [MANAGED_BY_LABEL]: o.metadata.labels[MANAGED_BY_LABEL] } }
        : {}),
      ...(o.metadata.deletionTimestamp ? { deletionTimestamp: o.metadata.deletionTimestamp } : {}),
    },
  };
  if (o.spec) out.spec = { ...(o.spec.image !== undefined ? { image: o.spec.image } : {}) };
  if (o.status)
    out.status = {
      ...(o.status.kinds !== undefined ? { kinds: o.status.kinds } : {}),
      ...(o.status.users !== undefined ? { users: o.status.users } : {}),
      ...(o.status.userCount !== undefined ? { userCount: o.status.userCount } : {}),
    };
  return out;
}
