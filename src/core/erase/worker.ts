// The worker Pod: `inv node-remove` pinned to one node, reading the job's image list and merged
// exclusions from mounted ConfigMaps and the node's runtime through its CRI socket, writing
// its summary to the termination message for the controller to read.
import type { ImageJob } from './types.js';
import {
  excludeConfigMapName,
  imagesConfigMapName,
  JOB_LABEL,
  MANAGED_BY,
  MANAGED_BY_LABEL,
} from './types.js';

export const IMAGES_DIR = '/run/inv/images';
export const EXCLUDE_DIR = '/run/inv/exclude';
export const IMAGES_FILE = 'images.json';
export const EXCLUDE_FILE = 'excluded.json';
export const CRI_SOCKET_IN_POD = '/run/inv/cri.sock';
export const WORKER_CONTAINER = 'remover';

export function workerArgs(job: ImageJob): string[] {
  return [
    'node-remove',
    '--imagelist',
    `${IMAGES_DIR}/${IMAGES_FILE}`,
    '--exclude-file',
    `${EXCLUDE_DIR}/${EXCLUDE_FILE}`,
    '--runtime-endpoint',
    `unix://${CRI_SOCKET_IN_POD}`,
    '--timeout',
    job.spec.config.worker.criTimeout,
    '-o',
    'json',
    ...(job.spec.dryRun ? ['--dry-run'] : []),
  ];
}

/** The Pod spec shared by every worker (no nodeName): also the PodTemplate's template. */
export function workerPodSpec(job: ImageJob): Record<string, unknown> {
  const name = job.metadata.name;
  const w = job.spec.config.worker;
  return {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    terminationGracePeriodSeconds: 10,
    ...(w.priorityClassName ? { priorityClassName: w.priorityClassName } : {}),
    tolerations: w.tolerations,
    containers: [
      {
        name: WORKER_CONTAINER,
        image: w.image,
        args: workerArgs(job),
        env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
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
          { name: 'cri', mountPath: CRI_SOCKET_IN_POD },
        ],
      },
    ],
    volumes: [
      { name: 'images', configMap: { name: imagesConfigMapName(name) } },
      { name: 'exclude', configMap: { name: excludeConfigMapName(name) } },
      { name: 'cri', hostPath: { path: job.spec.config.runtimeSocket, type: 'Socket' } },
    ],
  };
}

export const jobLabels = (job: string): Record<string, string> => ({
  [JOB_LABEL]: job,
  [MANAGED_BY_LABEL]: MANAGED_BY,
});

export function workerPod(
  job: ImageJob,
  namespace: string,
  podName: string,
  node: string,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName, namespace, labels: jobLabels(job.metadata.name) },
    spec: { ...workerPodSpec(job), nodeName: node },
  };
}

export function podTemplate(job: ImageJob, namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: job.metadata.name, namespace, labels: jobLabels(job.metadata.name) },
    template: { metadata: { labels: jobLabels(job.metadata.name) }, spec: workerPodSpec(job) },
  };
}

export function listConfigMap(
  job: ImageJob,
  namespace: string,
  name: string,
  file: string,
  data: string[],
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: jobLabels(job.metadata.name) },
    immutable: true,
    data: { [file]: JSON.stringify(data) },
  };
}
