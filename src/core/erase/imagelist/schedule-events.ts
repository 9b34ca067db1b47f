// A skipped tick as a Warning Event on its ImageList, where `kubectl describe imagelist` and
// `kubectl get events` show it. The ImageList is cluster-scoped, so its Events live in
// `default`, as the API server expects for cluster-scoped objects. The name follows from the
// list and the tick, so a reconcile that decides the same skip again finds the Event already
// there instead of writing a second one. Reporting never fails a reconcile: the skip is in the
// list's status either way.
import { createHash } from 'node:crypto';
import type { KubeRest } from '../../kube/rest.js';
import { writeEvent } from '../cluster/events.js';
import type { SkippedTick } from '../spec/schedule.js';
import type { ImageList } from '../api/types.js';

export { EVENT_NAMESPACE } from '../cluster/events.js';
export const SKIP_EVENT_REASON = 'ScheduledRunSkipped';
const COMPONENT = 'inv-erase-imagelist-controller';

export function skipEventName(list: ImageList, skip: SkippedTick): string {
  const h = createHash('sha256')
    .update(`${list.metadata.uid ?? ''}\0${skip.scheduleTime}`)
    .digest('hex')
    .slice(0, 12);
  return `${list.metadata.name.slice(0, 200)}.skip-${h}`;
}

/** Creates the Event (../cluster/events.ts); returns an error text instead of throwing. */
export function reportSkip(rest: KubeRest, list: ImageList, skip: SkippedTick): Promise<string | undefined> {
  return writeEvent(rest, {
    name: skipEventName(list, skip),
    involved: { kind: 'ImageList', name: list.metadata.name, uid: list.metadata.uid },
    type: 'Warning',
    reason: SKIP_EVENT_REASON,
    message: `${skip.reason}: ${skip.message}`,
    component: COMPONENT,
  });
}
