// `inv install --daemon --image X`: the erase workers run `inv node-remove` from the same image
// as the daemon, so the image goes into the erase configuration as well (worker.image), which
// is what decides what runs on nodes. That ConfigMap is create-only (the administrator's edits
// are never overwritten): a fresh install writes the image in it; over an existing one, install
// leaves it and says what to change when its worker image differs.
import { CONFIG_KEY, CONFIG_MAP_NAME, parseConfig } from '../erase/config/config.js';
import type { KubeObject } from '../kube/apply.js';

const isEraseConfig = (o: KubeObject): boolean =>
  o.kind === 'ConfigMap' && o.metadata.name === CONFIG_MAP_NAME;

/** The objects with worker.image set to `image` in the erase configuration's text. */
export function withWorkerImage(objects: KubeObject[], image: string): KubeObject[] {
  return objects.map((o) => {
    if (!isEraseConfig(o)) return o;
    const data = { ...((o as { data?: Record<string, string> }).data ?? {}) };
    const text = data[CONFIG_KEY] ?? '';
    data[CONFIG_KEY] =
      `${text}${text && !text.endsWith('\n') ? '\n' : ''}# Set by \`inv install --image\`: the workers run the daemon's image.\nworker:\n  image: ${image}\n`;
    return { ...o, data } as KubeObject;
  });
}

/**
 * For an erase configuration that exists already: undefined when its worker image is `image`,
 * else what to do (install never rewrites it).
 */
export function workerImageNote(
  object: KubeObject,
  current: KubeObject | undefined,
  image: string,
): string | undefined {
  if (!isEraseConfig(object) || !current) return undefined;
  let have: string;
  try {
    have = parseConfig((current as { data?: Record<string, string> }).data?.[CONFIG_KEY]).worker.image;
  } catch {
    return `kept as it is (yours, and invalid: see \`inv check\`); the workers' image is its worker.image, not --image`;
  }
  if (have === image) return undefined;
  const ns = current.metadata.namespace ?? '';
  return `kept as it is (yours): erase workers still run ${have}, not --image ${image}; set worker.image in it: kubectl -n ${ns} edit configmap ${CONFIG_MAP_NAME}`;
}
