// The worker Pod: `inv node-remove` pinned to one node, reading the job's image list and merged
// exclusions from mounted ConfigMaps and the node's runtime through its CRI socket, writing
// its summary to the termination message for the controller to read.
import type { WorkerConfig } from '../config/config.js';
import { EXCLUDE_ROLE, IMAGES_ROLE, inputOf, jobInputs, protectedInputs, type JobInput } from './inputs.js';
import type { ImageJob, OwnerReference } from '../api/types.js';
import { API_VERSION, JOB_LABEL, MANAGED_BY, MANAGED_BY_LABEL } from '../api/types.js';

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
export const WORKER_CONTAINER = 'remover';

/**
 * What a worker runs as: always from the administrator's configuration (settings.ts), never
 * from the ImageJob, whose spec anyone allowed to create ImageJobs could have written.
 */
export interface WorkerSettings {
  worker: WorkerConfig;
  /** Host path of the node's CRI socket, mounted into the worker. */
  runtimeSocket: string;
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
function digestArgs(inputs: readonly JobInput[]): string[] {
  const out: string[] = [];
  const images = inputOf(inputs, IMAGES_ROLE);
  const exclude = inputOf(inputs, EXCLUDE_ROLE);
  const prot = protectedInputs(inputs);
  if (images?.sha256) out.push('--imagelist-sha256', images.sha256);
  if (exclude?.sha256) out.push('--exclude-file-sha256', exclude.sha256);
  if (prot.length && prot.every((i) => i.sha256))
    out.push('--protected-sha256', prot.map((i) => i.sha256).join(','));
  return out;
}

export function workerArgs(job: ImageJob, settings: WorkerSettings, inputs = inputsOf(job)): string[] {
  return [
    'node-remove',
    '--imagelist',
    `${IMAGES_DIR}/${IMAGES_FILE}`,
    '--exclude-file',
    `${EXCLUDE_DIR}/${EXCLUDE_FILE}`,
    '--runtime-endpoint',
    `unix://${CRI_SOCKET_IN_POD}`,
    '--call-timeout',
    settings.worker.criTimeout,
    '-o',
    'json',
    ...(protectedInputs(inputs).length > 0 ? ['--protected-dir', PROTECTED_DIR] : []),
    ...digestArgs(inputs),
    ...(job.spec.dryRun ? ['--dry-run'] : []),
  ];
}

/** The Pod spec shared by every worker (no nodeName): also the PodTemplate's template. */
export function workerPodSpec(
  job: ImageJob,
  settings: WorkerSettings,
  inputs = inputsOf(job),
): Record<string, unknown> {
  const w = settings.worker;
  const prot = protectedInputs(inputs);
  const chunks = prot.length;
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
    ...(w.priorityClassName ? { priorityClassName: w.priorityClassName } : {}),
    // The administrator's pull secrets, for a worker image in a private registry.
    ...(w.imagePullSecrets?.length ? { imagePullSecrets: w.imagePullSecrets.map((name) => ({ name })) } : {}),
    tolerations: w.tolerations,
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
        securityContext: {
          // Root to open the runtime socket (root-owned); nothing else.
          runAsUser: 0,
          allowPrivilegeEscalation: false,
          privileged: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        },
        volumeMounts: [
          { name: 'images', mountPath: IMAGES_DIR, readOnly: true },
          { name: 'exclude', mountPath: EXCLUDE_DIR, readOnly: true },
          ...(chunks > 0 ? [{ name: 'protected', mountPath: PROTECTED_DIR, readOnly: true }] : []),
          { name: 'cri', mountPath: CRI_SOCKET_IN_POD },
        ],
      },
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
    spec: { ...workerPodSpec(job, settings, inputs), nodeName: node },
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
  role === IMAGES_ROLE ? IMAGES_FILE : role === EXCLUDE_ROLE ? EXCLUDE_FILE : PROTECTED_KEY;

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
