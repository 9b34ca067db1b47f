// The sandbox ("pause") image: which image the runtime starts every pod sandbox from, and
// whether we know it well enough to prune. Pure: the runtime's answers in, a verdict out.
//
// Removing the sandbox image breaks the next pod start on a node that cannot pull (offline,
// private mirror). Runtimes that pin it (containerd >= 1.7, CRI-O) protect it through
// `pinned`; containerd 1.6 pins nothing, so the sandbox image is known only from its CRI
// Status(verbose) config, an optional answer. Images backing existing sandboxes are in use
// anyway (in-use.ts); what Status alone tells is the configured image, which may back no
// sandbox yet. So when nothing tells us the sandbox image, we fail closed: a `*` prune
// removes nothing, and a target that looks like a pause image is refused.
import { matchesExclusion, type ExclusionMatcher } from '../../refs/exclusion.js';
import { parseDigestOrId } from '../../refs/normalize.js';
import { aliasesOf, InUseIndex, type ImageView, type SandboxView } from './in-use.js';

/**
 * The runtime's configured sandbox image, from CRI Status(verbose) info when the runtime
 * publishes it: containerd puts its CRI config JSON under info.config (sandboxImage); other
 * runtimes may use other keys, which are tried too. undefined when not discoverable.
 */
export function sandboxImageFromStatusInfo(info: Record<string, string>): string | undefined {
  for (const value of Object.values(info)) {
    const o = parseObject(value);
    if (!o) continue;
    for (const k of ['sandboxImage', 'pauseImage', 'pause_image', 'sandbox_image']) {
      if (typeof o[k] === 'string' && o[k]) return o[k] as string;
    }
  }
  return undefined;
}

/**
 * The image backing one sandbox, from CRI PodSandboxStatus(verbose) info. containerd 1.6 and
 * later answer `info.info` = JSON with `image` (the image name the sandbox was created from,
 * e.g. "registry.k8s.io/pause:3.6"; checked against the real containerd in the tests). Other
 * runtimes: the same `image` key, or an image-name annotation in the runtime spec.
 */
export function sandboxImageFromPodSandboxInfo(info: Record<string, string>): string | undefined {
  for (const value of Object.values(info)) {
    const o = parseObject(value);
    if (!o) continue;
    for (const k of ['image', 'sandboxImage', 'pauseImage']) {
      if (typeof o[k] === 'string' && o[k]) return o[k] as string;
    }
    const spec = o.runtimeSpec as Record<string, unknown> | undefined;
    const ann = spec && typeof spec === 'object' ? (spec.annotations as Record<string, unknown>) : undefined;
    if (ann && typeof ann === 'object') {
      for (const k of ['io.kubernetes.cri.image-name', 'io.kubernetes.cri-o.Image']) {
        if (typeof ann[k] === 'string' && ann[k]) return ann[k] as string;
      }
    }
  }
  return undefined;
}

function parseObject(value: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a name looks like a pause image: its repository (normalized, host included) ends in
 * `pause`, or contains `/pause` or `mirrored-pause`. Covers registry.k8s.io/pause, k3s's
 * rancher/mirrored-pause, EKS's …/eks/pause, AKS's …/oss/kubernetes/pause, GKE's
 * gke.gcr.io/pause, pause-amd64 and mirrors of them. Used only to refuse, never to remove.
 */
export function isPauseLike(name: string): boolean {
  const p = parseDigestOrId(name);
  if (p.kind !== 'ref') return false;
  const repo = p.ref.name.toLowerCase();
  return repo.endsWith('pause') || repo.includes('/pause') || repo.includes('mirrored-pause');
}

/** True when any name of the image looks like a pause image. */
export const imageLooksLikePause = (img: ImageView): boolean => aliasesOf(img).some((a) => isPauseLike(a));

/** What the runtime told us (or not) about sandboxes and its sandbox image. */
export interface SandboxFacts {
  /** Status(verbose): the configured sandbox image, or why it is unknown ("failed: …"). */
  status: { image: string } | { unknown: string };
  /** Sandboxes whose backing image was read. */
  sandboxes: readonly SandboxView[];
  /** Sandboxes whose image could not be read, and why. */
  unreadable: readonly { id: string; pod?: string; reason: string }[];
}

export type SandboxGuard =
  | {
      determined: true;
      /** status: Status(verbose) names it; pinned: the runtime pins images (and so its sandbox
       * image); exclusion: an operator exclusion protects a pause-like or sandbox-backing image. */
      via: 'status' | 'pinned' | 'exclusion';
      /** The configured image (status) or the protecting pattern (exclusion). */
      detail?: string;
    }
  | { determined: false; reason: string };

const list = (xs: readonly string[], max = 3) =>
  xs.length <= max ? xs.join(', ') : `${xs.slice(0, max).join(', ')} and ${xs.length - max} more`;

/**
 * Decides whether the sandbox image is known. `operatorExclusions` are the user's patterns
 * only: the built-in pause defaults say nothing about a mirrored or renamed sandbox image.
 */
export function assessSandbox(input: {
  facts: SandboxFacts;
  images: readonly ImageView[];
  operatorExclusions: readonly ExclusionMatcher[];
}): SandboxGuard {
  const { facts, images } = input;
  if ('image' in facts.status) return { determined: true, via: 'status', detail: facts.status.image };
  if (images.some((i) => i.pinned)) return { determined: true, via: 'pinned' };
  const backing = new InUseIndex([], facts.sandboxes);
  const candidates = images.filter((i) => backing.usedBy(i) !== undefined || imageLooksLikePause(i));
  for (const img of candidates) {
    const pattern = matchesExclusion(input.operatorExclusions, aliasesOf(img));
    if (pattern !== undefined) return { determined: true, via: 'exclusion', detail: pattern };
  }
  const why = `CRI Status(verbose) ${facts.status.unknown}`;
  const seen = [...new Set(facts.sandboxes.map((s) => s.image))];
  const hint =
    seen.length > 0
      ? ` Images backing pod sandboxes here: ${list(seen)}.`
      : candidates.length > 0
        ? ` Pause-like images here: ${list(candidates.map((c) => c.repoTags[0] ?? c.repoDigests[0] ?? c.id))}.`
        : '';
  return {
    determined: false,
    reason:
      `the runtime's sandbox (pause) image cannot be determined (${why}; no image is pinned). ` +
      `To prune anyway, name it in the exclusions (--exclude <sandbox image>, or the exclusion list).${hint}`,
  };
}
