// The worker Pod: `inv node-remove` placed on one node by the scheduler (placement.ts), reading the job's image list and merged
// exclusions from mounted ConfigMaps and the node's runtime through its CRI socket, writing
// its summary to the termination message for the controller to read.
import { SOCKET_CLIENT_SECURITY_CONTEXT } from './security-context.js';
import { DEFAULT_CONFIG, type WorkerConfig } from '../config/config.js';
import { EXCLUDE_ROLE, IMAGES_ROLE, inputOf, jobInputs, protectedInputs, type JobInput } from './inputs.js';
import type { ImageJob, OwnerReference } from '../api/types.js';
import { API_VERSION, JOB_LABEL, MANAGED_BY, MANAGED_BY_LABEL } from '../api/types.js';
import type { ScannerConfig } from '../config/scanners.js';
import {
  SCAN_POD_GRACE_SECONDS,
  SCANNER_CONFIG_DIR,
  SCANNER_CONFIG_FILE,
  SCANNER_ROLE,
  scanFlags,
  scannerContainer,
  scanVolumes,
} from './scanner-container.js';
import { SHARED_DIR } from '../../contract/scanner-contract.js';
import { nodeRemoveArgs, type WorkerArgs } from '../../contract/worker-command.js';
import { nodeAffinity, workerTolerations } from './placement.js';

export const IMAGES_DIR = '/run/inv/images';
export const EXCLUDE_DIR = '/run/inv/exclude';
export const IMAGES_FILE = 'images.json';
export const EXCLUDE_FILE = 'excluded.json';
export const PROTECTED_DIR = '/run/inv/protected';
export const PROTECTED_KEY = 'protected.json';

/**
 * How many ConfigMaps carry the job's protected set (a `*` prune with the inventory's
 * protection), as recorded in the job's status when it was planned; 0 without protection.
 */
export const protectedChunks = (job: ImageJob): number => job.status?.protectedChunks ?? 0;
export const CRI_SOCKET_IN_POD = '/run/inv/cri.sock';
/** Where a threshold or minimum-age worker keeps the node's record (config stateDir). */
export const STATE_DIR_IN_POD = '/run/inv/state';
/** Where a threshold worker statfs's the image file system (config imageFsPath, read-only). */
export const IMAGE_FS_IN_POD = '/run/inv/imagefs';
export const WORKER_CONTAINER = 'remover';

/**
 * What a worker runs as: always from the administrator's configuration (settings.ts), never
 * from the ImageJob, whose spec anyone allowed to create ImageJobs could have written.
 */
export interface WorkerSettings {
  worker: WorkerConfig;
  /** Host path of the node's CRI socket, mounted into the worker. */
  runtimeSocket: string;
  /** The administrator's scanners (scan mode picks job.spec.scan.scanner among them). */
  scanners?: Readonly<Record<string, ScannerConfig>>;
  /** Host folder of the node's record of unused images (config stateDir). */
  stateDir?: string;
  /** Host path on the image file system (config imageFsPath). */
  imageFsPath?: string;
}

/** The scanner a scan-mode job runs; throws when the administrator has none by that name. */
export function jobScanner(job: ImageJob, settings: WorkerSettings): ScannerConfig | undefined {
  const scan = job.spec.scan;
  if (!scan) return undefined;
  const s = settings.scanners?.[scan.scanner];
  if (!s || !Object.hasOwn(settings.scanners ?? {}, scan.scanner))
    throw new Error(`scanner ${JSON.stringify(scan.scanner)} is not configured by the administrator`);
  return s;
}

/**
 * Every worker object points at its ImageJob (cluster-scoped, so namespaced dependents may):
 * should the controller be gone for good, the garbage collector still removes them with the job.
 */
export const jobOwnerReference = (job: ImageJob): OwnerReference => ({
  apiVersion: API_VERSION,
  kind: 'ImageJob',
  name: job.metadata.name,
  uid: job.metadata.uid ?? '',
  controller: true,
});

/**
 * Node settings of every worker, as NODE_OPTIONS: a worker is a short batch of CRI calls, so
 * V8's young generation of up to 2 x 16 MiB buys it nothing but memory; 1 MiB is enough (with
 * the optimizing compilers off, which node-remove's start does itself: src/bundle/direct.ts, a
 * 200-image removal peaks at 67 MB instead of 78; `npm run bench node-remove` runs the worker
 * with these options).
 */
export const WORKER_NODE_OPTIONS = '--max-semi-space-size=1';

/** The job's recorded inputs (inputs.ts): names and digests; first names for an older job. */
export const inputsOf = (job: ImageJob): JobInput[] =>
  jobInputs(job.metadata.name, job.status?.inputs, protectedChunks(job));

/** `--X-sha256` flags for the inputs that carry a digest (every job planned since they exist). */
function digestFlags(inputs: readonly JobInput[]): WorkerArgs {
  const out: WorkerArgs = {};
  const images = inputOf(inputs, IMAGES_ROLE);
  const exclude = inputOf(inputs, EXCLUDE_ROLE);
  const prot = protectedInputs(inputs);
  if (images?.sha256) out['imagelist-sha256'] = images.sha256;
  if (exclude?.sha256) out['exclude-file-sha256'] = exclude.sha256;
  if (prot.length && prot.every((i) => i.sha256))
    out['protected-sha256'] = prot.map((i) => i.sha256).join(',');
  return out;
}

/** The worker's command line (its flags are declared in contract/worker-command.ts). */
export function workerArgs(job: ImageJob, settings: WorkerSettings, inputs = inputsOf(job)): string[] {
  return nodeRemoveArgs({
    imagelist: `${IMAGES_DIR}/${IMAGES_FILE}`,
    'exclude-file': `${EXCLUDE_DIR}/${EXCLUDE_FILE}`,
    'runtime-endpoint': `unix://${CRI_SOCKET_IN_POD}`,
    'call-timeout': settings.worker.criTimeout,
    output: 'json',
    ...(protectedInputs(inputs).length > 0 ? { 'protected-dir': PROTECTED_DIR } : {}),
    ...digestFlags(inputs),
    ...triggerFlags(job, settings),
    'dry-run': !!job.spec.dryRun,
    // A scoped prune and keep-newest (a list with spec.scope or spec.keepNewest).
    ...(job.spec.scope?.only?.length ? { only: job.spec.scope.only } : {}),
    ...(job.spec.scope?.except?.length ? { except: job.spec.scope.except } : {}),
    ...(job.spec.keepNewest !== undefined ? { 'keep-newest': String(job.spec.keepNewest) } : {}),
    ...(job.spec.scan
      ? scanFlags(jobScanner(job, settings)!, job.spec.scan, inputOf(inputs, SCANNER_ROLE)?.sha256 ?? '')
      : {}),
  });
}

/** The threshold and minimum-age flags (a job whose list sets imageFs or minUnusedAge). */
function triggerFlags(job: ImageJob, settings: WorkerSettings): WorkerArgs {
  const { imageFs, minUnusedAge } = job.spec;
  if (!imageFs && !minUnusedAge) return {};
  return {
    'state-dir': STATE_DIR_IN_POD,
    ...(imageFs
      ? {
          'image-fs-above': String(imageFs.highPercent),
          'image-fs-down-to': String(imageFs.lowPercent),
          'image-fs-path': IMAGE_FS_IN_POD,
          'image-fs-host-path': settings.imageFsPath ?? DEFAULT_CONFIG.imageFsPath,
        }
      : {}),
    ...(minUnusedAge ? { 'unused-for': minUnusedAge } : {}),
  };
}

/**
 * The node-local mounts of a threshold or minimum-age worker: its record's folder read-write
 * (created when missing; node-remove narrows it to 0700) and, for thresholds, a path on the
 * image file system read-only, for statfs alone.
 */
function triggerVolumes(job: ImageJob, settings: WorkerSettings) {
  const { imageFs, minUnusedAge } = job.spec;
  if (!imageFs && !minUnusedAge) return { mounts: [], volumes: [] };
  const stateDir = settings.stateDir ?? DEFAULT_CONFIG.stateDir;
  const fsPath = settings.imageFsPath ?? DEFAULT_CONFIG.imageFsPath;
  return {
    mounts: [
      { name: 'state', mountPath: STATE_DIR_IN_POD },
      ...(imageFs ? [{ name: 'imagefs', mountPath: IMAGE_FS_IN_POD, readOnly: true }] : []),
    ],
    volumes: [
      { name: 'state', hostPath: { path: stateDir, type: 'DirectoryOrCreate' } },
      ...(imageFs ? [{ name: 'imagefs', hostPath: { path: fsPath, type: 'Directory' } }] : []),
    ],
  };
}

/** The Pod spec shared by every worker (no node yet): also the PodTemplate's template. */
export function workerPodSpec(
  job: ImageJob,
  settings: WorkerSettings,
  inputs = inputsOf(job),
): Record<string, unknown> {
  const w = settings.worker;
  const scanner = jobScanner(job, settings);
  const prot = protectedInputs(inputs);
  const chunks = prot.length;
  const trigger = triggerVolumes(job, settings);
  const cmName = (role: string) => {
    const i = inputOf(inputs, role);
    if (!i) throw new Error(`job ${job.metadata.name} has no ${role} input`);
    return i.name;
  };
  return {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    terminationGracePeriodSeconds: 10,
    // A scanner that never exits must not hold its Pod (and the node's result) forever: inv
    // stops waiting at the scan deadline; the kubelet stops the Pod a little later.
    ...(scanner ? { activeDeadlineSeconds: scanner.totalTimeoutSeconds + SCAN_POD_GRACE_SECONDS } : {}),
    ...(w.priorityClassName ? { priorityClassName: w.priorityClassName } : {}),
    // The administrator's pull secrets, for a worker image in a private registry.
    ...(w.imagePullSecrets?.length ? { imagePullSecrets: w.imagePullSecrets.map((name) => ({ name })) } : {}),
    tolerations: workerTolerations(w.tolerations),
    containers: [
      {
        name: WORKER_CONTAINER,
        image: w.image,
        args: workerArgs(job, settings, inputs),
        env: [
          { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'NODE_OPTIONS', value: WORKER_NODE_OPTIONS },
        ],
        resources: w.resources,
        terminationMessagePath: '/dev/termination-log',
        // If the worker dies before writing its summary, the tail of its log stands in.
        terminationMessagePolicy: 'FallbackToLogsOnError',
        securityContext: SOCKET_CLIENT_SECURITY_CONTEXT,
        volumeMounts: [
          { name: 'images', mountPath: IMAGES_DIR, readOnly: true },
          { name: 'exclude', mountPath: EXCLUDE_DIR, readOnly: true },
          ...(chunks > 0 ? [{ name: 'protected', mountPath: PROTECTED_DIR, readOnly: true }] : []),
          { name: 'cri', mountPath: CRI_SOCKET_IN_POD },
          ...(scanner
            ? [
                { name: 'shared-data', mountPath: SHARED_DIR },
                { name: 'scanner-config', mountPath: SCANNER_CONFIG_DIR, readOnly: true },
              ]
            : []),
          ...trigger.mounts,
        ],
      },
      ...(scanner ? [scannerContainer(job.spec.scan!.scanner, scanner)] : []),
    ],
    volumes: [
      { name: 'images', configMap: { name: cmName(IMAGES_ROLE) } },
      { name: 'exclude', configMap: { name: cmName(EXCLUDE_ROLE) } },
      ...(chunks > 0
        ? [
            {
              name: 'protected',
              projected: {
                sources: prot.map((input, i) => ({
                  configMap: {
                    name: input.name,
                    items: [{ key: PROTECTED_KEY, path: `protected-${i}.json` }],
                  },
                })),
              },
            },
          ]
        : []),
      { name: 'cri', hostPath: { path: settings.runtimeSocket, type: 'Socket' } },
      ...(scanner ? scanVolumes(cmName(SCANNER_ROLE), scanner) : []),
      ...trigger.volumes,
    ],
  };
}

export const jobLabels = (job: string): Record<string, string> => ({
  [JOB_LABEL]: job,
  [MANAGED_BY_LABEL]: MANAGED_BY,
});

const objectMeta = (job: ImageJob, name: string, namespace: string) => ({
  name,
  namespace,
  labels: jobLabels(job.metadata.name),
  ownerReferences: [jobOwnerReference(job)],
});

export function workerPod(
  job: ImageJob,
  settings: WorkerSettings,
  namespace: string,
  podName: string,
  node: string,
  inputs = inputsOf(job),
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: objectMeta(job, podName, namespace),
    // Through the scheduler, to this node alone (placement.ts): never spec.nodeName.
    spec: { ...workerPodSpec(job, settings, inputs), affinity: nodeAffinity(node) },
  };
}

export function podTemplate(
  job: ImageJob,
  settings: WorkerSettings,
  namespace: string,
  inputs = inputsOf(job),
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: objectMeta(job, job.metadata.name, namespace),
    template: {
      metadata: { labels: jobLabels(job.metadata.name) },
      spec: workerPodSpec(job, settings, inputs),
    },
  };
}

/** The file each input role is mounted as, in its ConfigMap. */
export const inputFile = (role: string): string =>
  role === IMAGES_ROLE
    ? IMAGES_FILE
    : role === EXCLUDE_ROLE
      ? EXCLUDE_FILE
      : role === SCANNER_ROLE
        ? SCANNER_CONFIG_FILE
        : PROTECTED_KEY;

/**
 * One input's ConfigMap, immutable: `content` is the file's text exactly as its digest was
 * taken (inputs.ts), for the list inputs and for a chunk of the protected set alike.
 */
export function inputConfigMap(
  job: ImageJob,
  namespace: string,
  input: JobInput,
  content: string,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: objectMeta(job, input.name, namespace),
    immutable: true,
    data: { [inputFile(input.role)]: content },
  };
}
