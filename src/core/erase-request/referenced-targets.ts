// Before a targeted removal: which of the named images does the inventory say a workload still
// references? The removal goes ahead (the user named the image on purpose), but `inv erase`
// names the users first, and asks on a TTY. Reads the Image resources; a cluster without the
// Image CRD has no inventory to consult.
import { isNotFound, type KubeRest } from '../kube/rest.js';
import { imagesPath, type ImageResource } from '../inventory/image-resource.js';
import { normalizeRef, parseDigestOrId } from '../refs/normalize.js';
import { distance } from '../edit-distance.js';
import { summarizeImages } from '../erase/spec/images.js';

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

export interface UnseenTarget {
  target: string;
  /** The closest ref the inventory holds, as people write it ("nginx:1.25"). */
  suggestion: string;
}

/**
 * Pure: targets (name:tag refs) no Image has, for which the inventory holds a ref within two
 * edits ("ngnix:1.25" → "nginx:1.25"): likely a typo, said before the job is made. A target
 * with no close ref says nothing: removing what no workload uses is what erase is for.
 */
export function unseenTargets(targets: readonly string[], images: readonly ImageResource[]): UnseenTarget[] {
  const refs = new Set<string>();
  for (const img of images) {
    const r = img.spec?.image ? normalizeRef(img.spec.image) : undefined;
    if (r?.ok && r.ref.tag !== undefined && r.ref.digest === undefined)
      refs.add(`${r.ref.name}:${r.ref.tag}`);
  }
  const out: UnseenTarget[] = [];
  for (const target of targets) {
    const t = parseDigestOrId(target);
    if (t.kind !== 'ref' || t.ref.tag === undefined || t.ref.digest !== undefined) continue;
    const want = `${t.ref.name}:${t.ref.tag}`;
    if (refs.has(want)) continue;
    let best: { ref: string; d: number } | undefined;
    for (const ref of refs) {
      if (Math.abs(ref.length - want.length) > 2) continue;
      const d = distance(want, ref);
      if (d <= 2 && (!best || d < best.d)) best = { ref, d };
    }
    if (best) out.push({ target, suggestion: summarizeImages([best.ref], 200) });
  }
  return out;
}

/** What the inventory says about the targets: who references them, and likely typos. */
export async function inventoryTargets(
  rest: KubeRest,
  targets: readonly string[],
): Promise<{ referenced: ReferencedTarget[]; unseen: UnseenTarget[] }> {
  if (targets.length === 0) return { referenced: [], unseen: [] };
  let images: ImageResource[];
  try {
    images = (await rest.list<ImageResource>(imagesPath())).items;
  } catch (e) {
    if (isNotFound(e)) return { referenced: [], unseen: [] };
    throw e;
  }
  return { referenced: referencedTargets(targets, images), unseen: unseenTargets(targets, images) };
}

export async function findReferencedTargets(
  rest: KubeRest,
  targets: readonly string[],
): Promise<ReferencedTarget[]> {
  return (await inventoryTargets(rest, targets)).referenced;
}
