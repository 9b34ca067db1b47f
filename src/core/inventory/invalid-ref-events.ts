// Reports invalid image refs as Warning Events on the object that carries them, the way
// `kubectl describe` users expect to find problems. Event names are derived from the
// object, container and ref, so a rebuild that sees the same problem again finds the
// existing Event (one read) instead of writing a new one: a rebuild of an unchanged
// namespace stays write-free.
import * as resources from '../kube/resources.js';
import { createHash } from 'node:crypto';
import { isAlreadyExists, isNamespaceTerminating, isNotFound, type KubeRest } from '../kube/rest.js';
import { apiVersionOf, BUILTIN } from './source-kinds.js';
import { abbreviate, limitMessage } from '../refs/abbreviate.js';
import type { InvalidRef } from './rules.js';

export const EVENT_REASON = 'InvalidImageRef';
export const EVENT_COMPONENT = 'image-inventory-controller';

export function invalidRefEventName(ref: InvalidRef, uid: string | undefined): string {
  const h = createHash('sha256')
    .update(`${uid ?? ''}\0${ref.kind}\0${ref.name}\0${ref.container}\0${ref.image}`)
    .digest('hex')
    .slice(0, 12);
  return `${ref.name.slice(0, 200)}.inv-${h}`;
}

export interface ReporterOptions {
  /**
   * Create first and treat 409 AlreadyExists as "already reported", instead of reading first.
   * The daemon uses this: its least-privilege ClusterRole grants create and patch on Events,
   * not get, and its in-memory set means it tries each Event once per process anyway. `inv
   * scan` reads first, so a rebuild of an unchanged namespace makes no write at all.
   */
  createFirst?: boolean;
}

/** Bound on remembered Event names in a long-running daemon; forgetting costs one request later. */
const MAX_KNOWN = 100_000;

export class InvalidRefReporter {
  /** Names already known to exist, so a long-running daemon does not even re-read them. */
  private readonly known = new Set<string>();

  constructor(
    private readonly rest: KubeRest,
    private readonly opts: ReporterOptions = {},
  ) {}

  /** Returns the number of Events created. Failures are returned, never thrown. */
  async report(
    namespace: string,
    refs: InvalidRef[],
    uidOf: (kind: string, name: string) => string | undefined,
  ): Promise<{ created: number; errors: string[] }> {
    let created = 0;
    const errors: string[] = [];
    for (const ref of refs) {
      const uid = uidOf(ref.kind, ref.name);
      const name = invalidRefEventName(ref, uid);
      const key = `${namespace}/${name}`;
      if (this.known.has(key)) continue;
      try {
        if (this.opts.createFirst || !(await this.exists(namespace, name))) {
          await resources.create(this.rest, 'Event', namespace, eventBody(namespace, name, ref, uid));
          created++;
        }
        this.known.add(key);
      } catch (e) {
        if (isAlreadyExists(e)) this.known.add(key);
        // A namespace being deleted takes its Events with it: nothing to report there.
        else if (!isNamespaceTerminating(e)) errors.push(`event for ${ref.source}: ${(e as Error).message}`);
      }
      if (this.known.size > MAX_KNOWN) this.known.clear();
    }
    return { created, errors };
  }

  private async exists(namespace: string, name: string): Promise<boolean> {
    try {
      await resources.get(this.rest, 'Event', namespace, name);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }
}

/** The message: a container's bad image, or an image field's (which may hold no string at all). */
function problem(ref: InvalidRef): string {
  if (ref.field && ref.image === '' && ref.reason !== 'empty image')
    return `field ${ref.container}: ${ref.reason}`;
  const what = ref.field ? 'field' : 'container';
  return `${what} ${ref.container}: image ${JSON.stringify(abbreviate(ref.image))} is not a valid reference: ${ref.reason}`;
}

function eventBody(namespace: string, name: string, ref: InvalidRef, uid: string | undefined): unknown {
  const now = new Date().toISOString();
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: {
      apiVersion: ((k) => k && apiVersionOf(k))(BUILTIN.byKind(ref.kind)),
      kind: ref.kind,
      name: ref.name,
      namespace,
      uid,
      fieldPath: ref.field ? ref.container : `spec.containers{${ref.container}}`,
    },
    reason: EVENT_REASON,
    message: limitMessage(problem(ref)),
    type: 'Warning',
    source: { component: EVENT_COMPONENT },
    reportingComponent: EVENT_COMPONENT,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
