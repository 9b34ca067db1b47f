// Writes Image resources, touching only what the inventory owns: the managed-by label,
// spec.image and status.kinds/users/userCount. Updates are server-side apply with our own field
// manager, so labels, annotations, finalizers and ownerReferences that other tools put on an
// Image survive every write (a PUT of our cached, stripped copy would wipe them). Every apply
// carries the resourceVersion the decision was computed from: a concurrent change (say, someone
// removing our label) gives 409, and the retry re-reads the object and decides again, so a
// concurrent writer is never overwritten blindly and an Image that left our care is never
// re-adopted by our own apply.
import * as resources from '../kube/resources.js';
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

/** Our field manager for server-side apply; managedFields show who wrote what. */
export const INVENTORY_FIELD_MANAGER = 'inv-inventory';

/**
 * Counts write requests as they are sent (including ones that fail), synchronously, so that
 * concurrent callers sharing one counter never lose an increment.
 */
export interface WriteCounter {
  writes: number;
}

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
    counter: WriteCounter = { writes: 0 },
  ): Promise<number> {
    const before = counter.writes;
    let cur = current;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!cur) {
          // A plain create, not an apply: an apply would also "create" over an unlabeled Image
          // of the same name and adopt it. POST fails with 409 instead, and we re-decide.
          counter.writes++;
          cur = await this.rest.request<ImageResource>('POST', imagesPath(namespace), {
            query: { fieldManager: INVENTORY_FIELD_MANAGER },
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
          counter.writes++;
          cur = await this.apply(namespace, name, cur, { spec: { image } });
        }
        if (!sameStatus(cur.status, status)) {
          counter.writes++;
          // Every status field we own is sent, empty or not: a field left out of an apply is
          // removed only if no other manager ever wrote it, which older versions of inv did.
          cur = await this.apply(namespace, name, cur, {
            status: {
              kinds: status.kinds ?? '',
              users: status.users ?? [],
              userCount: status.userCount ?? 0,
            },
          });
        }
        return counter.writes - before;
      } catch (e) {
        const retriable = isConflict(e) || isAlreadyExists(e) || (isNotFound(e) && cur !== undefined);
        if (!retriable || attempt >= MAX_ATTEMPTS) throw e;
        cur = await this.get(namespace, name);
      }
    }
  }

  /** Deletes a managed Image, re-checking ownership after a conflict. Returns write calls made. */
  async delete(
    namespace: string,
    current: ImageResource,
    counter: WriteCounter = { writes: 0 },
  ): Promise<number> {
    const before = counter.writes;
    let cur: ImageResource | undefined = current;
    for (let attempt = 1; cur && isManaged(cur); attempt++) {
      try {
        counter.writes++;
        await this.rest.request('DELETE', imagesPath(namespace, cur.metadata.name), {
          body: {
            apiVersion: 'v1',
            kind: 'DeleteOptions',
            preconditions: { uid: cur.metadata.uid, resourceVersion: cur.metadata.resourceVersion },
          },
        });
        return counter.writes - before;
      } catch (e) {
        if (isNotFound(e)) return counter.writes - before;
        if (!isConflict(e) || attempt >= MAX_ATTEMPTS) throw e;
        cur = await this.get(namespace, cur.metadata.name);
      }
    }
    return counter.writes - before;
  }

  /**
   * Server-side apply of `fields` (spec or status) with our field manager, on the object or its
   * status subresource, conditional on `cur`'s resourceVersion. `force` takes over spec.image
   * and our label from whoever set them last: an Image with the managed-by label is the
   * inventory's to rewrite (adoption), and the resourceVersion precondition keeps that safe.
   */
  private async apply(
    namespace: string,
    name: string,
    cur: ImageResource,
    fields: { spec: { image: string } } | { status: Required<ImageStatus> },
  ): Promise<ImageResource> {
    const isStatus = 'status' in fields;
    const out = await resources.apply<ImageResource>(
      this.rest,
      'Image',
      namespace,
      name,
      {
        apiVersion: IMAGE_API_VERSION,
        kind: 'Image',
        metadata: {
          name,
          namespace,
          resourceVersion: cur.metadata.resourceVersion,
          ...(isStatus ? {} : { labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } }),
        },
        ...fields,
      },
      { fieldManager: INVENTORY_FIELD_MANAGER, force: true, subresource: isStatus ? 'status' : undefined },
    );
    return stripImage(out);
  }
}
