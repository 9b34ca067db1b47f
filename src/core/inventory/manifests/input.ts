// Where offline manifests (`inv scan -f`, `inv images -f`) come from: a file, a directory of
// them, stdin, or anything else that can be read as a stream: a FIFO (`-f <(helm template .)`
// is /dev/fd/63, a pipe), a character device (/dev/null, a TTY) or a unix socket. Each input is
// read whole, up to a size limit, and decoded from UTF-8 or, when it starts with a BOM, UTF-16
// (what PowerShell's `>` writes). Inputs are yielded one at a time, so a directory of large
// files never holds more than one of them.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { formatSize } from '../../size.js';

/** The documented default limit for one input (file or stream): 256 MiB. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024;

export class ManifestError extends Error {}

export interface ManifestInput {
  /** The path, or <stdin>. */
  name: string;
  text: string;
}

export interface InputOptions {
  maxBytes?: number;
  /** The stream behind '-' (process.stdin by default). */
  stdin?: Readable;
}

/** Silence allowed from a unix socket server before giving up on it. */
const SOCKET_IDLE_MS = 30_000;

const MANIFEST_FILE = /\.(ya?ml|json)$/i;
/** Paths that name one of our own file descriptors; a socket there must be read, not connected to. */
const FD_PATH = /^\/(?:dev\/(?:stdin|fd\/(\d+))|proc\/(?:self|\d+)\/fd\/(\d+))$/;

function tooLarge(name: string, max: number): ManifestError {
  return new ManifestError(
    `${name}: larger than ${formatSize(max)}, the limit for one input (raise it with --max-input-size)`,
  );
}

/** Yields every input under `p`, in a stable order (directories walked sorted by name). */
export async function* manifestInputs(p: string, opts: InputOptions = {}): AsyncGenerator<ManifestInput> {
  const max = opts.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  if (p === '-') {
    yield {
      name: '<stdin>',
      text: decode(await readStream(opts.stdin ?? process.stdin, '<stdin>', max), '<stdin>'),
    };
    return;
  }
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch (e) {
    throw new ManifestError(describeFsError(p, e));
  }
  if (st.isDirectory()) {
    for (const file of walk(p)) yield { name: file, text: decode(readFile(file, max), file) };
  } else if (st.isFile()) {
    yield { name: p, text: decode(readFile(p, max), p) };
  } else {
    yield { name: p, text: decode(await readStream(openStream(p, st), p, max), p) };
  }
}

function describeFsError(p: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${p}: no such file or directory`;
  if (code === 'EACCES' || code === 'EPERM') return `${p}: permission denied`;
  if (code === 'ENOTDIR') return `${p}: a part of the path is not a directory`;
  return `${p}: cannot read: ${(e as Error).message}`;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new ManifestError(describeFsError(dir, e));
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(full));
    // Only regular files (or links to them) with a manifest extension: a FIFO or socket inside
    // a directory would block the walk, and nobody names one *.yaml by accident.
    else if (MANIFEST_FILE.test(e.name) && (e.isFile() || (e.isSymbolicLink() && isFile(full))))
      out.push(full);
  }
  return out;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function readFile(p: string, max: number): Buffer {
  try {
    if (fs.statSync(p).size > max) throw tooLarge(p, max);
    return fs.readFileSync(p);
  } catch (e) {
    if (e instanceof ManifestError) throw e;
    throw new ManifestError(describeFsError(p, e));
  }
}

function openStream(p: string, st: fs.Stats): Readable {
  if (st.isSocket()) {
    const m = FD_PATH.exec(p);
    // /dev/stdin (or /dev/fd/N) can be a socket when a program, not a shell, starts us: read
    // the descriptor we already hold. Any other socket path is a server to connect to.
    if (m) return new net.Socket({ fd: Number(m[1] ?? m[2] ?? 0), readable: true, writable: false });
    // A server we connect to gets a deadline on silence: one that never sends or closes must
    // not hold the command forever.
    const sock = net.createConnection({ path: p });
    sock.setTimeout(SOCKET_IDLE_MS, () =>
      sock.destroy(new Error(`${p}: the socket sent nothing for ${SOCKET_IDLE_MS / 1000} s`)),
    );
    return sock;
  }
  // FIFOs, character and block devices.
  return fs.createReadStream(p);
}

/** Reads a stream to its end, failing (and closing it) as soon as it passes `max` bytes. */
export async function readStream(stream: Readable, name: string, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += b.length;
      if (size > max) throw tooLarge(name, max);
      chunks.push(b);
    }
  } catch (e) {
    if (e instanceof ManifestError) {
      stream.destroy();
      throw e;
    }
    throw new ManifestError(describeFsError(name, e));
  }
  return Buffer.concat(chunks, size);
}

/**
 * Bytes to text: a UTF-8 BOM is dropped, a UTF-16 BOM (LE or BE) selects UTF-16, anything else
 * is UTF-8. Text that still holds NUL characters is not a manifest (UTF-16 without a BOM, or a
 * binary file): that is an error rather than a silently empty result.
 */
export function decode(buf: Buffer, name: string): string {
  let text: string;
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    text = buf.toString('utf8', 3);
  } else if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
    text = buf.toString('utf16le', 2);
  } else if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    if (buf.length % 2)
      throw new ManifestError(`${name}: UTF-16 (big-endian) input with an odd number of bytes`);
    text = Buffer.from(buf.subarray(2)).swap16().toString('utf16le');
  } else {
    text = buf.toString('utf8');
  }
  if (text.includes('\0')) {
    throw new ManifestError(
      `${name}: contains NUL characters: not UTF-8 text (UTF-16 is read only with a byte-order mark)`,
    );
  }
  return text;
}
