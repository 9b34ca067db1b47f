// Scan mode's part of the worker Pod: the administrator's scanner as a second container beside
// `inv node-remove`. PURE. It is wired as Eraser wires its scanners (docs/scan-mode.md, "The
// scanner contract"): an emptyDir at /run/eraser.sh/shared-data shared by both, the node's CRI
// socket at /run/cri/cri.sock, the configuration file passed with --config in the shape Eraser's
// scanners read (an EraserConfig whose components.scanner.config is a YAML string), and Eraser's
// environment variables. On CRI-O (runtimeName crio) the node's image store is mounted read-only
// too: Trivy cannot read CRI-O's images through its socket, so inv's scanner reads the store.
import { isObj } from '../../guards.js';
import { stringify } from 'yaml';
import { SOCKET_CLIENT_SECURITY_CONTEXT } from './security-context.js';
import { severitiesOf, type ScanSpec } from '../spec/vuln-scan.js';
import { DEFAULT_SCAN_TOTAL, type ScannerConfig } from '../config/scanners.js';
import { CRIO_STORE_IN_SCANNER, CRI_SOCKET_IN_SCANNER, SHARED_DIR } from '../../contract/scanner-contract.js';
import type { WorkerArgs } from '../../contract/worker-command.js';

export const SCANNER_CONFIG_DIR = '/run/inv/scanner';
export const SCANNER_CONFIG_FILE = 'config.yaml';
export const SCANNER_ROLE = 'scanner-config';
export const SCANNER_CONTAINER = 'scanner';
/** What the scanner may add to its own deadline before the Pod is stopped (activeDeadlineSeconds). */
export const SCAN_POD_GRACE_SECONDS = 120;

/**
 * The scanner's own settings: the administrator's mapping, with the requester's policy on top
 * of the keys it owns. deleteFailedImages and deleteEOLImages are always written, false unless
 * asked: Eraser's scanners default both to true, which removes what they could not judge.
 */
export function scannerSettings(scanner: ScannerConfig, scan: ScanSpec): Record<string, unknown> {
  const base = structuredClone(scanner.config);
  const vulns = isObj(base.vulnerabilities) ? base.vulnerabilities : {};
  const timeout = isObj(base.timeout) ? base.timeout : {};
  return {
    ...base,
    deleteFailedImages: scan.deleteFailedImages === true,
    deleteEOLImages: scan.deleteEOLImages === true,
    vulnerabilities: {
      ...vulns,
      ignoreUnfixed: scan.ignoreUnfixed === true,
      severities: severitiesOf(scan),
      ...(scan.vulnerabilityTypes?.length ? { types: [...scan.vulnerabilityTypes] } : {}),
    },
    // The scanner and inv agree on the deadline inv enforces.
    timeout: { ...timeout, total: typeof timeout.total === 'string' ? timeout.total : DEFAULT_SCAN_TOTAL },
  };
}

/** The file the scanner reads with --config (the content of the job's scanner-config input). */
export function scannerConfigText(scanner: ScannerConfig, scan: ScanSpec): string {
  return stringify({
    apiVersion: 'eraser.sh/v1alpha3',
    kind: 'EraserConfig',
    manager: { runtime: { name: scanner.runtimeName, address: `unix://${CRI_SOCKET_IN_SCANNER}` } },
    components: {
      scanner: { enabled: true, config: stringify(scannerSettings(scanner, scan)) },
    },
  });
}

/** The cache folder the scanner's settings name (where cacheHostPath is mounted). */
export const cacheDirOf = (scanner: ScannerConfig): string =>
  typeof scanner.config.cacheDir === 'string' && scanner.config.cacheDir.startsWith('/')
    ? scanner.config.cacheDir
    : '/var/lib/trivy';

/** The scanner container: image, environment and resources from the administrator only. */
export function scannerContainer(name: string, scanner: ScannerConfig): Record<string, unknown> {
  return {
    name: SCANNER_CONTAINER,
    image: scanner.image,
    // Only --config: every Eraser scanner reads it; some define no other flag.
    args: [`--config=${SCANNER_CONFIG_DIR}/${SCANNER_CONFIG_FILE}`],
    env: [
      { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'CONTAINERD_NAMESPACE', value: 'k8s.io' },
      { name: 'ERASER_RUNTIME_NAME', value: scanner.runtimeName },
      { name: 'OTEL_SERVICE_NAME', value: `${name}-scanner` },
      ...scanner.env,
    ],
    resources: scanner.resources,
    terminationMessagePolicy: 'FallbackToLogsOnError',
    // Root to open the runtime socket, as the worker; no privilege. On CRI-O, only the capability
    // to read (never write) any file: an image's files keep their own owners and modes in the
    // store, which a root without capabilities cannot all open. The mount is read-only.
    securityContext: scanner.storageHostPath
      ? {
          ...SOCKET_CLIENT_SECURITY_CONTEXT,
          capabilities: { drop: ['ALL'], add: ['DAC_READ_SEARCH'] },
        }
      : SOCKET_CLIENT_SECURITY_CONTEXT,
    volumeMounts: [
      { name: 'shared-data', mountPath: SHARED_DIR },
      { name: 'scanner-config', mountPath: SCANNER_CONFIG_DIR, readOnly: true },
      { name: 'cri', mountPath: CRI_SOCKET_IN_SCANNER },
      // Trivy writes its DB and scan cache here; without a host folder, a scratch one.
      { name: 'scanner-cache', mountPath: cacheDirOf(scanner) },
      { name: 'scanner-tmp', mountPath: '/tmp' },
      // Read-only; HostToContainer so that the store's own mounts (running containers' root file
      // systems) unmounted on the host are unmounted here too, never held open by the scanner.
      ...(scanner.storageHostPath
        ? [
            {
              name: 'crio-storage',
              mountPath: CRIO_STORE_IN_SCANNER,
              readOnly: true,
              mountPropagation: 'HostToContainer',
            },
          ]
        : []),
    ],
  };
}

/** The volumes scan mode adds (the CRI socket's `cri` volume is the worker's). */
export function scanVolumes(configMap: string, scanner: ScannerConfig): Record<string, unknown>[] {
  return [
    { name: 'shared-data', emptyDir: {} },
    { name: 'scanner-config', configMap: { name: configMap } },
    scanner.cacheHostPath
      ? { name: 'scanner-cache', hostPath: { path: scanner.cacheHostPath, type: 'DirectoryOrCreate' } }
      : { name: 'scanner-cache', emptyDir: {} },
    { name: 'scanner-tmp', emptyDir: {} },
    ...(scanner.storageHostPath
      ? [{ name: 'crio-storage', hostPath: { path: scanner.storageHostPath, type: 'Directory' } }]
      : []),
  ];
}

/** node-remove's scan flags (the configuration's digest as recorded at planning). */
export function scanFlags(scanner: ScannerConfig, scan: ScanSpec, configSha256: string): WorkerArgs {
  return {
    'scan-dir': SHARED_DIR,
    'scan-timeout': `${scanner.totalTimeoutSeconds}s`,
    'scanner-config': `${SCANNER_CONFIG_DIR}/${SCANNER_CONFIG_FILE}`,
    ...(configSha256 ? { 'scanner-config-sha256': configSha256 } : {}),
    'scan-delete-failed': !!scan.deleteFailedImages,
    'scan-delete-eol': !!scan.deleteEOLImages,
  };
}
