// Writes Image resources with optimistic concurrency: every update carries the
// resourceVersion it was computed from, and a 409 re-reads the object and tries again, so a
// concurrent writer is never overwritten blindly.
import { isAlreadyExists, isConflict, isNotFound, type KubeRest } from '../kube/rest.js';
import {
  IMAGE_API_VERSION,
  imagesPath,
  isManaged,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  sameStatus,
  stripImage,
  type ImageResource,
  type ImageStatus,
} from './image-resource.js';

const MAX_ATTEMPTS = 5;

export class UnmanagedImageError extends Error {}

export class ImageStore {
  constructor(private readonly rest: KubeRest) {}

  async list(namespace: string): Promise<ImageResource[]> {
    return (await this.rest.list<ImageResource, ImageResource>(imagesPath(namespace), { map: stripImage }))
      .items;
  }

  private async get(namespace: string, name: string): Promise<ImageResource | undefined> {
    try {
      return await this.rest.get<ImageResource>(imagesPath(namespace, name));
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /**
   * Makes the Image `name` hold `image` and `status` (kinds, users), creating it if needed. `current` is the
   * object the decision was based on (undefined when it did not exist). Returns the number
   * of write calls made.
   */
  async ensure(
    namespace: string,
    name: string,
    image: string,
    status: ImageStatus,
    current: ImageResource | undefined,
  ): Promise<number> {
    let writes = 0;
    let cur = current;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!cur) {
          writes++;
          cur = await this.rest.request<ImageResource>('POST', imagesPath(namespace), {
            body: {
              apiVersion: IMAGE_API_VERSION,
              kind: 'Image',
              metadata: { name, namespace, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
              spec: { image },
            },
          });
        } else if (!isManaged(cur)) {
          throw new UnmanagedImageError(
            `Image ${namespace}/${name} lost its managed-by label; left untouched`,
          );
        } else if (cur.spec?.image !== image) {
          writes++;
          cur = await this.rest.request<ImageResource>('PUT', imagesPath(namespace, name), {
            body: {
              apiVersion: IMAGE_API_VERSION,
              kind: 'Image',
              metadata: {
                ...cur.metadata,
                labels: { ...cur.metadata.labels, [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
              },
              spec: { image },
              status: cur.status,
            },
          });
        }
        if (!sameStatus(cur.status, status)) {
          writes++;
          cur = await this.rest.request<ImageResource>('PUT', imagesPath(namespace, name, 'status'), {
            body: {
              apiVersion: IMAGE_API_VERSION,
              kind: 'Image',
              metadata: { name, namespace, resourceVersion: cur.metadata.resourceVersion },
              spec: { image },
              status,
            },
          });
        }
        return writes;
      } catch (e) {
        const retriable = isConflict(e) || isAlreadyExists(e) || (isNotFound(e) && cur !== undefined);
        if (!retriable || attempt >= MAX_ATTEMPTS) throw e;
        cur = await this.get(namespace, name);
      }
    }
  }

  /** Deletes a managed Image, re-checking ownership after a conflict. Returns write calls made. */
  async delete(namespace: string, current: ImageResource): Promise<number> {
    let writes = 0;
    let cur: ImageResource | undefined = current;
    for (let attempt = 1; cur && isManaged(cur); attempt++) {
      try {
        writes++;
        await this.rest.request('DELETE', imagesPath(namespace, cur.metadata.name), {
          body: {
            apiVersion: 'v1',
            kind: 'DeleteOptions',
            preconditions: { uid: cur.metadata.uid, resourceVersion: cur.metadata.resourceVersion },
          },
        });
        return writes;
      } catch (e) {
        if (isNotFound(e)) return writes;
        if (!isConflict(e) || attempt >= MAX_ATTEMPTS) throw e;
        cur = await this.get(namespace, cur.metadata.name);
      }
    }
    return writes;
  }
}
