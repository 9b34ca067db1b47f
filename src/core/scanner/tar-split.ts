// One layer of CRI-O's store as the exact tar it was unpacked from, rebuilt as a stream from the
// layer's tar-split file and its unpacked files, read-only. containers/storage keeps, per layer,
// `<id>.tar-split.gz` (vbatts/tar-split): gzipped JSON lines, each either a segment of the
// original tar's own bytes (headers, padding; type 2, base64) or a file whose content is the file
// of that name under the layer's `diff` folder (type 1, with its size). Emitting them in order
// gives back the original tar byte for byte, so its SHA-256 is the layer's recorded diff digest
// (what the consumer verifies) and whiteouts and ownership are those of the image, not of the
// overlay folder. Nothing is buffered beyond one read; nothing is written.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { UnreadableImage, type StoreLayer } from './crio-store.js';

const CHUNK = 256 * 1024;
/** A tar-split line is a header segment or a file entry: far below this. */
const MAX_LINE = 16 * 1024 * 1024;

interface Entry {
  type?: number;
  name?: string;
  name_raw?: string;
  size?: number;
  payload?: string | null;
}

/** The path, relative to the layer's `diff` folder, of the file an entry names; a name that would leave it is refused. */
function relOf(e: Entry): string {
  const name =
    e.name_raw !== undefined ? Buffer.from(e.name_raw, 'base64').toString('latin1') : (e.name ?? '');
  const rel = path.posix.normalize(`/${name}`).slice(1).replace(/\/+$/, '');
  if (!rel || rel.split('/').includes('..'))
    throw new UnreadableImage(`tar-split names ${JSON.stringify(name)}`);
  return rel;
}

/**
 * The layer's folder (`overlay/<id>`) with every symbolic link of the store's own path resolved:
 * the administrator's mount may use links; the layer's own folders may not.
 */
async function layerRoot(layer: StoreLayer): Promise<Buffer> {
  try {
    return await fs.promises.realpath(path.dirname(layer.diffDir), { encoding: 'buffer' });
  } catch (e) {
    throw new UnreadableImage(
      `layer ${layer.id.slice(0, 12)}: its files cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message} at ${layer.diffDir})`,
    );
  }
}

/**
 * Yields `size` bytes of the file at `rel` under the layer's `diff` folder, or throws when it has
 * not them. O_NOFOLLOW guards only the last component; a symbolic link anywhere above it (`diff`
 * itself, or a folder inside it) would lead the open out of the layer. So after the open, the
 * path the kernel actually opened (/proc/self/fd, which cannot race as a check before the open
 * could) must be the one expected, byte for byte, or the file is refused.
 */
async function* fileBytes(
  root: Buffer,
  rel: string,
  size: number,
  layer: StoreLayer,
): AsyncGenerator<Buffer> {
  const id = layer.id.slice(0, 12);
  const file = path.join(layer.diffDir, rel);
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    throw new UnreadableImage(
      `layer ${id}: a file is missing from its files (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: ${file})`,
    );
  }
  try {
    // Node encodes a string path as UTF-8 when it opens it; the expected bytes are encoded alike.
    const expected = Buffer.concat([root, Buffer.from(`/${path.basename(layer.diffDir)}/${rel}`)]);
    let opened: Buffer;
    try {
      opened = await fs.promises.readlink(`/proc/self/fd/${fh.fd}`, { encoding: 'buffer' });
    } catch (e) {
      throw new UnreadableImage(`layer ${id}: cannot tell where ${file} leads (${(e as Error).message})`);
    }
    if (!opened.equals(expected))
      throw new UnreadableImage(
        `layer ${id}: ${file} leads outside the layer's files through a symbolic link (to ${opened.toString()})`,
      );
    let left = size;
    while (left > 0) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, left));
      const { bytesRead } = await fh.read(buf, 0, buf.length, size - left);
      if (bytesRead === 0) throw new UnreadableImage(`layer ${id}: ${file} is shorter than the layer says`);
      left -= bytesRead;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/** The layer's original tar, in order. Throws UnreadableImage when the store cannot give it. */
export async function* layerTar(layer: StoreLayer): AsyncGenerator<Buffer> {
  const raw = fs.createReadStream(layer.tarSplit);
  const lines = readline.createInterface({ input: raw.pipe(zlib.createGunzip()), crlfDelay: Infinity });
  let n = 0;
  let root: Buffer | undefined;
  try {
    for await (const line of lines) {
      n++;
      if (!line) continue;
      if (line.length > MAX_LINE)
        throw new UnreadableImage(`layer ${layer.id.slice(0, 12)}: tar-split line too long`);
      let e: Entry;
      try {
        e = JSON.parse(line) as Entry;
      } catch {
        throw new UnreadableImage(`layer ${layer.id.slice(0, 12)}: tar-split line ${n} is not JSON`);
      }
      if (e.type === 2) {
        if (typeof e.payload === 'string' && e.payload) yield Buffer.from(e.payload, 'base64');
      } else if (e.type === 1) {
        const size = e.size ?? 0;
        if (size > 0) {
          const rel = relOf(e);
          root ??= await layerRoot(layer);
          yield* fileBytes(root, rel, size, layer);
        }
      } else {
        throw new UnreadableImage(`layer ${layer.id.slice(0, 12)}: tar-split entry ${n} has type ${e.type}`);
      }
    }
  } catch (e) {
    if (e instanceof UnreadableImage) throw e;
    throw new UnreadableImage(`layer ${layer.id.slice(0, 12)}: its tar-split: ${(e as Error).message}`);
  } finally {
    lines.close();
    raw.destroy();
  }
}
