// Typed access to scripts/oci-archive.mjs: builds busybox-based OCI image archives and imports
// them into the run's private containerd (see ./cri.ts), waiting until CRI lists them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { criAddress, criDir, criSnapshotter } from './cri.js';
import { repoRoot } from './paths.js';

export interface ImageInput {
  /** Full names, e.g. `docker.io/library/app:1` (containerd records exactly these). */
  refs: string[];
  /** Anything; different values give different image IDs. */
  distinct: string;
  /** Default command of the image (defaults to `sleep 3600`). */
  cmd?: string[];
  /** Entrypoint of the image (none by default); a Pod's args are appended to it. */
  entrypoint?: string[];
  /** Also record `<repo>@<manifest digest>` names, so CRI reports repoDigests. */
  digestRefs?: boolean;
  /** A second layer holding a file of this many bytes: an image of a chosen size. */
  padBytes?: number;
  /** Files of a second layer over busybox (what a scanner reads: /var/lib/dpkg/status...). */
  files?: { path: string; data: string | Buffer; mode?: number }[];
  /** The config's `created` (RFC 3339), which CRI's verbose ImageStatus reports; none by default. */
  created?: string;
}

export interface BuiltImage {
  /** Every name recorded in the archive (including digest refs). */
  refs: string[];
  /** The image ID (config digest), as CRI reports it. */
  id: string;
  manifestDigest: string;
}

interface OciArchiveModule {
  writeArchive(file: string, images: ImageInput[]): BuiltImage[];
  importArchive(opts: {
    address: string;
    file: string;
    snapshotter?: string;
    namespace?: string;
    ctr?: string;
  }): void;
}
interface CriModule {
  ctrFor(dir: string): string;
}

let mod: Promise<OciArchiveModule> | undefined;
const load = () =>
  (mod ??= import(path.join(repoRoot, 'scripts', 'oci-archive.mjs')) as Promise<OciArchiveModule>);

/** Writes one archive holding one image (several names, one ID). */
export async function buildImageArchive(opts: ImageInput & { file: string }): Promise<BuiltImage> {
  const { file, ...img } = opts;
  const [built] = (await load()).writeArchive(file, [img]);
  return built!;
}

/** Writes one archive holding several images that share the busybox layer. */
export async function buildImagesArchive(file: string, images: ImageInput[]): Promise<BuiltImage[]> {
  return (await load()).writeArchive(file, images);
}

/** `ctr images import` of `file` into the CRI namespace of the containerd at `address`. */
export async function importImage(file: string, address = criAddress()): Promise<void> {
  // The ctr of the current runtime (containerd 2.x has its own).
  const cri = (await import(path.join(repoRoot, 'scripts', 'cri.mjs'))) as CriModule;
  (await load()).importArchive({ address, file, snapshotter: criSnapshotter(), ctr: cri.ctrFor(criDir()) });
}

/** Builds, imports and returns the images, via a temporary archive. */
export async function addImages(images: ImageInput[]): Promise<BuiltImage[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-oci-'));
  try {
    const file = path.join(dir, 'images.tar');
    const built = await buildImagesArchive(file, images);
    await importImage(file);
    return built;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
