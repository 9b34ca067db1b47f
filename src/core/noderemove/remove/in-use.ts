// What the runtime is using, as plain objects: containers (any state) and pod sandboxes. An
// image any of them references is `in-use` and never removed. Sandboxes count because CRI
// ListContainers does not list them: without them, the image behind every running pod's
// sandbox (the "pause" image) would look unused on runtimes that do not pin it (containerd 1.6).
import { normalizeAlias } from '../targets.js';

export interface ImageView {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  pinned: boolean;
  /** Bytes, as ListImages reports it. */
  size?: number;
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

export interface SandboxView {
  id: string;
  /** `namespace/name` of the pod, for messages. */
  pod?: string;
  /** The image backing the sandbox as the runtime names it (containerd 1.6: a tag ref). */
  image: string;
}

/** Who uses an image: a container or a pod sandbox, by ID. */
export interface ImageUser {
  kind: 'container' | 'sandbox';
  id: string;
  pod?: string;
}

/** Every name of an image, as the report lists them: tags, digest refs, then the ID. */
export function aliasesOf(img: ImageView): string[] {
  return img.id ? [...img.repoTags, ...img.repoDigests, img.id] : [...img.repoTags, ...img.repoDigests];
}

/** All lookup keys of a name: as written plus normalized (so `nginx:1` finds docker.io/library/nginx:1). */
function keys(name: string | undefined): string[] {
  if (!name) return [];
  const n = normalizeAlias(name);
  return n && n !== name ? [name, n] : [name];
}

/** A short, readable description of a user, for the report's detail column. */
export function describeUser(u: ImageUser): string {
  return u.kind === 'container'
    ? `used by container ${u.id.slice(0, 13)}`
    : `backs pod sandbox ${u.id.slice(0, 13)}${u.pod ? ` (${u.pod})` : ''}`;
}

/**
 * Index of what containers and sandboxes reference, whatever their state (an exited container
 * can be restarted, and its image is still its rootfs): a container's imageRef, imageId and
 * image field, a sandbox's image.
 */
export class InUseIndex {
  private readonly refs = new Map<string, ImageUser>(); // key -> first user

  constructor(containers: readonly ContainerView[], sandboxes: readonly SandboxView[] = []) {
    for (const c of containers) {
      for (const name of [c.imageRef, c.imageId, c.image]) {
        for (const k of keys(name)) if (!this.refs.has(k)) this.refs.set(k, { kind: 'container', id: c.id });
      }
    }
    for (const s of sandboxes) {
      for (const k of keys(s.image)) {
        if (!this.refs.has(k)) this.refs.set(k, { kind: 'sandbox', id: s.id, pod: s.pod });
      }
    }
  }

  /** A container or sandbox using the image, or undefined. */
  usedBy(img: ImageView): ImageUser | undefined {
    for (const alias of aliasesOf(img)) {
      for (const k of keys(alias)) {
        const u = this.refs.get(k);
        if (u !== undefined) return u;
      }
    }
    return undefined;
  }
}
