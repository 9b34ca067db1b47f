// The Trivy command line for one image reference. Pure. It is built as Eraser's Trivy scanner
// builds it (pkg/scanners/trivy/types.go cliArgs: --format=json, --cache-dir, --timeout, image
// --image-src containerd, --db-repository, --ignore-unfixed, --vuln-type, --scanners,
// --severity, --ignore-status), plus what inv adds: no version check, no telemetry, no progress
// bar, and one DB per cluster (client mode against a Trivy server, or a DB that is never
// downloaded).
import type { TrivyScannerConfig } from './trivy-config.js';

/** Go's time.Duration text for whole milliseconds, which Trivy's --timeout reads. */
export function goDuration(ms: number): string {
  return `${Math.max(1, Math.round(ms))}ms`;
}

/**
 * Where Trivy reads the image: the node's containerd over the CRI socket, or (CRI-O) the
 * scanner's own loopback registry serving the node's store (./store-registry.ts).
 */
export type TrivyImageSource = 'containerd' | 'remote';

export function trivyArgs(
  c: TrivyScannerConfig,
  ref: string,
  timeoutMs: number,
  source: TrivyImageSource = 'containerd',
): string[] {
  const args = ['image', '--format=json', '--quiet', '--no-progress'];
  args.push('--cache-dir', c.cacheDir, '--timeout', goDuration(timeoutMs));
  args.push('--image-src', source, '--skip-version-check', '--disable-telemetry');
  if (c.server) {
    // Client mode: the server detects with its DB; this node downloads none.
    args.push('--server', c.server);
  } else {
    // The layer cache in memory: nothing of the node's images is written to cacheDir, and the
    // DB there is only read (a read-only or shared cacheHostPath works; scanners never wait on
    // each other's cache lock).
    args.push('--cache-backend', 'memory', '--db-repository', c.dbRepo);
    if (c.skipDBUpdate) args.push('--skip-db-update', '--skip-java-db-update', '--offline-scan');
  }
  if (c.ignoreUnfixed) args.push('--ignore-unfixed');
  if (c.types.length) args.push('--pkg-types', c.types.join(','));
  if (c.securityChecks.length) args.push('--scanners', c.securityChecks.join(','));
  if (c.severities.length) args.push('--severity', c.severities.join(','));
  if (c.ignoredStatuses.length) args.push('--ignore-status', c.ignoredStatuses.join(','));
  args.push(ref);
  return args;
}

/**
 * The environment Trivy runs with: containerd's socket and namespace (Eraser sets the same two),
 * and nothing of the caller's beyond PATH/HOME-like basics and TRIVY_* (an administrator's
 * TRIVY_TOKEN for the server, say).
 */
export function trivyEnv(
  parent: Readonly<Record<string, string | undefined>>,
  socket: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) {
    if (v === undefined) continue;
    if (
      /^(PATH|HOME|TMPDIR|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy)$/.test(k) ||
      k.startsWith('TRIVY_')
    ) {
      env[k] = v;
    }
  }
  env.CONTAINERD_ADDRESS = socket;
  env.CONTAINERD_NAMESPACE = parent.CONTAINERD_NAMESPACE || 'k8s.io';
  return env;
}
