// Which CRI socket `inv node-remove` talks to when no --runtime-endpoint is given, in crictl's
// order: the CONTAINER_RUNTIME_ENDPOINT variable, then `runtime-endpoint` in crictl's
// configuration file (CRI_CONFIG_FILE, or /etc/crictl.yaml), then the first of the well-known
// sockets that exists. An explicit flag always wins. A configuration file that exists but cannot
// be read is an error (the operator meant something by it); a missing one is skipped.
import fs from 'node:fs';
import { parse } from 'yaml';
import { CriError } from './errors.js';

/** The sockets tried last, in this order (containerd, CRI-O, cri-dockerd, then k3s and microk8s). */
export const WELL_KNOWN_ENDPOINTS = [
  'unix:///run/containerd/containerd.sock',
  'unix:///run/crio/crio.sock',
  'unix:///var/run/cri-dockerd.sock',
  'unix:///run/k3s/containerd/containerd.sock',
  'unix:///var/snap/microk8s/common/run/containerd.sock',
] as const;

export const DEFAULT_CRICTL_CONFIG = '/etc/crictl.yaml';
/** crictl.yaml is a handful of keys; anything larger is not one. */
const MAX_CONFIG_BYTES = 64 * 1024;

export interface EndpointChoice {
  endpoint: string;
  /** Where it came from, for messages: "--runtime-endpoint", "CONTAINER_RUNTIME_ENDPOINT", a file, or "found". */
  source: string;
}

export interface ChooseOptions {
  /** --runtime-endpoint, when given. */
  flag?: string;
  env?: NodeJS.ProcessEnv;
  /** Whether a socket exists at this path (tests replace it). */
  isSocket?: (path: string) => boolean;
}

const socketExists = (p: string): boolean => {
  try {
    return fs.statSync(p).isSocket();
  } catch {
    return false;
  }
};

/** `runtime-endpoint` of a crictl configuration file; undefined when the file does not exist or names none. */
export function crictlRuntimeEndpoint(file: string): string | undefined {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(MAX_CONFIG_BYTES + 1);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      if (n > MAX_CONFIG_BYTES) throw new Error(`larger than ${MAX_CONFIG_BYTES} bytes`);
      text = buf.toString('utf8', 0, n);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the crictl configuration ${file}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new Error(`the crictl configuration ${file} is not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return undefined;
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new Error(`the crictl configuration ${file} must be a mapping of keys (like runtime-endpoint: …)`);
  const v = (doc as Record<string, unknown>)['runtime-endpoint'];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string')
    throw new Error(`runtime-endpoint in ${file} must be a string, not ${JSON.stringify(v)}`);
  return v.trim();
}

/** The endpoint to use; throws CriError (unreachable) when nothing names one and no well-known socket exists. */
export function chooseRuntimeEndpoint(opts: ChooseOptions = {}): EndpointChoice {
  const env = opts.env ?? process.env;
  if (opts.flag) return { endpoint: opts.flag, source: '--runtime-endpoint' };
  const fromEnv = env.CONTAINER_RUNTIME_ENDPOINT?.trim();
  if (fromEnv) return { endpoint: fromEnv, source: 'CONTAINER_RUNTIME_ENDPOINT' };
  const file = env.CRI_CONFIG_FILE?.trim() || DEFAULT_CRICTL_CONFIG;
  const fromFile = crictlRuntimeEndpoint(file);
  if (fromFile) return { endpoint: fromFile, source: file };
  const isSocket = opts.isSocket ?? socketExists;
  for (const e of WELL_KNOWN_ENDPOINTS) {
    if (isSocket(e.slice('unix://'.length))) return { endpoint: e, source: 'found' };
  }
  throw new CriError(
    'unreachable',
    WELL_KNOWN_ENDPOINTS[0],
    `no container runtime socket found: no --runtime-endpoint, no CONTAINER_RUNTIME_ENDPOINT, no runtime-endpoint in ${file}, and none of ${WELL_KNOWN_ENDPOINTS.map((e) => e.slice('unix://'.length)).join(', ')} exists`,
  );
}
