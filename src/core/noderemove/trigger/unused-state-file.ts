// Reading and writing the node-local record of unused images (unused-state.ts says what it
// holds). The folder is the administrator's (the worker Pod mounts a hostPath, default
// /var/lib/inv): made owner-only here, the file written owner-only through a temporary file and
// a rename, so a worker killed mid-write leaves the old record, never half a new one.
import fs from 'node:fs';
import path from 'node:path';
import { parseState, serializeState, type StateRead, type UnusedState } from './unused-state.js';

export const STATE_FILE = 'unused-images.json';
/** 50,000 entries of about 110 bytes: a record larger than this is not ours. */
export const MAX_STATE_BYTES = 8 * 1024 * 1024;

/** Reads the record; any problem is an untrusted (fail-closed) read with a warning, never a throw. */
export function readStateFile(dir: string, now: number): StateRead {
  const file = path.join(dir, STATE_FILE);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return parseState(undefined, now);
    return parseState('', now); // unreadable: corrupt
  }
  if (!st.isFile()) return { ...parseState('', now), warning: `${file} is not a regular file: ignored` };
  if (st.size > MAX_STATE_BYTES)
    return {
      ...parseState('', now),
      warning: `${file} is ${st.size} bytes, over ${MAX_STATE_BYTES}: ignored`,
    };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return { ...parseState('', now), warning: `${file} could not be read (${(e as Error).message})` };
  }
  const read = parseState(text, now);
  return read.warning ? { ...read, warning: `${read.warning} (${file})` } : read;
}

/** Writes the record owner-only; the folder is created (or narrowed) to 0700. */
export function writeStateFile(dir: string, state: UnusedState): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, STATE_FILE);
  const tmp = path.join(dir, `.${STATE_FILE}.${process.pid}.tmp`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC, 0o600);
  try {
    fs.writeSync(fd, serializeState(state));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
