// A job's worker objects as inventory items: the image-list, exclusion and protected-set
// ConfigMaps and the PodTemplate (apply wave 0, deleted last), one Pod per selected node (apply
// wave 1, deleted first), each with the digest of its manifest.
import { itemKey, type DesiredItem } from '../../apply-inventory/apply-inventory.js';
import { manifestDigest, type KubeObject, type Owner } from '../../apply-inventory/objects.js';
import type { AdminSettings } from '../cluster/settings.js';
import { GROUP, podNames, type ImageJob } from '../api/types.js';
import { inputConfigMap, inputsOf, podTemplate, workerPod, type WorkerSettings } from '../worker/pod-spec.js';

export type WorkerObjects = Map<string, { item: DesiredItem; manifest: KubeObject }>;

/** The owner the job's objects are labelled and annotated with. */
export const jobOwner = (job: ImageJob): Owner => ({
  uid: job.metadata.uid ?? '',
  description: `${GROUP}/ImageJob/${job.metadata.name}`,
});

/**
 * The worker objects of a job, by item key, with their manifests. What they run as comes from
 * the administrator's settings; the job contributes its images, and exclusions only add to
 * the administrator's. `contents` holds the inputs' contents by role: an input created already
 * needs none here (its manifest is only used to create it).
 */
export function workerObjects(
  job: ImageJob,
  nodes: readonly string[],
  ns: string,
  admin: AdminSettings,
  contents: ReadonlyMap<string, string>,
): WorkerObjects {
  const settings: WorkerSettings = {
    worker: admin.config.worker,
    runtimeSocket: admin.config.runtimeSocket,
    ...(admin.config.scanners ? { scanners: admin.config.scanners } : {}),
    stateDir: admin.config.stateDir,
    imageFsPath: admin.config.imageFsPath,
  };
  const inputs = inputsOf(job);
  const name = job.metadata.name;
  const out: WorkerObjects = new Map();
  const add = (manifest: KubeObject, applyOrder: number, deleteOrder: number) => {
    const [group, version] = (manifest.apiVersion ?? 'v1').includes('/')
      ? (manifest.apiVersion!.split('/') as [string, string])
      : ['', manifest.apiVersion ?? 'v1'];
    const item: DesiredItem = {
      group,
      version,
      kind: manifest.kind!,
      namespace: ns,
      name: manifest.metadata!.name!,
      applyOrder,
      deleteOrder,
      deletePolicy: 'Delete',
      digest: manifestDigest(manifest),
    };
    out.set(itemKey(item), { item, manifest });
  };
  for (const input of inputs) add(inputConfigMap(job, ns, input, contents.get(input.role) ?? ''), 0, 1);
  add(podTemplate(job, settings, ns, inputs), 0, 1);
  for (const [node, pod] of podNames(name, nodes)) add(workerPod(job, settings, ns, pod, node, inputs), 1, 0);
  return out;
}
