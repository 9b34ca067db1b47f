// The administrator's scanners (inv-erase-config `scanners:`): what may run beside the worker in
// scan mode. Only this file's values decide images, environment, resources and host paths; an
// ImageList picks a scanner by name (../spec/vuln-scan.ts) and sets policy.
//
//   scanners:
//     trivy:
//       image: registry.example.com/inv-trivy-scanner:0.1.0
//       runtimeName: containerd          # ERASER_RUNTIME_NAME (containerd | crio | dockershim)
//       cacheHostPath: /var/lib/inv/trivy  # optional: a host folder mounted at config.cacheDir
//       storageHostPath: /var/lib/containers/storage  # crio only: CRI-O's store, mounted read-only
//       env: [{name: TRIVY_SERVER, value: http://...}]   # optional, plain values only
//       resources: {requests: {memory: 256Mi}, limits: {memory: 2Gi}}
//       config:                            # Eraser's components.scanner.config, as a mapping
//         cacheDir: /var/lib/trivy
//         dbRepo: ghcr.io/aquasecurity/trivy-db
//         timeout: {total: 30m, perImage: 5m}
import { isObj } from '../../guards.js';
import { parseDurationMs } from '../../duration.js';
import { SCANNER_NAME } from '../spec/vuln-scan.js';

export interface ScannerConfig {
  image: string;
  runtimeName: string;
  /** Host folder mounted read-write at config.cacheDir (a DB cache kept between runs); '' none. */
  cacheHostPath: string;
  /**
   * runtimeName crio: CRI-O's storage root (crio.conf `root`, containers/storage's graphroot),
   * mounted read-only into the scanner, which reads images from it. '' on other runtimes.
   */
  storageHostPath: string;
  env: { name: string; value: string }[];
  resources: Record<string, unknown>;
  /** Handed to the scanner as the YAML string components.scanner.config. */
  config: Record<string, unknown>;
  /** config.timeout.total, which inv enforces itself (default 30m). */
  totalTimeoutSeconds: number;
}

export const DEFAULT_SCAN_TOTAL = '30m';
export const DEFAULT_CACHE_DIR = '/var/lib/trivy';
/** CRI-O's default storage root (crio.conf [crio] root). */
export const DEFAULT_CRIO_STORAGE = '/var/lib/containers/storage';
const RUNTIMES = ['containerd', 'crio', 'dockershim'];
const KEYS = ['image', 'runtimeName', 'cacheHostPath', 'storageHostPath', 'env', 'resources', 'config'];

export class ScannerConfigError extends Error {}

const fail = (msg: string): never => {
  throw new ScannerConfigError(msg);
};

/** `scanners:` of config.yaml, validated; every problem names its key. */
export function parseScanners(v: unknown): Record<string, ScannerConfig> {
  if (v == null) return {};
  if (!isObj(v)) return fail('scanners: must be a mapping of scanner names to settings');
  const out: Record<string, ScannerConfig> = {};
  for (const [name, s] of Object.entries(v)) {
    const at = `scanners.${name}`;
    if (!SCANNER_NAME.test(name)) fail(`${at}: a scanner name is lowercase letters, digits and '-'`);
    if (!isObj(s)) return fail(`${at}: must be a mapping with at least image`);
    for (const k of Object.keys(s))
      if (!KEYS.includes(k)) fail(`${at}.${k}: unknown key (known: ${KEYS.join(', ')})`);
    if (typeof s.image !== 'string' || !s.image || /\s/.test(s.image))
      fail(`${at}.image: must be an image reference, got ${JSON.stringify(s.image)}`);
    const runtimeName = s.runtimeName ?? 'containerd';
    if (typeof runtimeName !== 'string' || !RUNTIMES.includes(runtimeName))
      fail(`${at}.runtimeName: one of ${RUNTIMES.join(', ')}, got ${JSON.stringify(s.runtimeName)}`);
    const cacheHostPath = s.cacheHostPath ?? '';
    if (typeof cacheHostPath !== 'string' || (cacheHostPath && !cacheHostPath.startsWith('/')))
      fail(`${at}.cacheHostPath: must be an absolute host path, got ${JSON.stringify(s.cacheHostPath)}`);
    const storage = s.storageHostPath ?? (runtimeName === 'crio' ? DEFAULT_CRIO_STORAGE : '');
    if (storage && runtimeName !== 'crio')
      fail(
        `${at}.storageHostPath: only for runtimeName: crio (containerd's images are read through its socket)`,
      );
    if (typeof storage !== 'string' || (storage && !storage.startsWith('/')))
      fail(`${at}.storageHostPath: must be an absolute host path, got ${JSON.stringify(s.storageHostPath)}`);
    const env = s.env ?? [];
    if (!Array.isArray(env)) return fail(`${at}.env: must be a list of {name, value}`);
    const envList = env.map((e, i) => {
      if (!isObj(e) || typeof e.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(e.name))
        return fail(`${at}.env[${i}]: must be {name, value} with a variable name`);
      return { name: e.name, value: e.value == null ? '' : String(e.value) };
    });
    const resources = s.resources ?? {};
    if (!isObj(resources)) return fail(`${at}.resources: must be a mapping (requests/limits)`);
    const config = s.config ?? {};
    if (!isObj(config)) return fail(`${at}.config: must be a mapping (the scanner's own settings)`);
    const timeout = config.timeout;
    if (timeout !== undefined && !isObj(timeout)) fail(`${at}.config.timeout: must be {total, perImage}`);
    const total = (timeout as Record<string, unknown> | undefined)?.total ?? DEFAULT_SCAN_TOTAL;
    let totalMs = 0;
    try {
      totalMs = parseDurationMs(String(total), `${at}.config.timeout.total`);
    } catch (e) {
      fail((e as Error).message);
    }
    if (totalMs <= 0) fail(`${at}.config.timeout.total: must be longer than 0s`);
    out[name] = {
      image: s.image as string,
      runtimeName: runtimeName as string,
      cacheHostPath: cacheHostPath as string,
      storageHostPath: storage as string,
      env: envList,
      resources,
      config,
      totalTimeoutSeconds: Math.ceil(totalMs / 1000),
    };
  }
  return out;
}

/** The reason a job asking for `name` cannot run, or undefined. */
export function unknownScanner(
  name: string,
  scanners: Readonly<Record<string, ScannerConfig>>,
): string | undefined {
  if (Object.hasOwn(scanners, name)) return undefined;
  const known = Object.keys(scanners);
  return `scanner ${JSON.stringify(name)} is not configured by the administrator (inv-erase-config scanners: ${
    known.length ? known.join(', ') : 'none'
  }); nothing was removed`;
}
