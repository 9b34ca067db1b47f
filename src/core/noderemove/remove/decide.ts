// The pure decision step of `inv node-remove`: from plain objects (the runtime's images,
// containers and sandboxes, the targets, the exclusion matchers, what is known of the sandbox
// image) to one decision per (target, image). Nothing here talks to the runtime, so every rule
// is unit-testable with literals.
//
// Order of the keep rules, most fundamental first: an image a container or a pod sandbox uses
// is `in-use` (removing it would break the container or its restart), then `pinned` (the
// runtime asked us not to), then `sandbox-image` (the runtime needs it for the next pod), then
// `excluded` (the operator asked us not to). When the sandbox image cannot be determined, a `*`
// prune and pause-like targets are refused (`failed`). Answers that cannot be taken at face
// value (runtime-answers.ts) refuse removals too: an image without an ID, and every removal on
// the node when a container names no image at all.
import { matchesExclusion, type ExclusionMatcher } from '../../refs/exclusion.js';
import {
  aliasesOf,
  describeUser,
  InUseIndex,
  type ContainerView,
  type ImageView,
  type SandboxView,
} from './in-use.js';
import { NO_ID_REASON, unattributedReason, vetImages } from './runtime-answers.js';
import { imageLooksLikePause, isPauseLike, type SandboxGuard } from './sandbox.js';
import { normalizeAlias, parseTarget } from '../targets.js';
import type { Decision, Target } from '../types.js';
import type { ProtectedIndex } from '../../contract/protected-set.js';

export {
  aliasesOf,
  InUseIndex,
  type ContainerView,
  type ImageUser,
  type ImageView,
  type SandboxView,
} from './in-use.js';

export interface DecideInput {
  images: readonly ImageView[];
  containers: readonly ContainerView[];
  /** Pod sandboxes with the image backing each (every state). */
  sandboxes?: readonly SandboxView[];
  /** Targets as the user wrote them, in order (duplicates are reported once). */
  targets: readonly string[];
  /** The operator's exclusion patterns. */
  exclusions: readonly ExclusionMatcher[];
  /**
   * Patterns of the sandbox (pause) image: the upstream pause image's names and the runtime's
   * configured sandbox image. A match is kept as `sandbox-image`, not as an exclusion.
   */
  sandboxImages?: readonly ExclusionMatcher[];
  /** Whether the runtime's sandbox image is known (sandbox.ts assessSandbox). */
  sandbox: SandboxGuard;
  /**
   * The inventory's protected refs, for `*` only: an image a workload references (even one
   * scaled to zero or suspended) is kept. A targeted removal names the image on purpose.
   */
  protection?: ProtectedIndex;
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

  /** Images matched by a parsed target (an ID prefix may match several: the caller refuses that). */
  match(target: Target): ImageView[] {
    switch (target.kind) {
      case 'all':
        return [...this.images];
      case 'id':
        return this.byId.get(target.id) ?? [];
      case 'id-prefix': {
        const named = target.ref === undefined ? undefined : this.byTag.get(target.ref);
        if (named) return named;
        const prefix = `sha256:${target.prefix}`;
        return [...this.byId.entries()].filter(([id]) => id.startsWith(prefix)).flatMap(([, imgs]) => imgs);
      }
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
  sandboxImages: readonly ExclusionMatcher[] = [],
): { outcome: 'in-use' | 'pinned' | 'sandbox-image' | 'excluded'; detail: string } | undefined {
  const user = inUse.usedBy(img);
  if (user !== undefined) return { outcome: 'in-use', detail: describeUser(user) };
  if (img.pinned) return { outcome: 'pinned', detail: 'pinned by the runtime' };
  const sandbox = matchesExclusion(sandboxImages, aliasesOf(img));
  if (sandbox !== undefined) return { outcome: 'sandbox-image', detail: `sandbox image (${sandbox})` };
  const pattern = matchesExclusion(exclusions, aliasesOf(img));
  if (pattern !== undefined) return { outcome: 'excluded', detail: `excluded by ${pattern}` };
  return undefined;
}

/** Normalized repo tags (`name:tag`) and repo digests (`name@digest`) of an image. */
function normalizedAliases(img: ImageView): string[] {
  const out: string[] = [];
  for (const a of [...img.repoTags, ...img.repoDigests]) {
    const n = normalizeAlias(a);
    if (n !== undefined) out.push(n);
  }
  return out;
}

const label = (img: ImageView) => (img.repoTags[0] ? `${img.id} (${img.repoTags[0]})` : img.id);

export function decide(input: DecideInput): Decision[] {
  const inUse = new InUseIndex(input.containers, input.sandboxes ?? []);
  const lookup = new ImageLookup(vetImages(input.images).images);
  const unattributed = unattributedReason(input.containers);
  const guard = input.sandbox;
  const out: Decision[] = [];
  const seenTargets = new Set<string>();
  const none = (raw: string, outcome: Decision['outcome'], detail: string): Decision => ({
    target: raw,
    imageId: '',
    aliases: [],
    size: 0,
    action: 'keep',
    outcome,
    detail,
  });
  for (const raw of input.targets) {
    if (seenTargets.has(raw)) continue;
    seenTargets.add(raw);
    const target = parseTarget(raw);
    if (target.kind === 'invalid') {
      out.push(none(raw, 'invalid', target.reason));
      continue;
    }
    if (target.kind === 'all' && !guard.determined) {
      // Fail closed: without the sandbox image, "everything unused" could include it.
      out.push(none(raw, 'failed', `refused: a * prune removes nothing here: ${guard.reason}`));
      continue;
    }
    const matched = lookup.match(target);
    if (target.kind === 'id-prefix' && matched.length > 1) {
      const names = matched.slice(0, 5).map(label).join(', ');
      const more = matched.length > 5 ? ` and ${matched.length - 5} more` : '';
      out.push(none(raw, 'invalid', `ambiguous image ID prefix: matches ${names}${more}`));
      continue;
    }
    if (matched.length === 0) {
      out.push(none(raw, 'not-present', 'no such image on this node'));
      continue;
    }
    for (const img of matched) {
      const keep = keepReason(img, inUse, input.exclusions, input.sandboxImages);
      const base = { target: raw, imageId: img.id, aliases: aliasesOf(img), size: img.size ?? 0 };
      const protectedBy =
        !keep && target.kind === 'all' && input.protection
          ? input.protection.reasonFor(normalizedAliases(img))
          : undefined;
      if (keep) {
        out.push({ ...base, action: 'keep', outcome: keep.outcome, detail: keep.detail });
      } else if (protectedBy !== undefined) {
        out.push({ ...base, action: 'keep', outcome: 'protected', detail: protectedBy });
      } else if (!guard.determined && (imageLooksLikePause(img) || isPauseLike(raw))) {
        out.push({
          ...base,
          action: 'keep',
          outcome: 'failed',
          detail: `refused: this looks like a pause image, and ${guard.reason}`,
        });
      } else if (!img.id) {
        out.push({ ...base, action: 'keep', outcome: 'failed', detail: NO_ID_REASON });
      } else if (unattributed !== undefined) {
        out.push({ ...base, action: 'keep', outcome: 'failed', detail: unattributed });
      } else {
        out.push({ ...base, action: 'remove', outcome: 'remove', detail: '' });
      }
    }
  }
  return out;
}
