// The scanner side of the shared folder's files. Node.js has no mkfifo, so this side never makes
// a pipe: it reads what the collector put there (a FIFO from Eraser's collector, or a regular
// file that inv renames into place; reading to EOF works for both), and it answers with a
// regular file renamed into place, which inv accepts (docs/scan-mode.md, "The scanner contract"). Every wait has
// a deadline and every read a size limit.
import { sleep } from '../concurrency.js';
import fs from 'node:fs';
import path from 'node:path';

const POLL_MS = 200;

export class DeadlineError extends Error {}

/** Waits until `file` exists; throws a DeadlineError at `deadline` (epoch ms). */
export async function waitForFile(file: string, deadline: number, what: string): Promise<void> {
  for (;;) {
    try {
      fs.lstatSync(file);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new DeadlineError(`${what}: ${path.basename(file)} did not appear in time`);
    await sleep(Math.min(POLL_MS, left));
  }
}

/**
 * Reads `file` to EOF, at most `max` bytes (more is an error), by `deadline`. For a FIFO the open
 * waits for the writer; the deadline still returns control (the read is then abandoned).
 */
export async function readBounded(
  file: string,
  max: number,
  deadline: number,
  what: string,
): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeadlineError(`${what}: reading ${path.basename(file)} did not finish in time`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  const read = readAtMost(file, max, `${what}: ${path.basename(file)}`).then((b) => b.toString('utf8'));
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
    read.catch(() => undefined);
  }
}

/**
 * The bytes of `file` to EOF, refused as soon as more than `max` have been read (not by a size
 * taken before reading, which a file growing in between would pass); `name` names it in the error.
 */
export async function readAtMost(file: string, max: number, name = file): Promise<Buffer> {
  const fh = await fs.promises.open(file, fs.constants.O_RDONLY);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(Math.min(1 << 20, max + 1 - total));
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      chunks.push(buf.subarray(0, bytesRead));
      if (total > max) throw new Error(`${name} is larger than ${max} bytes`);
    }
    return Buffer.concat(chunks);
  } finally {
    await fh.close();
  }
}

/** Writes `data` to `dir/name` atomically: a reader polling for the name sees all of it or nothing. */
export function writeAtomically(dir: string, name: string, data: string): void {
  const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, data, { mode: 0o644 });
  fs.renameSync(tmp, path.join(dir, name));
}
