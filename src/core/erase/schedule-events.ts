// A skipped tick as a Warning Event on its ImageList, where `kubectl describe imagelist` and
// `kubectl get events` show it. The ImageList is cluster-scoped, so its Events live in
// `default`, as the API server expects for cluster-scoped objects. The name follows from the
// list and the tick, so a reconcile that decides the same skip again finds the Event already
// there instead of writing a second one. Reporting never fails a reconcile: the skip is in the
// list's status either way.
import { createHash } from 'node:crypto';
import { isAlreadyExists, type KubeRest } from '../kube/rest.js';
import type { SkippedTick } from './schedule.js';
import { API_VERSION, type ImageList } from './types.js';

export const SKIP_EVENT_REASON = 'ScheduledRunSkipped';
export const EVENT_NAMESPACE = 'default';
const COMPONENT = 'inv-erase-imagelist-controller';

export function skipEventName(list: ImageList, skip: SkippedTick): string {
  const h = createHash('sha256')
    .update(`${list.metadata.uid ?? ''}\0${skip.scheduleTime}`)
    .digest('hex')
    .slice(0, 12);
  return `${list.metadata.name.slice(0, 200)}.skip-${h}`;
}

/** Creates the Event; returns an error text instead of throwing. */
export async function reportSkip(
  rest: KubeRest,
  list: ImageList,
  skip: SkippedTick,
): Promise<string | undefined> {
  const now = new Date().toISOString();
  try {
    await rest.request('POST', `/api/v1/namespaces/${EVENT_NAMESPACE}/events`, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: skipEventName(list, skip), namespace: EVENT_NAMESPACE },
        involvedObject: {
          apiVersion: API_VERSION,
          kind: 'ImageList',
          name: list.metadata.name,
          uid: list.metadata.uid,
        },
        reason: SKIP_EVENT_REASON,
        message: `${skip.reason}: ${skip.message}`,
        type: 'Warning',
        source: { component: COMPONENT },
        reportingComponent: COMPONENT,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
    return undefined;
  } catch (e) {
    return isAlreadyExists(e) ? undefined : (e as Error).message;
  }
}
