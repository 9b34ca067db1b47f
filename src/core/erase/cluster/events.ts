// Kubernetes Events on our cluster-scoped objects (ImageLists, ImageJobs), where
// `kubectl describe` and `kubectl get events` show them. Cluster-scoped objects' Events live in
// `default`, as the API server expects. Names are deterministic (the caller derives them from
// what the Event reports), so a reconcile that reports the same thing again finds the Event
// there instead of writing a second one: Events stay bounded by what happened, not by how often
// it was looked at. Writing an Event never fails a reconcile: the status says the same.
import * as resources from '../../kube/resources.js';
import { isAlreadyExists, type KubeRest } from '../../kube/rest.js';
import { API_VERSION } from '../api/types.js';

export const EVENT_NAMESPACE = 'default';

export interface EventSpec {
  /** Deterministic: the same report always gets the same name. */
  name: string;
  involved: { kind: 'ImageList' | 'ImageJob'; name: string; uid?: string };
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  component: string;
}

/** Creates the Event; returns an error text instead of throwing. */
export async function writeEvent(rest: KubeRest, e: EventSpec): Promise<string | undefined> {
  const now = new Date().toISOString();
  try {
    await resources.create(rest, 'Event', EVENT_NAMESPACE, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: e.name.slice(0, 253), namespace: EVENT_NAMESPACE },
      involvedObject: {
        apiVersion: API_VERSION,
        kind: e.involved.kind,
        name: e.involved.name,
        uid: e.involved.uid,
      },
      reason: e.reason,
      message: e.message.slice(0, 1024),
      type: e.type,
      source: { component: e.component },
      reportingComponent: e.component,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
    return undefined;
  } catch (err) {
    return isAlreadyExists(err) ? undefined : (err as Error).message;
  }
}
