// Where the image report's rows come from: the Image resources of the cluster (one LIST, no
// workload is read), or the same rules run over the workloads themselves (read live from a
// cluster where inv is not installed, or offline from manifests).
import { forEachConcurrent } from '../concurrency.js';
import { imagesPath, type ImageResource } from '../inventory/image-resource.js';
import { listNamespaceObjects } from '../inventory/sources.js';
import { desiredImages, usersStatus } from '../inventory/rules.js';
import type { SourceKinds } from '../inventory/source-kinds.js';
import type { NamespaceObjects } from '../inventory/source-fields.js';
import type { KubeRest } from '../kube/rest.js';
import type { ImageUse } from './image-report.js';

const toUse = (img: ImageResource): ImageUse => {
  const users = img.status?.users ?? [];
  return {
    namespace: img.metadata.namespace ?? '',
    image: img.spec?.image ?? '',
    kinds: (img.status?.kinds ?? '').split(',').filter(Boolean),
    users,
    userCount: img.status?.userCount ?? users.length,
  };
};

/** Every Image of the cluster, or of `namespaces`. */
export async function clusterUses(rest: KubeRest, namespaces?: string[]): Promise<ImageUse[]> {
  const out: ImageUse[] = [];
  for (const ns of namespaces ?? [undefined]) {
    const list = await rest.list<ImageResource>(imagesPath(ns));
    out.push(...list.items.filter((i) => i.spec?.image).map(toUse));
  }
  return out;
}

/**
 * The uses read from the workloads of `namespaces` (the LISTs `inv scan --dry-run` makes): for a
 * cluster without the Image CRD, where no inventory exists to read.
 */
export async function liveUses(
  rest: KubeRest,
  namespaces: string[],
  kinds?: SourceKinds,
): Promise<ImageUse[]> {
  const byNamespace = new Map<string, NamespaceObjects>();
  await forEachConcurrent(namespaces, 4, async (ns) => {
    byNamespace.set(ns, await listNamespaceObjects(rest, ns, undefined, kinds));
  });
  return offlineUses(byNamespace, kinds);
}

/** The uses the inventory would record for these objects. */
export function offlineUses(byNamespace: Map<string, NamespaceObjects>, kinds?: SourceKinds): ImageUse[] {
  const out: ImageUse[] = [];
  for (const [namespace, objs] of byNamespace) {
    const { images, users } = desiredImages(namespace, objs, kinds);
    for (const [image, kinds] of images) {
      out.push({ namespace, image, kinds: [...kinds].sort(), ...usersStatus(users.get(image)) });
    }
  }
  return out;
}
