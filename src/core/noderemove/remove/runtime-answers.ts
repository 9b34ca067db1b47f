// What node-remove does with runtime answers it cannot take at face value, as pure functions.
// Each one used to fail open:
// - a container whose image, imageRef and image ID are all empty cannot be attributed to any
//   image, so no image looked in use and a `*` prune would have removed every one, the
//   container's included. Such a container refuses every removal on the node for that run
//   (fail closed), with the reason;
// - an image listed without an ID cannot be removed by ID (removal by ID is what takes the whole
//   image): it used to become RemoveImage(""). It is refused, with the reason;
// - two entries with one ID are one image: their names are merged (and one pin pins it), so its
//   row lists every alias and it is removed, or kept, once.
import type { ContainerView, ImageView } from './in-use.js';

const blank = (s: string | undefined) => !s || s.trim() === '';

/** Containers that name no image at all (image, imageRef and imageId empty). */
export function unattributedContainers(containers: readonly ContainerView[]): ContainerView[] {
  return containers.filter((c) => blank(c.image) && blank(c.imageRef) && blank(c.imageId));
}

/**
 * Why nothing may be removed on this node this run, or undefined: the reason names the first
 * container the runtime listed without any image name.
 */
export function unattributedReason(containers: readonly ContainerView[]): string | undefined {
  const bad = unattributedContainers(containers);
  if (bad.length === 0) return undefined;
  const first = bad[0]!;
  const who = `container ${first.id.slice(0, 13) || '(no ID)'}${first.state ? ` (${first.state})` : ''}`;
  const more = bad.length > 1 ? ` and ${bad.length - 1} more` : '';
  return `refused: the runtime lists ${who}${more} with no image (image, imageRef and image ID are empty), so it cannot tell which image that container uses: nothing is removed on this node this run`;
}

export const NO_ID_REASON =
  'refused: the runtime lists this image without an ID, and inv removes images only by ID';

export interface VettedImages {
  /** One entry per ID (entries sharing an ID merged), then the images without an ID. */
  images: ImageView[];
  /** IDs the runtime listed more than once, with how many times. */
  duplicates: { id: string; count: number }[];
  /** How many images came without an ID. */
  withoutId: number;
}

/** The runtime's image list with duplicate IDs merged and images without an ID set apart. */
export function vetImages(images: readonly ImageView[]): VettedImages {
  const byId = new Map<string, { img: ImageView; count: number }>();
  const noId: ImageView[] = [];
  for (const img of images) {
    if (blank(img.id)) {
      noId.push({ ...img, id: '' });
      continue;
    }
    const seen = byId.get(img.id);
    if (!seen) {
      byId.set(img.id, { img, count: 1 });
      continue;
    }
    const a = seen.img;
    seen.count++;
    seen.img = {
      id: a.id,
      repoTags: [...new Set([...a.repoTags, ...img.repoTags])],
      repoDigests: [...new Set([...a.repoDigests, ...img.repoDigests])],
      pinned: a.pinned || img.pinned,
      size: Math.max(a.size ?? 0, img.size ?? 0),
    };
  }
  const duplicates = [...byId.values()]
    .filter((e) => e.count > 1)
    .map((e) => ({ id: e.img.id, count: e.count }));
  return { images: [...[...byId.values()].map((e) => e.img), ...noId], duplicates, withoutId: noId.length };
}

/** Warnings for the report (stderr and the JSON `warnings`): what was odd in the answers. */
export function runtimeAnswerWarnings(
  images: readonly ImageView[],
  containers: readonly ContainerView[],
): string[] {
  const out: string[] = [];
  const reason = unattributedReason(containers);
  if (reason) out.push(reason.replace(/^refused: /, ''));
  const v = vetImages(images);
  if (v.withoutId > 0)
    out.push(`the runtime lists ${v.withoutId} image(s) without an ID; they are never removed`);
  if (v.duplicates.length > 0) {
    const d = v.duplicates[0]!;
    const more = v.duplicates.length > 1 ? ` (and ${v.duplicates.length - 1} more IDs)` : '';
    out.push(
      `the runtime lists image ${d.id} ${d.count} times${more}; the entries of one ID are one image, with all their names`,
    );
  }
  return out;
}
