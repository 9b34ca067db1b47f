// Writes Image resources, touching only what the inventory owns: the managed-by label,
// spec.image and status.kinds/users/userCount. Updates are server-side apply with our own field
// manager, so labels, annotations, finalizers and ownerReferences that other tools put on an
// Image survive every write (a PUT of our cached, stripped copy would wipe them). Every apply
// carries the resourceVersion the decision was computed from: a concurrent change (say, someone
// removing our label) gives 409, and the retry re-reads the object and decides again, so a
// concurrent writer is never overwritten blindly and an Image that left our care is never
// re-adopted by our own apply.
//
// One write per new or changed Image: the Image CRD has no status subresource (inv is the only
// writer of an Image's status), so a create or an apply of the main resource carries the status.
// An Image CRD from before that (Helm never upgrades the CRDs of crds/) has one: the API server
// then drops the status of a create or of an apply to the main resource, and it goes through
// /status as a second write. Which of the two the cluster has is learnt from discovery once per
// store, when an update is about to be written, and again whenever a write says it changed.
import { IMAGE_CRD, servesSubresource } from '../kube/crds.js';
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

/** Every status field we own, empty or not (why: see apply). */
const ownedStatus = (status: ImageStatus): Required<ImageStatus> => ({
  kinds: status.kinds ?? '',
  users: status.users ?? [],
  userCount: status.userCount ?? 0,
});

export class ImageStore {
  // Whether the Image CRD has a status subresource: learnt on the first update, shared by the
  // concurrent writers of this store, forgotten when a write shows that the CRD changed.
  private statusSubresource?: Promise<boolean>;

  constructor(private readonly rest: KubeRest) {}

  private hasStatusSubresource(): Promise<boolean> {
    if (!this.statusSubresource) {
      const p = servesSubresource(this.rest, IMAGE_CRD, 'status');
      this.statusSubresource = p;
      // A failed discovery (a timeout, a 403) is not remembered: the next write asks again.
      p.catch(() => {
        if (this.statusSubresource === p) this.statusSubresource = undefined;
      });
    }
    return this.statusSubresource;
  }

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
   * of write calls made: one, or two on an Image CRD with a status subresource.
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
              status: ownedStatus(status),
            },
          });
        } else if (!isManaged(cur)) {
          throw new UnmanagedImageError(
            `Image ${namespace}/${name} lost its managed-by label; left untouched`,
          );
        } else if (cur.spec?.image !== image || !sameStatus(cur.status, status)) {
          const split = await this.hasStatusSubresource();
          if (!split || cur.spec?.image !== image) {
            counter.writes++;
            cur = await this.apply(namespace, name, cur, image, split ? undefined : status);
          }
        }
        if (!sameStatus(cur.status, status)) {
          // The API server dropped the status we sent (or we did not send it): the Image CRD has
          // a status subresource.
          this.statusSubresource = Promise.resolve(true);
          counter.writes++;
          cur = await this.applyStatus(namespace, name, cur, status);
        }
        return counter.writes - before;
      } catch (e) {
        // A 404 on an Image we just read may be /status of a CRD that lost its subresource
        // since we asked: ask discovery again before the retry decides.
        if (isNotFound(e) && cur !== undefined) this.statusSubresource = undefined;
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
   * Server-side apply of our label, spec.image and, when given, every status field we own, with
   * our field manager, conditional on `cur`'s resourceVersion: one write for any change. Every
   * status field is sent, empty or not: a field left out of an apply is removed only if no other
   * manager ever wrote it, which older versions of inv did (through /status). `force` takes over
   * what we set from whoever set it last: an Image with the managed-by label is the inventory's
   * to rewrite (adoption), and the resourceVersion precondition keeps that safe.
   */
  private async apply(
    namespace: string,
    name: string,
    cur: ImageResource,
    image: string,
    status: ImageStatus | undefined,
  ): Promise<ImageResource> {
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
          labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
        },
        spec: { image },
        ...(status ? { status: ownedStatus(status) } : {}),
      },
      { fieldManager: INVENTORY_FIELD_MANAGER, force: true },
    );
    return stripImage(out);
  }

  /** The same apply of the status alone, on the status subresource of an older Image CRD. */
  private async applyStatus(
    namespace: string,
    name: string,
    cur: ImageResource,
    status: ImageStatus,
  ): Promise<ImageResource> {
    const out = await resources.apply<ImageResource>(
      this.rest,
      'Image',
      namespace,
      name,
      {
        apiVersion: IMAGE_API_VERSION,
        kind: 'Image',
        metadata: { name, namespace, resourceVersion: cur.metadata.resourceVersion },
        status: ownedStatus(status),
      },
      { fieldManager: INVENTORY_FIELD_MANAGER, force: true, subresource: 'status' },
    );
    return stripImage(out);
  }
}
