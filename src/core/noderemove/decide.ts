// The pure decision step of `inv node-remove`: from plain objects (the runtime's images and
// containers, the targets, the exclusion matchers) to one decision per (target, image).
// Nothing here talks to the runtime, so every rule is unit-testable with literals.
//
// Order of the keep rules, most fundamental first: an image a container uses is `in-use`
// (removing it would break the container or its restart), then `pinned` (the runtime asked us
// not to), then `excluded` (the operator asked us not to).
import { matchesExclusion, type ExclusionMatcher } from '../refs/exclusion.js';
import { normalizeAlias, parseTarget } from './targets.js';
import type { Decision } from './types.js';

export interface ImageView {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  pinned: boolean;
}

export interface ContainerView {
  id: string;
  /** The image as requested when the container was created (ContainerSpec.image). */
  image?: string;
  /** The runtime's resolved image (containerd: the ID; CRI-O: a digest ref). */
  imageRef: string;
  /** runtime.v1 Container.image_id, '' when absent. */
  imageId?: string;
  state?: string;
}

export interface DecideInput {
  images: readonly ImageView[];
  containers: readonly ContainerView[];
  /** Targets as the user wrote them, in order (duplicates are reported once). */
  targets: readonly string[];
  exclusions: readonly ExclusionMatcher[];
}

/** Every name of an image, as the report lists them: tags, digest refs, then the ID. */
export function aliasesOf(img: ImageView): string[] {
  return [...img.repoTags, ...img.repoDigests, img.id];
}

/** All lookup keys of a name: as written plus normalized (so `nginx:1` finds docker.io/library/nginx:1). */
function keys(name: string | undefined): string[] {
  if (!name) return [];
  const n = normalizeAlias(name);
  return n && n !== name ? [name, n] : [name];
}

/**
 * Index of what containers reference, whatever their state (an exited container can be
 * restarted, and its image is still its rootfs): imageRef, imageId and the image field.
 */
export class InUseIndex {
  private readonly refs = new Map<string, string>(); // key -> first container id

  constructor(containers: readonly ContainerView[]) {
    for (const c of containers) {
      for (const name of [c.imageRef, c.imageId, c.image]) {
        for (const k of keys(name)) if (!this.refs.has(k)) this.refs.set(k, c.id);
      }
    }
  }

  /** The ID of a container using the image, or undefined. */
  usedBy(img: ImageView): string | undefined {
    for (const alias of aliasesOf(img)) {
      for (const k of keys(alias)) {
        const c = this.refs.get(k);
        if (c !== undefined) return c;
      }
    }
    return undefined;
  }
}

/**
 * Lookup of images by normalized ID, tag and digest ref, built once: matching each target by
 * scanning (and re-normalizing) every image would make a 200-target list over a few hundred
 * images cost a noticeable fraction of a second.
 */
class ImageLookup {
  private readonly byId = new Map<string, ImageView[]>();
  private readonly byTag = new Map<string, ImageView[]>();
  private readonly byDigest = new Map<string, ImageView[]>();

  constructor(private readonly images: readonly ImageView[]) {
    const add = (m: Map<string, ImageView[]>, key: string | undefined, img: ImageView) => {
      if (key === undefined) return;
      const list = m.get(key);
      if (!list) m.set(key, [img]);
      else if (!list.includes(img)) list.push(img);
    };
    for (const img of images) {
      add(this.byId, normalizeAlias(img.id), img);
      for (const t of img.repoTags) add(this.byTag, normalizeAlias(t), img);
      for (const d of img.repoDigests) add(this.byDigest, normalizeAlias(d), img);
    }
  }

  /** Images matched by a parsed target. */
  match(target: ReturnType<typeof parseTarget>): ImageView[] {
    switch (target.kind) {
      case 'all':
        return [...this.images];
      case 'id':
        return this.byId.get(target.id) ?? [];
      case 'digest':
        return this.byDigest.get(target.ref) ?? [];
      case 'tag':
        return this.byTag.get(target.ref) ?? [];
      default:
        return [];
    }
  }
}

/** Why an image must be kept, or undefined when it may be removed. */
export function keepReason(
  img: ImageView,
  inUse: InUseIndex,
  exclusions: readonly ExclusionMatcher[],
): { outcome: 'in-use' | 'pinned' | 'excluded'; detail: string } | undefined {
  const container = inUse.usedBy(img);
  if (container !== undefined)
    return { outcome: 'in-use', detail: `used by container ${container.slice(0, 13)}` };
  if (img.pinned) return { outcome: 'pinned', detail: 'pinned by the runtime' };
  const pattern = matchesExclusion(exclusions, aliasesOf(img));
  if (pattern !== undefined) return { outcome: 'excluded', detail: `excluded by ${pattern}` };
  return undefined;
}

export function decide(input: DecideInput): Decision[] {
  const inUse = new InUseIndex(input.containers);
  const lookup = new ImageLookup(input.images);
  const out: Decision[] = [];
  const seenTargets = new Set<string>();
  for (const raw of input.targets) {
    if (seenTargets.has(raw)) continue;
    seenTargets.add(raw);
    const target = parseTarget(raw);
    if (target.kind === 'invalid') {
      out.push({
        target: raw,
        imageId: '',
        aliases: [],
        action: 'keep',
        outcome: 'invalid',
        detail: target.reason,
      });
      continue;
    }
    const matched = lookup.match(target);
    if (matched.length === 0) {
      out.push({
        target: raw,
        imageId: '',
        aliases: [],
        action: 'keep',
        outcome: 'not-present',
        detail: 'no such image on this node',
      });
      continue;
    }
    for (const img of matched) {
      const keep = keepReason(img, inUse, input.exclusions);
      out.push({
        target: raw,
        imageId: img.id,
        aliases: aliasesOf(img),
        action: keep ? 'keep' : 'remove',
        outcome: keep ? keep.outcome : 'remove',
        detail: keep ? keep.detail : '',
      });
    }
  }
  return out;
}
