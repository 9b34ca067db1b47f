// Where the image report's rows come from: the Image resources of the cluster (one LIST, no
// workload is read), or the same rules run offline over manifests.
import { imagesPath, type ImageResource } from '../inventory/image-resource.js';
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
