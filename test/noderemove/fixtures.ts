// Plain-object images for the pure node-remove tests (decisions, sandbox rules, targets).
import type { ImageView } from '../../src/core/noderemove/index.js';

/** A 64-hex digest made of one repeated character. */
export const hex = (c: string) => c.repeat(64);

/** An image with ID sha256:<hex(c)>, the given tags, no digests, not pinned (unless `extra`). */
export const img = (c: string, repoTags: string[], extra: Partial<ImageView> = {}): ImageView => ({
  id: `sha256:${hex(c)}`,
  repoTags,
  repoDigests: [],
  pinned: false,
  ...extra,
});
