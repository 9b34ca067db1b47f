// Before a targeted removal: which of the named images does the inventory say a workload still
// references? The removal goes ahead (the user named the image on purpose), but `inv erase`
// names the users first, and asks on a TTY. Reads the Image resources; a cluster without the
// Image CRD has no inventory to consult.
import { isNotFound, type KubeRest } from '../../kube/rest.js';
import { imagesPath, type ImageResource } from '../../inventory/image-resource.js';
import { normalizeRef, parseDigestOrId } from '../../refs/normalize.js';

export interface ReferencedTarget {
  target: string;
  /** "Deployment/web in shop", at most a few per target, plus "and N more". */
  users: string[];
}

const SHOWN = 5;

/** Pure: matches targets against Images (same name, and the same tag or the same digest). */
export function referencedTargets(
  targets: readonly string[],
  images: readonly ImageResource[],
): ReferencedTarget[] {
  const out: ReferencedTarget[] = [];
  const parsed = images.flatMap((img) => {
    const r = img.spec?.image ? normalizeRef(img.spec.image) : undefined;
    return r?.ok ? [{ img, ref: r.ref }] : [];
  });
  for (const target of targets) {
    const t = parseDigestOrId(target);
    if (t.kind !== 'ref') continue;
    const users: string[] = [];
    let count = 0;
    for (const { img, ref } of parsed) {
      if (ref.name !== t.ref.name) continue;
      const sameTag = t.ref.tag !== undefined && ref.tag === t.ref.tag;
      const sameDigest = t.ref.digest !== undefined && ref.digest === t.ref.digest;
      if (!sameTag && !sameDigest) continue;
      const ns = img.metadata.namespace ?? '';
      const who = img.status?.users?.length ? img.status.users : [img.status?.kinds || 'a workload'];
      for (const u of who) {
        count++;
        if (users.length < SHOWN) users.push(`${u} in ${ns}`);
      }
    }
    if (count > SHOWN) users.push(`and ${count - SHOWN} more`);
    if (count) out.push({ target, users });
  }
  return out;
}

export async function findReferencedTargets(
  rest: KubeRest,
  targets: readonly string[],
): Promise<ReferencedTarget[]> {
  if (targets.length === 0) return [];
  let images: ImageResource[];
  try {
    images = (await rest.list<ImageResource>(imagesPath())).items;
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
  return referencedTargets(targets, images);
}
