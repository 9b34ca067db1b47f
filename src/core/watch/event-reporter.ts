// The daemon's invalid-ref Event reporter: the shared InvalidRefReporter's Events, written
// create-first. The base class reads an Event before creating it, which would need `get` on
// events; the shipped ClusterRole grants only create and patch (least privilege), so here a
// 409 AlreadyExists is what tells us the Event is already there.
import { SOURCE_KINDS, type SourceKind } from '../inventory/sources.js';
import {
  EVENT_COMPONENT,
  EVENT_REASON,
  InvalidRefReporter,
  invalidRefEventName,
} from '../inventory/invalid-ref-events.js';
import type { InvalidRef } from '../inventory/rules.js';
import { isAlreadyExists, type KubeRest } from '../kube/rest.js';

export class CreateOnlyEventReporter extends InvalidRefReporter {
  private readonly seen = new Set<string>();

  constructor(private readonly client: KubeRest) {
    super(client);
  }

  override async report(
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
      if (this.seen.has(key)) continue;
      const now = new Date().toISOString();
      try {
        await this.client.request('POST', `/api/v1/namespaces/${namespace}/events`, {
          body: {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name, namespace },
            involvedObject: {
              apiVersion: SOURCE_KINDS[ref.kind as SourceKind]?.apiVersion,
              kind: ref.kind,
              name: ref.name,
              namespace,
              uid,
              fieldPath: `spec.containers{${ref.container}}`,
            },
            reason: EVENT_REASON,
            message: `container ${ref.container}: image ${JSON.stringify(ref.image)} is not a valid reference: ${ref.reason}`,
            type: 'Warning',
            source: { component: EVENT_COMPONENT },
            reportingComponent: EVENT_COMPONENT,
            firstTimestamp: now,
            lastTimestamp: now,
            count: 1,
          },
        });
        created++;
        this.seen.add(key);
      } catch (e) {
        if (isAlreadyExists(e)) this.seen.add(key);
        else errors.push(`event for ${ref.source}: ${(e as Error).message}`);
      }
      // Bound the memory of a long-running daemon; forgetting only costs one 409 later.
      if (this.seen.size > 100_000) this.seen.clear();
    }
    return { created, errors };
  }
}
