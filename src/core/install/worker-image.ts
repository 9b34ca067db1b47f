// One image setting: `inv install --daemon --image X [--image-pull-secret S]` sets the daemon's image
// and the erase workers' (they run `inv node-remove` from the same image), with the same pull
// secrets, so the workers' part goes into the erase configuration (worker.image,
// worker.imagePullSecrets), which is what decides what runs on nodes. That ConfigMap is
// create-only (the administrator's edits are never overwritten): a fresh install writes them in
// it. Over an existing one, a setting that follows the daemon (equal to what the Deployment runs
// now, as the last install wrote it) moves with it; one the administrator set apart is kept, and
// install says what to change.
import { parseDocument } from 'yaml';
import { CONFIG_KEY, CONFIG_MAP_NAME, parseConfig } from '../erase/config/config.js';
import type { KubeObject } from '../kube/apply.js';

/** What --image and --image-pull-secret ask for. */
export interface DaemonImage {
  image: string;
  pullSecrets: readonly string[];
}

export const isEraseConfig = (o: KubeObject): boolean =>
  o.kind === 'ConfigMap' && o.metadata.name === CONFIG_MAP_NAME;

const configText = (o: KubeObject): string =>
  (o as { data?: Record<string, string> }).data?.[CONFIG_KEY] ?? '';

interface PodSpecLike {
  containers?: { image?: string }[];
  imagePullSecrets?: { name: string }[];
}

const podSpec = (o: KubeObject | undefined): PodSpecLike | undefined =>
  (o as { spec?: { template?: { spec?: PodSpecLike } } } | undefined)?.spec?.template?.spec;

/** The image and pull secrets a Deployment of the daemon runs with. */
export function deploymentImage(o: KubeObject | undefined): DaemonImage | undefined {
  const spec = podSpec(o);
  const image = spec?.containers?.[0]?.image;
  if (!image) return undefined;
  return { image, pullSecrets: (spec.imagePullSecrets ?? []).map((s) => s.name) };
}

/** The objects with the daemon's pull secrets set, and the erase configuration's worker part. */
export function withDaemonImage(objects: KubeObject[], want: DaemonImage): KubeObject[] {
  return objects.map((o) => {
    if (o.kind === 'Deployment' && want.pullSecrets.length) {
      const c = structuredClone(o);
      podSpec(c)!.imagePullSecrets = want.pullSecrets.map((name) => ({ name }));
      return c;
    }
    if (!isEraseConfig(o)) return o;
    const text = configText(o);
    const secrets = want.pullSecrets.length ? `  imagePullSecrets: [${want.pullSecrets.join(', ')}]\n` : '';
    const data = {
      ...((o as { data?: Record<string, string> }).data ?? {}),
      [CONFIG_KEY]: `${text}${text && !text.endsWith('\n') ? '\n' : ''}# Set by \`inv install --image\`: the workers run the daemon's image.\nworker:\n  image: ${want.image}\n${secrets}`,
    };
    return { ...o, data } as KubeObject;
  });
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * For an erase configuration that exists already (`current`), given the Deployment as it runs
 * now (`daemon`): { text } when its worker settings followed the daemon and must move with it
 * (the configuration's new text, comments kept), { note } when one is the administrator's own and
 * differs from what is asked (kept; the note says what to change), or {} when nothing differs.
 */
export function followDaemon(
  current: KubeObject,
  daemon: DaemonImage | undefined,
  want: DaemonImage,
): { text?: string; note?: string } {
  const ns = current.metadata.namespace ?? '';
  let have;
  try {
    have = parseConfig(configText(current)).worker;
  } catch {
    return {
      note: `kept as it is (yours, and invalid: see \`inv check\`); the workers' image is its worker.image, not --image`,
    };
  }
  const imageDiffers = have.image !== want.image;
  // Pull secrets are compared only when asked for: without --image-pull-secret they stay.
  const secretsDiffer = want.pullSecrets.length > 0 && !same(have.imagePullSecrets, want.pullSecrets);
  if (!imageDiffers && !secretsDiffer) return {};
  // A key the configuration does not set follows the daemon too (its default names no image
  // anyone publishes).
  const doc = parseDocument(configText(current));
  const imageFollows = !doc.hasIn(['worker', 'image']) || daemon?.image === have.image;
  const secretsFollow =
    !doc.hasIn(['worker', 'imagePullSecrets']) ||
    Boolean(daemon && same(daemon.pullSecrets, have.imagePullSecrets));
  const kept: string[] = [];
  if (imageDiffers) {
    if (imageFollows) doc.setIn(['worker', 'image'], want.image);
    else kept.push(`erase workers still run ${have.image}, not --image ${want.image}; set worker.image`);
  }
  if (secretsDiffer) {
    if (secretsFollow) doc.setIn(['worker', 'imagePullSecrets'], doc.createNode([...want.pullSecrets]));
    else
      kept.push(
        `erase workers pull with [${have.imagePullSecrets.join(', ')}], not --image-pull-secret ${want.pullSecrets.join(', ')}; set worker.imagePullSecrets`,
      );
  }
  const edit = `kubectl -n ${ns} edit configmap ${CONFIG_MAP_NAME}`;
  const note = kept.length ? `kept as it is (yours): ${kept.join('; ')} in it: ${edit}` : undefined;
  const changed = (imageDiffers && imageFollows) || (secretsDiffer && secretsFollow);
  return { ...(changed ? { text: String(doc) } : {}), ...(note ? { note } : {}) };
}
