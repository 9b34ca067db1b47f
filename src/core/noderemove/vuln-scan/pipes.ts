// Scan mode's files in the shared folder (/run/eraser.sh/shared-data), Eraser's scanner contract
// from the collector's and remover's side (docs/scan-mode.md, "The scanner contract"). Node has no mkfifo, and
// none is needed on this side:
//
// - collectScan: written as a regular file, renamed into place whole. Eraser's scanners wait
//   for it to exist, open it and read to the end, which a complete file gives them as a pipe
//   would (and inv never blocks in an open that waits for a reader).
// - scanErase: the scanner creates it, a named pipe (Eraser's template) or a file renamed into
//   place. Read without ever blocking: O_NONBLOCK reads polled until end of file, under a byte
//   limit and a deadline inv enforces itself.
// - eraseCompleteScan: `complete` is written into the scanner's pipe (O_NONBLOCK: a scanner not
//   yet reading is retried briefly, never waited on), or, when the scanner made none, as a file.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_SCAN_FAILED_BYTES, SCAN_FAILED_FILE } from '../../contract/scan-failures.js';

import {
  COLLECT_SCAN,
  COMPLETE_MESSAGE,
  ERASE_COMPLETE_SCAN,
  MAX_LIST_BYTES,
  SCAN_ERASE,
} from '../../contract/scanner-contract.js';

/** The most bytes of an answer read: the contract's list limit (a full answer with its extension fits). */
export const MAX_ANSWER_BYTES = MAX_LIST_BYTES;
const POLL_MS = 50;
const CHUNK = 64 * 1024;

export class ScanPipeError extends Error {}

/** Writes the candidates as collectScan, whole or not at all. */
export function writeCollectScan(dir: string, json: string): void {
  const final = path.join(dir, COLLECT_SCAN);
  if (fs.existsSync(final)) throw new ScanPipeError(`${final} exists already: another collector ran here`);
  const tmp = path.join(dir, `.${COLLECT_SCAN}.${process.pid}.tmp`);
  // 'wx': never through a name someone else put there first (a link the scanner made).
  fs.writeFileSync(tmp, json, { mode: 0o644, flag: 'wx' });
  fs.renameSync(tmp, final);
}

export interface ReadOptions {
  /** Absolute time (ms since the epoch) past which inv stops waiting. */
  deadline: number;
  maxBytes?: number;
  signal?: AbortSignal;
  now?: () => number;
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

async function pause(opts: ReadOptions, what: string, ms = POLL_MS): Promise<void> {
  const now = (opts.now ?? Date.now)();
  if (now >= opts.deadline) throw new ScanPipeError(what);
  await sleep(Math.min(ms, opts.deadline - now), undefined, { signal: opts.signal });
}

/**
 * The scanner's answer (text), once its writer closed it. ScanPipeError: the deadline passed
 * (naming what was awaited), the answer is too large, or scanErase is neither pipe nor file.
 */
export async function readScanErase(dir: string, opts: ReadOptions): Promise<string> {
  const file = path.join(dir, SCAN_ERASE);
  const max = opts.maxBytes ?? MAX_ANSWER_BYTES;
  let st: fs.Stats | undefined;
  while (!st) {
    try {
      st = fs.lstatSync(file);
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
      await pause(opts, 'the scanner never answered (no scanErase)');
    }
  }
  if (st.isFile()) {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      return readWhole(fd, st.size, max, "the scanner's answer");
    } finally {
      fs.closeSync(fd);
    }
  }
  if (!st.isFIFO()) throw new ScanPipeError(`${file} is neither a named pipe nor a file`);
  // O_NONBLOCK: the open never waits for the writer, and no read ever blocks a thread.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    // While data flows, the writer refills the pipe within microseconds: wait 1 ms, doubling
    // up to POLL_MS while it stays empty (a large answer is not held to 64 KiB per poll).
    let wait = 1;
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK);
      let n: number;
      try {
        n = fs.readSync(fd, buf, 0, CHUNK, null);
      } catch (e) {
        if (errno(e) !== 'EAGAIN') throw e;
        await pause(
          opts,
          total ? 'the scanner did not finish its answer in time' : 'the scanner never answered',
          wait,
        );
        wait = Math.min(POLL_MS, wait * 2);
        continue;
      }
      wait = 1;
      if (n === 0) {
        // End of file: the writer closed (or, before any byte, has not opened yet).
        if (total > 0) break;
        await pause(opts, 'the scanner never answered (it opened no writer on scanErase, or wrote nothing)');
        continue;
      }
      total += n;
      if (total > max) throw new ScanPipeError(`the scanner's answer is more than ${max} bytes`);
      chunks.push(buf.subarray(0, n));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A regular file's text, `size` bytes as stat'ed: at most `max` + 1 bytes are read, whatever the
 * file grows to meanwhile, and more than `max` is a ScanPipeError naming `what`.
 */
function readWhole(fd: number, size: number, max: number, what: string): string {
  const buf = Buffer.allocUnsafe(Math.min(max + 1, Math.max(size, 0) + 1));
  let got = 0;
  for (let n = -1; n !== 0 && got < buf.length; got += n)
    n = fs.readSync(fd, buf, got, buf.length - got, null);
  if (got > max) throw new ScanPipeError(`${what} is more than ${max} bytes`);
  return buf.subarray(0, got).toString('utf8');
}

/**
 * inv's extension file (scan-failures.ts), read once the answer is complete: undefined when the
 * scanner wrote none (Eraser's scanners). A regular file only, never through a link, bounded.
 */
export function readScanFailed(dir: string, maxBytes = MAX_SCAN_FAILED_BYTES): string | undefined {
  const file = path.join(dir, SCAN_FAILED_FILE);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    if (errno(e) === 'ENOENT') return undefined;
    throw new ScanPipeError(`${SCAN_FAILED_FILE} cannot be read: ${errno(e) ?? (e as Error).message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new ScanPipeError(`${SCAN_FAILED_FILE} is not a regular file`);
    return readWhole(fd, st.size, maxBytes, SCAN_FAILED_FILE);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Tells the scanner that removal is done, so it exits: `complete` into its eraseCompleteScan
 * pipe when it listens within `waitMs`, or a file when it made no pipe. Returns what happened.
 */
export async function sendComplete(dir: string, waitMs: number, signal?: AbortSignal): Promise<string> {
  const file = path.join(dir, ERASE_COMPLETE_SCAN);
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if (errno(e) !== 'ENOENT') throw e;
  }
  if (!st || st.isFile()) {
    const tmp = path.join(dir, `.${ERASE_COMPLETE_SCAN}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, COMPLETE_MESSAGE, { flag: 'wx' });
    fs.renameSync(tmp, file);
    return 'written as a file';
  }
  if (!st.isFIFO()) return `${file} is neither a pipe nor a file: not written`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    } catch (e) {
      // ENXIO: nobody reads it yet.
      if (errno(e) !== 'ENXIO') throw e;
      if (Date.now() >= deadline) return 'the scanner did not read eraseCompleteScan';
      await sleep(POLL_MS, undefined, { signal });
      continue;
    }
    try {
      fs.writeSync(fd, COMPLETE_MESSAGE); // 8 bytes: below PIPE_BUF, written at once
    } finally {
      fs.closeSync(fd);
    }
    return 'sent';
  }
}
