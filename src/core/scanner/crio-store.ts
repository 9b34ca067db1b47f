// CRI-O's image store (containers/storage), read-only, for the scanner: where one image's
// configuration and layers are, checked before anything is served to Trivy. Trivy has no CRI-O
// source, so on a CRI-O node the scanner reads the store the administrator mounted
// (scanners.<name>.storageHostPath) and serves each image to Trivy itself (./store-registry.ts).
//
// The layout read (containers/storage's overlay driver):
//   overlay-images/images.json            [{id, names, layer (the top layer's id), ...}]
//   overlay-images/<id>/=<base64(key)>    the image's "big data": its configuration is the key
//                                          "sha256:<id>" (the id is the configuration's digest)
//   overlay-layers/layers.json            [{id, parent, diff-digest, diff-size, flags, ...}]
//   overlay-layers/<layer>.tar-split.gz   how the layer's original tar is rebuilt (./tar-split.ts)
//   overlay/<layer>/diff                  the layer's unpacked files
// The JSON indexes are written whole and renamed into place by containers/storage, so a read sees
// one version or the other; nothing here takes its lock (a read-only mount could not) or writes.
import fs from 'node:fs';
import path from 'node:path';
import { isObj } from '../guards.js';
import { readAtMost } from './shared-files.js';

/** The drivers whose layout is read here; any other is refused by name, per image. */
export const SUPPORTED_DRIVERS = ['overlay'] as const;
/** The store's indexes are small (a few KB per image); more than this is not a store. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

/** An image the store cannot give: the scanner reports it scan-failed with this message. */
export class UnreadableImage extends Error {}

export interface StoreLayer {
  id: string;
  /** The uncompressed tar's digest (the configuration's diff_id). */
  diffDigest: string;
  diffSize: number;
  tarSplit: string;
  diffDir: string;
}

export interface StoreImage {
  id: string;
  config: Buffer;
  /** Bottom layer first, as the configuration's rootfs.diff_ids. */
  layers: StoreLayer[];
}

/** The storage driver of the store at `root`: the `<driver>-images` folder it holds. */
export function storeDriver(root: string): string {
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch (e) {
    throw new UnreadableImage(`cannot read CRI-O's image store at ${root}: ${(e as Error).message}`);
  }
  const drivers = entries.filter((e) => e.endsWith('-images')).map((e) => e.slice(0, -'-images'.length));
  if (drivers.includes('overlay')) return 'overlay';
  if (!drivers.length) throw new UnreadableImage(`${root} holds no containers/storage image store`);
  return drivers[0]!;
}

async function readJson(file: string, limit: number): Promise<unknown> {
  let text: string;
  try {
    text = (await readAtMost(file, limit, 'it')).toString('utf8');
  } catch (e) {
    throw new UnreadableImage(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UnreadableImage(`${file} is not readable JSON: ${(e as Error).message}`);
  }
}

const HEX64 = /^[a-f0-9]{64}$/;

/** containers/storage's file name for a big-data key that is not a plain word. */
const bigDataFile = (key: string) =>
  /^[A-Za-z0-9._-]+$/.test(key) && !key.startsWith('=') ? key : `=${Buffer.from(key).toString('base64')}`;

/**
 * One image's configuration and layers, every layer checked present and complete; rejects with
 * UnreadableImage, the reason. `imageId` is CRI-O's id (the configuration's digest, hex, with
 * or without `sha256:`).
 */
export async function readStoreImage(root: string, imageId: string): Promise<StoreImage> {
  const driver = storeDriver(root);
  if (!(SUPPORTED_DRIVERS as readonly string[]).includes(driver))
    throw new UnreadableImage(
      `CRI-O's storage driver is ${driver}; inv's scanner reads only ${SUPPORTED_DRIVERS.join(', ')} stores`,
    );
  const id = imageId.replace(/^sha256:/, '');
  if (!HEX64.test(id)) throw new UnreadableImage(`${JSON.stringify(imageId)} is not a CRI-O image id`);
  const images = await readJson(path.join(root, `${driver}-images`, 'images.json'), MAX_INDEX_BYTES);
  const image = Array.isArray(images) ? images.find((i) => isObj(i) && i.id === id) : undefined;
  if (!isObj(image)) throw new UnreadableImage(`image ${id.slice(0, 12)} is not in CRI-O's store`);
  const configFile = path.join(root, `${driver}-images`, id, bigDataFile(`sha256:${id}`));
  let config: Buffer;
  try {
    config = await readAtMost(configFile, MAX_CONFIG_BYTES, 'it');
  } catch (e) {
    throw new UnreadableImage(`image ${id.slice(0, 12)}: its configuration: ${(e as Error).message}`);
  }
  const layerIndex = await readJson(path.join(root, `${driver}-layers`, 'layers.json'), MAX_INDEX_BYTES);
  const byId = new Map<string, Record<string, unknown>>();
  for (const l of Array.isArray(layerIndex) ? layerIndex : [])
    if (isObj(l) && typeof l.id === 'string') byId.set(l.id, l);
  const layers: StoreLayer[] = [];
  let next = typeof image.layer === 'string' ? image.layer : '';
  while (next) {
    const l = byId.get(next);
    if (!l) throw new UnreadableImage(`image ${id.slice(0, 12)}: layer ${next.slice(0, 12)} is missing`);
    if (layers.length > 1000) throw new UnreadableImage(`image ${id.slice(0, 12)}: its layers form a loop`);
    if (!HEX64.test(next)) throw new UnreadableImage(`layer id ${JSON.stringify(next)} is not hex`);
    if (isObj(l.flags) && l.flags.incomplete === true)
      throw new UnreadableImage(`layer ${next.slice(0, 12)} is incomplete (being written or removed)`);
    if (typeof l['diff-digest'] !== 'string' || typeof l['diff-size'] !== 'number')
      throw new UnreadableImage(`layer ${next.slice(0, 12)} has no recorded digest and size`);
    layers.unshift({
      id: next,
      diffDigest: l['diff-digest'],
      diffSize: l['diff-size'],
      tarSplit: path.join(root, `${driver}-layers`, `${next}.tar-split.gz`),
      diffDir: path.join(root, driver, next, 'diff'),
    });
    next = typeof l.parent === 'string' ? l.parent : '';
  }
  checkLayers(id, config, layers);
  return { id, config, layers };
}

/** The layers match the configuration, and each has its files and its tar-split. */
function checkLayers(id: string, config: Buffer, layers: StoreLayer[]): void {
  let diffIds: unknown;
  try {
    diffIds = (JSON.parse(config.toString('utf8')) as { rootfs?: { diff_ids?: unknown } }).rootfs?.diff_ids;
  } catch (e) {
    throw new UnreadableImage(
      `image ${id.slice(0, 12)}: its configuration is not JSON: ${(e as Error).message}`,
    );
  }
  const want = Array.isArray(diffIds) ? diffIds : [];
  if (want.length !== layers.length || want.some((d, i) => d !== layers[i]!.diffDigest))
    throw new UnreadableImage(
      `image ${id.slice(0, 12)}: its layers in the store do not match its configuration's diff_ids`,
    );
  for (const l of layers) {
    for (const [what, p] of [
      ['files', l.diffDir],
      ['tar-split', l.tarSplit],
    ] as const) {
      try {
        fs.statSync(p);
      } catch (e) {
        throw new UnreadableImage(
          `layer ${l.id.slice(0, 12)}: its ${what} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message} at ${p})`,
        );
      }
    }
  }
}
