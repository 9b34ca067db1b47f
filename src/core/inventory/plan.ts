// The pure half of a namespace rebuild: given the desired ref → kinds map and the Images
// that exist, decide what to create, update, delete, and what must be left alone.
import { isManaged, sameStatus, type ImageResource, type ImageStatus } from './image-resource.js';
import { imageResourceName } from './naming.js';
import { kindsString, usersStatus } from './rules.js';
import type { Kind } from './source-fields.js';

export type Change = 'create' | 'update' | 'delete' | 'none' | 'conflict';

export interface PlannedImage {
  name: string;
  image: string;
  kinds: string;
  /** The whole desired status (kinds, users, userCount). */
  status: ImageStatus;
  change: Change;
  /** For updates: which parts differ. */
  specChanged?: boolean;
  statusChanged?: boolean;
  /** The existing object, for update/delete/conflict. */
  current?: ImageResource;
  reason?: string;
}

export function planNamespace(
  desired: Map<string, Set<Kind>>,
  existing: ImageResource[],
  users: Map<string, Set<string>> = new Map(),
): PlannedImage[] {
  const byName = new Map(existing.map((i) => [i.metadata.name, i]));
  const out: PlannedImage[] = [];
  const wanted = new Set<string>();
  for (const [image, kindSet] of desired) {
    const name = imageResourceName(image);
    const kinds = kindsString(kindSet);
    const status: ImageStatus = { kinds, ...usersStatus(users.get(image)) };
    wanted.add(name);
    const cur = byName.get(name);
    if (!cur) {
      out.push({ name, image, kinds, status, change: 'create' });
    } else if (!isManaged(cur)) {
      out.push({
        name,
        image,
        kinds,
        status,
        change: 'conflict',
        current: cur,
        reason: `an Image named ${name} exists without the managed-by label; it is left untouched`,
      });
    } else {
      const specChanged = cur.spec?.image !== image;
      const statusChanged = !sameStatus(cur.status, status);
      out.push({
        name,
        image,
        kinds,
        status,
        change: specChanged || statusChanged ? 'update' : 'none',
        specChanged,
        statusChanged,
        current: cur,
      });
    }
  }
  for (const cur of existing) {
    if (!wanted.has(cur.metadata.name) && isManaged(cur) && !cur.metadata.deletionTimestamp) {
      out.push({
        name: cur.metadata.name,
        image: cur.spec?.image ?? '',
        kinds: cur.status?.kinds ?? '',
        status: cur.status ?? {},
        change: 'delete',
        current: cur,
      });
    }
  }
  return out.sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : 0));
}
