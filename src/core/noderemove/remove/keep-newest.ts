// Keep the newest N images of each repository on the node (`--keep-newest N`, ImageList
// spec.keepNewest); the older ones stay the candidates decide() made them. PURE: the images, the
// decisions and the creation times the runtime gave in; decisions out. Only ever turns a removal
// of the `*` target into a keep (`kept-newest`, with the rank), so an image in use, pinned, a
// sandbox image, excluded, protected or out of scope keeps its own outcome; each still counts in
// its repository's ranking (it is one of the versions on the node).
//
// A repository is an image name without tag or digest (`docker.io/library/app`), taken from the
// image's tags and digest refs; an image named in several repositories is kept when any of them
// keeps it. "Newest", one order per repository on the node:
//   1. by version: when every tag of the repository on the node reads as a version
//      (refs/tag-version.ts) and every image has a tag there, the highest version first;
//   2. else by creation time: when the runtime gives every image's creation time (ImageStatus's
//      verbose info, the OCI config's `created`: containerd and CRI-O both give it), latest first;
//   3. else by tag: the image's greatest tag in natural order (digits as numbers) first, images
//      with no tag there last.
// Ties go to the next order down, then to the image ID, so the ranking is stable. An image with
// no name at all belongs to no repository and keep-newest does not hold it.
import { parseDigestOrId } from '../../refs/normalize.js';
import { compareNatural, compareVersions, parseTagVersion, type TagVersion } from '../../refs/tag-version.js';
import { PRUNE_ALL } from '../targets.js';
export { keepNewestProblem, MAX_KEEP_NEWEST, parseKeepNewest } from '../../contract/keep-newest-bound.js';
import type { ImageView } from './in-use.js';
import type { Decision } from '../types.js';

export type NewestOrder = 'version' | 'created' | 'tag';

interface Member {
  id: string;
  tags: string[];
}

/** Each repository's images on the node (each image once per repository). */
export function repositories(images: readonly ImageView[]): Map<string, Member[]> {
  const repos = new Map<string, Map<string, Member>>();
  for (const img of images) {
    if (!img.id) continue;
    for (const alias of [...img.repoTags, ...img.repoDigests]) {
      const p = parseDigestOrId(alias);
      if (p.kind !== 'ref') continue;
      const byId = repos.get(p.ref.name) ?? new Map<string, Member>();
      repos.set(p.ref.name, byId);
      const m = byId.get(img.id) ?? { id: img.id, tags: [] };
      byId.set(img.id, m);
      if (p.ref.tag !== undefined && p.ref.digest === undefined && !m.tags.includes(p.ref.tag))
        m.tags.push(p.ref.tag);
    }
  }
  return new Map([...repos].map(([name, byId]) => [name, [...byId.values()]]));
}

const versionOf = (m: Member): TagVersion | undefined => {
  let best: TagVersion | undefined;
  for (const t of m.tags) {
    const v = parseTagVersion(t);
    if (v && (!best || compareVersions(v, best) > 0)) best = v;
  }
  return best;
};

const byVersion = (members: readonly Member[]): boolean =>
  members.every((m) => m.tags.length > 0 && m.tags.every((t) => parseTagVersion(t) !== undefined));

/**
 * The images whose creation time the ranking needs: those of repositories with more than N
 * images whose tags are not all versions (ask the runtime for just these).
 */
export function needCreated(images: readonly ImageView[], n: number): string[] {
  const ids = new Set<string>();
  for (const members of repositories(images).values())
    if (members.length > n && !byVersion(members)) for (const m of members) ids.add(m.id);
  return [...ids];
}

/** The creation time in an ImageStatus verbose info map (`info` → `imageSpec.created`), in ms. */
export function createdFromInfo(info: Readonly<Record<string, string>>): number | undefined {
  const text = info.info;
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { imageSpec?: { created?: unknown } };
    const created = v?.imageSpec?.created;
    const ms = typeof created === 'string' ? Date.parse(created) : NaN;
    return Number.isFinite(ms) ? ms : undefined;
  } catch {
    return undefined;
  }
}

const greatestTag = (m: Member) => [...m.tags].sort(compareNatural).at(-1);

/** The repository's images newest first, and the order that ranked them. */
export function rankRepository(
  members: readonly Member[],
  created: ReadonlyMap<string, number>,
): { order: NewestOrder; newestFirst: string[] } {
  const order: NewestOrder = byVersion(members)
    ? 'version'
    : members.every((m) => created.has(m.id))
      ? 'created'
      : 'tag';
  const byTag = (a: Member, b: Member) => {
    const ta = greatestTag(a);
    const tb = greatestTag(b);
    if (ta === undefined || tb === undefined) return (ta === undefined ? 1 : 0) - (tb === undefined ? 1 : 0);
    return compareNatural(tb, ta);
  };
  const byCreated = (a: Member, b: Member) => (created.get(b.id) ?? 0) - (created.get(a.id) ?? 0);
  const sorted = [...members].sort(
    (a, b) =>
      (order === 'version' ? compareVersions(versionOf(b)!, versionOf(a)!) : 0) ||
      (order !== 'tag' ? byCreated(a, b) : 0) ||
      byTag(a, b) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  return { order, newestFirst: sorted.map((m) => m.id) };
}

/** Why keep-newest holds each image it holds: `newest 2 of 5 in docker.io/library/app (by version)`. */
export function keptNewest(
  images: readonly ImageView[],
  n: number,
  created: ReadonlyMap<string, number>,
): Map<string, string> {
  const kept = new Map<string, { rank: number; text: string }>();
  for (const [name, members] of repositories(images)) {
    const { order, newestFirst } = rankRepository(members, created);
    newestFirst.slice(0, n).forEach((id, i) => {
      const prev = kept.get(id);
      if (prev && prev.rank <= i + 1) return;
      kept.set(id, { rank: i + 1, text: `newest ${i + 1} of ${members.length} in ${name} (by ${order})` });
    });
  }
  return new Map([...kept].map(([id, k]) => [id, k.text]));
}

export function applyKeepNewest(
  decisions: readonly Decision[],
  images: readonly ImageView[],
  n: number,
  created: ReadonlyMap<string, number> = new Map(),
): Decision[] {
  const kept = keptNewest(images, n, created);
  return decisions.map((d) => {
    const why = d.target === PRUNE_ALL && d.action === 'remove' ? kept.get(d.imageId) : undefined;
    return why === undefined ? d : { ...d, action: 'keep', outcome: 'kept-newest', detail: why };
  });
}
