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

/** The file an entry names, inside `diffDir`; a name that would leave it is refused. */
function fileOf(diffDir: string, e: Entry): string {
  const name =
    e.name_raw !== undefined ? Buffer.from(e.name_raw, 'base64').toString('latin1') : (e.name ?? '');
  const rel = path.posix.normalize(`/${name}`).slice(1);
  if (!rel || rel.split('/').includes('..'))
    throw new UnreadableImage(`tar-split names ${JSON.stringify(name)}`);
  return path.join(diffDir, rel);
}

/** Yields `size` bytes of `file` (not following a symbolic link), or throws when it has not them. */
async function* fileBytes(file: string, size: number, layer: string): AsyncGenerator<Buffer> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    throw new UnreadableImage(
      `layer ${layer.slice(0, 12)}: a file is missing from its files (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: ${file})`,
    );
  }
  try {
    let left = size;
    while (left > 0) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, left));
      const { bytesRead } = await fh.read(buf, 0, buf.length, size - left);
      if (bytesRead === 0)
        throw new UnreadableImage(`layer ${layer.slice(0, 12)}: ${file} is shorter than the layer says`);
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
        if (size > 0) yield* fileBytes(fileOf(layer.diffDir, e), size, layer.id);
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
