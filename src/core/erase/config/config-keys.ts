// What each key of `inv-erase-config` is for, who may set it, and where its default lives in the
// parsed configuration: docs/erase-config.md's table is generated from this and config.ts's
// DEFAULT_CONFIG (npm run gen:docs). The keys config.ts accepts are read from its own refusal of an
// unknown key, so a key added there without a line here fails the generator and its test. PURE.

/** One key of config.yaml. */
export interface ConfigKey {
  /** As written in config.yaml: `worker.image`, `requesterLimits.maxPause`. */
  key: string;
  type: string;
  /** Path of its value in the parsed configuration (config.ts EraseConfig); absent: no default. */
  field?: string;
  /** The parsed value is seconds, written as a duration (`10m`). */
  seconds?: true;
  /** Who may set it: the administrator always; a requester's ImageList where it overrides it. */
  setBy: string;
  what: string;
}

const ADMIN = 'administrator';

export const CONFIG_KEYS: readonly ConfigKey[] = [
  {
    key: 'runtimeSocket',
    type: 'host path',
    field: 'runtimeSocket',
    setBy: ADMIN,
    what: "the node's CRI socket, mounted into every worker",
  },
  {
    key: 'nodeFilter',
    type: '{type: include|exclude, selectors: [label selector]}',
    field: 'nodeFilter',
    setBy: ADMIN,
    what: 'which nodes get a worker',
  },
  {
    key: 'skipNotReady',
    type: 'boolean',
    field: 'skipNotReady',
    setBy: ADMIN,
    what: 'NotReady nodes are skipped (reason `not-ready`)',
  },
  {
    key: 'skipCordoned',
    type: 'boolean',
    field: 'skipCordoned',
    setBy: ADMIN,
    what: 'cordoned nodes are skipped (reason `cordoned`)',
  },
  {
    key: 'successRatio',
    type: 'number 0..1',
    field: 'successRatio',
    setBy: ADMIN,
    what: 'a job is Completed when (succeeded + skipped) / desired reaches it',
  },
  {
    key: 'delayOnSuccess',
    type: 'duration',
    field: 'delayOnSuccessSeconds',
    seconds: true,
    setBy: ADMIN,
    what: 'a Completed job and its objects are kept this long, then deleted',
  },
  {
    key: 'delayOnFailure',
    type: 'duration',
    field: 'delayOnFailureSeconds',
    seconds: true,
    setBy: ADMIN,
    what: 'a Failed job and its objects are kept this long, then deleted',
  },
  {
    key: 'jobTimeout',
    type: 'duration',
    field: 'jobTimeoutSeconds',
    seconds: true,
    setBy: `${ADMIN}; a list's \`spec.jobTimeout\` up to \`requesterLimits.maxJobTimeout\``,
    what: 'unfinished nodes fail with reason `timeout`',
  },
  {
    key: 'protectionWait',
    type: 'duration',
    field: 'protectionWaitSeconds',
    seconds: true,
    setBy: ADMIN,
    what: 'a `*` prune that cannot get its protected set this long fails with the reason, having removed nothing',
  },
  {
    key: 'maxConcurrentJobs',
    type: 'integer 1..1000',
    field: 'maxConcurrentJobs',
    setBy: ADMIN,
    what: 'ImageJobs running at once in the cluster; later ones wait (phase `Queued`), oldest first',
  },
  {
    key: 'workerStartGrace',
    type: 'duration',
    field: 'workerStartGraceSeconds',
    seconds: true,
    setBy: ADMIN,
    what: 'a worker that cannot start (image pull, container config, socket mount) or cannot be placed (unschedulable, no preemption under way) fails its node after this',
  },
  {
    key: 'exclusionLabel',
    type: 'label selector',
    field: 'exclusionLabel',
    setBy: ADMIN,
    what: 'ConfigMaps with it, in the configuration namespace, are merged into the exclusions',
  },
  {
    key: 'allowPruneAll',
    type: 'boolean',
    field: 'allowPruneAll',
    setBy: ADMIN,
    what: 'may an ImageList name `*` (prune every unused image)?',
  },
  {
    key: 'allowUnprotected',
    type: 'boolean',
    field: 'allowUnprotected',
    setBy: ADMIN,
    what: "may a `*` prune turn the inventory's protection off (`--no-protect-inventory`)?",
  },
  {
    key: 'stateDir',
    type: 'host path',
    field: 'stateDir',
    setBy: ADMIN,
    what: "host folder of each node's record of unused images (threshold and minimum-age runs; read-write)",
  },
  {
    key: 'imageFsPath',
    type: 'host path',
    field: 'imageFsPath',
    setBy: ADMIN,
    what: 'a host path on the image file system, mounted read-only for `statfs` (threshold runs)',
  },
  {
    key: 'imageFsPrescreen',
    type: 'boolean',
    field: 'imageFsPrescreen',
    setBy: ADMIN,
    what: 'no worker on a node whose Node status shows it surely below the high mark',
  },
  {
    key: 'rollout',
    type: '{maxParallel, pause, failureBudget}',
    field: 'rollout',
    setBy: `${ADMIN}; a list's \`spec.rollout\` replaces it whole (pause up to \`requesterLimits.maxPause\`)`,
    what: 'rollout waves of a list without `spec.rollout` (absent: every node at once)',
  },
  {
    key: 'worker.image',
    type: 'image reference',
    field: 'worker.image',
    setBy: `${ADMIN}; \`inv install --image\` and the chart's \`image\` set it with the daemon's`,
    what: "the image every worker runs (`inv node-remove`): the daemon's, unless set apart",
  },
  {
    key: 'worker.criTimeout',
    type: 'duration',
    field: 'worker.criTimeout',
    setBy: ADMIN,
    what: "deadline of each CRI call (the worker's `--timeout`)",
  },
  {
    key: 'worker.resources',
    type: '{requests, limits}',
    field: 'worker.resources',
    setBy: ADMIN,
    what: "the worker container's resources",
  },
  {
    key: 'worker.tolerations',
    type: '[toleration]',
    field: 'worker.tolerations',
    setBy: ADMIN,
    what: "the worker Pods' tolerations (the default reaches tainted nodes too; a cordon's taint is always tolerated, as `skipCordoned` decides)",
  },
  {
    key: 'worker.priorityClassName',
    type: 'string',
    field: 'worker.priorityClassName',
    setBy: ADMIN,
    what: "the worker Pods' priority class (empty: none); one that may preempt lets a worker into a full node",
  },
  {
    key: 'worker.imagePullSecrets',
    type: '[Secret name]',
    field: 'worker.imagePullSecrets',
    setBy: `${ADMIN}; \`inv install --image-pull-secret\` and the chart's \`image.pullSecrets\` set it with the daemon's`,
    what: "`kubernetes.io/dockerconfigjson` Secrets in the workers' namespace, for a worker image that needs credentials",
  },
  {
    key: 'scanners',
    type: '{NAME: {image, config, ...}}',
    field: 'scanners',
    setBy: ADMIN,
    what: "scan mode's scanners; a list picks one by name ([scan mode](scan-mode.md))",
  },
  {
    key: 'requesterLimits.maxJobTimeout',
    type: 'duration',
    field: 'requesterLimits.maxJobTimeoutSeconds',
    seconds: true,
    setBy: ADMIN,
    what: "longest `spec.jobTimeout` a requester's list may ask for (never below `jobTimeout`)",
  },
  {
    key: 'requesterLimits.maxPause',
    type: 'duration',
    field: 'requesterLimits.maxPauseSeconds',
    seconds: true,
    setBy: ADMIN,
    what: "longest `spec.rollout.pause` a requester's list may ask for",
  },
  {
    key: 'requesterLimits.administratorLists',
    type: '[ImageList name]',
    field: 'requesterLimits.administratorLists',
    setBy: ADMIN,
    what: "the administrator's lists: no bounds, first in the queue, their place kept",
  },
  {
    key: 'requesterLimits.maxJobs',
    type: 'integer',
    field: 'requesterLimits.maxJobs',
    setBy: ADMIN,
    what: "places of `maxConcurrentJobs` requesters' jobs hold together (default: all but one when `administratorLists` names a list, else all)",
  },
  {
    key: 'record.retention',
    type: 'duration',
    field: 'record.retentionSeconds',
    seconds: true,
    setBy: ADMIN,
    what: 'the removal record (`inv erase history`) is kept this long after a node finished, whatever became of its job',
  },
  {
    key: 'record.maxObjects',
    type: 'integer',
    field: 'record.maxObjects',
    setBy: ADMIN,
    what: 'at most this many ImageJobRecord objects are kept; past it the oldest are deleted',
  },
  {
    key: 'record.maxBytes',
    type: 'size',
    field: 'record.maxBytes',
    setBy: ADMIN,
    what: 'at most this many bytes of records are kept (as stored); past it the oldest are deleted',
  },
];
