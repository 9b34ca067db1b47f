// Where a worker runs: on its one node, placed there by the scheduler as a DaemonSet's Pods are
// (a required node affinity on the Node's metadata.name), not bound with spec.nodeName. A Pod
// bound by name skips the scheduler: on a full node the kubelet rejects it (OutOfpods,
// OutOfcpu), and priority and preemption never act for it; the nodes that most need cleaning are
// often the full ones. Pure.

/** The taint a cordon sets; the scheduler keeps Pods off a cordoned node unless they tolerate it. */
export const UNSCHEDULABLE_TAINT = 'node.kubernetes.io/unschedulable';

/** The required node affinity that places a Pod on `node` alone (a DaemonSet Pod's own form). */
export const nodeAffinity = (node: string): Record<string, unknown> => ({
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
    },
  },
});

export interface AffinitySpec {
  nodeName?: string;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        nodeSelectorTerms?: { matchFields?: { key?: string; operator?: string; values?: string[] }[] }[];
      };
    };
  };
}

/** The node a worker Pod is for: where it was bound, else the one its affinity names. */
export function targetNode(spec: AffinitySpec | undefined): string | undefined {
  if (spec?.nodeName) return spec.nodeName;
  const terms =
    spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  for (const t of terms ?? [])
    for (const f of t.matchFields ?? [])
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  return undefined;
}

/**
 * The administrator's tolerations, and the cordon's taint: whether a cordoned node is cleaned is
 * the job's node selection's call (skipCordoned), as it was when workers were bound by name,
 * so the scheduler must not decide it again (a DaemonSet's Pods tolerate it for the same reason).
 */
export function workerTolerations(admin: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const covered = admin.some(
    (t) =>
      t.operator === 'Exists' &&
      (t.key === undefined || t.key === '' || t.key === UNSCHEDULABLE_TAINT) &&
      (t.effect === undefined || t.effect === '' || t.effect === 'NoSchedule'),
  );
  return covered
    ? [...admin]
    : [...admin, { key: UNSCHEDULABLE_TAINT, operator: 'Exists', effect: 'NoSchedule' }];
}
