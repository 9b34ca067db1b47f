// The erase controllers' configuration: the ConfigMap `inv-erase-config` (key `config.yaml`) in
// the configuration namespace (the daemon's, settings.ts). Every value has a documented default; a
// value that is present but bad is an error naming the key and the problem, never silently
// replaced by the default. (The ConfigMap itself must exist: settings.ts fails closed without it.)
//
//   runtimeSocket: /run/containerd/containerd.sock   # host path of the CRI socket, mounted into workers
//   nodeFilter:
//     type: exclude                                  # include | exclude
//     selectors: [imageinventory.dev/erase-skip, kubernetes.io/os=windows]
//   skipNotReady: true                               # NotReady nodes are skipped (reason not-ready)
//   skipCordoned: true                               # cordoned nodes are skipped (reason cordoned)
//   successRatio: 1.0                                # Completed if (succeeded + skipped) / desired >= this
//   delayOnSuccess: 10m                              # keep a Completed job (and its Pods) this long
//   delayOnFailure: 24h                              # keep a Failed job this long
//   jobTimeout: 30m                                  # unfinished nodes fail with reason "timeout"
//   maxConcurrentJobs: 5                             # jobs running at once, cluster-wide; later
//                                                    # ones wait, oldest first (queue.ts)
//   workerStartGrace: 15s                            # a worker that cannot start (image pull,
//                                                    # container config) or be placed (unschedulable,
//                                                    # no preemption under way) fails its node after this
//   protectionWait: 1h                               # a * prune without its protected set fails after this
//   exclusionLabel: imageinventory.dev/exclusion-list=true   # ConfigMaps merged into the exclusions
//   allowPruneAll: true                              # may an ImageList name * (prune all unused)?
//   allowUnprotected: true                           # may it set protectInventory: false?
//   stateDir: /var/lib/inv                           # host folder of each node's record of unused
//                                                    # images (imageFs/minUnusedAge runs; rw hostPath)
//   imageFsPath: /var/lib/containerd                 # host path on the image file system, mounted
//                                                    # read-only for statfs (imageFs runs only)
//   imageFsPrescreen: true                           # skip nodes whose Node status shows them surely
//                                                    # under the high mark (false: image fs on another
//                                                    # disk than the kubelet's)
//   rollout: {maxParallel: 10%, pause: 1m, failureBudget: 5}   # default rollout waves of a list
//                                                    # without spec.rollout (absent: all at once)
//   worker:
//     image: ghcr.io/imageinventory/inv:0.1.0        # runs `inv node-remove` (entrypoint inv)
//     criTimeout: 5s                                 # node-remove --timeout
//     resources: {requests: {cpu: 10m, memory: 64Mi}, limits: {memory: 256Mi}}
//     tolerations: [{operator: Exists}]              # reach tainted nodes too
//     priorityClassName: ''                          # optional
//     imagePullSecrets: [regcred]                    # Secrets in the workers' namespace, by name
//   scanners: {trivy: {image: ..., config: {...}}}     # scan mode's scanners (scanners.ts)
//   requesterLimits: {maxJobTimeout: 6h, maxPause: 1h, administratorLists: [nightly]}  # requester-limits.ts
//   record: {retention: 30d, maxObjects: 5000, maxBytes: 256Mi}  # the removal record (record-retention.ts)
import { isObj } from '../../guards.js';
import { parse } from 'yaml';
import { DEFAULT_RUNTIME_SOCKET } from '../../constants.js';
import { parseDurationMs } from '../../duration.js';
import { parseSelector } from '../spec/selector.js';
import { rolloutProblems, type RolloutSpec } from '../spec/rollout.js';
import { parseScanners, ScannerConfigError, type ScannerConfig } from './scanners.js';
import { defaultRequesterLimits, parseRequesterLimits, type RequesterLimits } from './requester-limits.js';
import { DEFAULT_RECORD_RETENTION, parseRecordRetention, type RecordRetention } from './record-retention.js';

export const CONFIG_MAP_NAME = 'inv-erase-config';
export const CONFIG_KEY = 'config.yaml';

export interface WorkerConfig {
  image: string;
  criTimeout: string;
  resources: Record<string, unknown>;
  tolerations: Record<string, unknown>[];
  priorityClassName: string;
  /** Names of kubernetes.io/dockerconfigjson Secrets in the workers' namespace. */
  imagePullSecrets: string[];
}

export interface EraseConfig {
  runtimeSocket: string;
  nodeFilter: { type: 'include' | 'exclude'; selectors: string[] };
  skipNotReady: boolean;
  skipCordoned: boolean;
  successRatio: number;
  delayOnSuccessSeconds: number;
  delayOnFailureSeconds: number;
  jobTimeoutSeconds: number;
  /** ImageJobs running at once in the cluster; the others wait in creation order. */
  maxConcurrentJobs: number;
  /** How long a worker may sit in ErrImagePull, CreateContainerError, Unschedulable... before its node fails. */
  workerStartGraceSeconds: number;
  /** A `*` prune that cannot get its protected set this long fails, with the reason (plan.ts). */
  protectionWaitSeconds: number;
  exclusionLabel: string;
  /** Policy over requesters: may an ImageList prune everything unused (`*`)? */
  allowPruneAll: boolean;
  /** Policy over requesters: may an ImageList turn the inventory's protection off? */
  allowUnprotected: boolean;
  /** Host folder of each node's record of unused images (threshold and minimum-age runs). */
  stateDir: string;
  /** Host path on the image file system, statfs'd for its capacity (threshold runs). */
  imageFsPath: string;
  /** Skip threshold-run nodes whose Node status shows them surely under the high mark. */
  imageFsPrescreen: boolean;
  /** Rollout waves of a list without spec.rollout (../spec/rollout.ts); absent: every node at once. */
  rollout?: RolloutSpec;
  worker: WorkerConfig;
  /** Scan mode's scanners by name (scanners.ts); absent: none configured. */
  scanners?: Record<string, ScannerConfig>;
  /** Bounds on requesters' durations and share of maxConcurrentJobs (requester-limits.ts). */
  requesterLimits?: RequesterLimits;
  /** How long and how much of the removal record is kept (record-retention.ts). */
  record: RecordRetention;
}

export const DEFAULT_CONFIG: EraseConfig = {
  runtimeSocket: DEFAULT_RUNTIME_SOCKET,
  nodeFilter: { type: 'exclude', selectors: ['imageinventory.dev/erase-skip', 'kubernetes.io/os=windows'] },
  skipNotReady: true,
  skipCordoned: true,
  successRatio: 1,
  delayOnSuccessSeconds: 600,
  delayOnFailureSeconds: 86400,
  jobTimeoutSeconds: 1800,
  maxConcurrentJobs: 5,
  workerStartGraceSeconds: 15,
  protectionWaitSeconds: 3600,
  exclusionLabel: 'imageinventory.dev/exclusion-list=true',
  allowPruneAll: true,
  allowUnprotected: true,
  stateDir: '/var/lib/inv',
  imageFsPath: '/var/lib/containerd',
  imageFsPrescreen: true,
  worker: {
    image: 'ghcr.io/imageinventory/inv:0.1.0',
    criTimeout: '5s',
    resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '256Mi' } },
    tolerations: [{ operator: 'Exists' }],
    priorityClassName: '',
    imagePullSecrets: [],
  },
  record: { ...DEFAULT_RECORD_RETENTION },
};
DEFAULT_CONFIG.requesterLimits = defaultRequesterLimits(DEFAULT_CONFIG);

export class ConfigError extends Error {}

/** Seconds, from a duration string with its unit (src/core/duration.ts); a ConfigError otherwise. */
export function parseDuration(v: unknown, key: string): number {
  if (typeof v !== 'string') {
    throw new ConfigError(
      `${key}: must be a duration with its unit, like 30s, 10m or 1h30m, got ${JSON.stringify(v)}`,
    );
  }
  try {
    return parseDurationMs(v, key) / 1000;
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

function bool(v: unknown, key: string): boolean {
  if (typeof v !== 'boolean')
    throw new ConfigError(`${key}: must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function str(v: unknown, key: string, allowEmpty = false): string {
  if (typeof v !== 'string' || (!allowEmpty && v === ''))
    throw new ConfigError(`${key}: must be a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

function known(obj: Record<string, unknown>, keys: string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (!keys.includes(k)) throw new ConfigError(`${where}${k}: unknown key (known: ${keys.join(', ')})`);
  }
}

/** Parses and validates the text of `config.yaml`; absent keys take the defaults above. */
export function parseConfig(text: string | undefined): EraseConfig {
  const cfg: EraseConfig = structuredClone(DEFAULT_CONFIG);
  if (text === undefined || text.trim() === '') return cfg;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new ConfigError(`${CONFIG_KEY} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc == null) return cfg;
  if (!isObj(doc)) throw new ConfigError(`${CONFIG_KEY} must be a mapping of settings`);
  known(
    doc,
    [
      'runtimeSocket',
      'nodeFilter',
      'skipNotReady',
      'skipCordoned',
      'successRatio',
      'delayOnSuccess',
      'delayOnFailure',
      'jobTimeout',
      'maxConcurrentJobs',
      'workerStartGrace',
      'protectionWait',
      'exclusionLabel',
      'allowPruneAll',
      'allowUnprotected',
      'stateDir',
      'imageFsPath',
      'imageFsPrescreen',
      'rollout',
      'worker',
      'scanners',
      'requesterLimits',
      'record',
    ],
    '',
  );
  const record = parseRecordRetention(doc.record);
  if (typeof record === 'string') throw new ConfigError(record);
  cfg.record = record;
  if (doc.scanners != null) {
    try {
      cfg.scanners = parseScanners(doc.scanners);
    } catch (e) {
      if (e instanceof ScannerConfigError) throw new ConfigError(e.message);
      throw e;
    }
  }
  if (doc.allowPruneAll !== undefined) cfg.allowPruneAll = bool(doc.allowPruneAll, 'allowPruneAll');
  if (doc.allowUnprotected !== undefined)
    cfg.allowUnprotected = bool(doc.allowUnprotected, 'allowUnprotected');
  for (const key of ['stateDir', 'imageFsPath'] as const) {
    if (doc[key] === undefined) continue;
    const v = str(doc[key], key);
    if (!v.startsWith('/') || v.split('/').includes('..'))
      throw new ConfigError(
        `${key}: must be an absolute host path without .., got ${JSON.stringify(doc[key])}`,
      );
    cfg[key] = v;
  }
  if (doc.imageFsPrescreen !== undefined)
    cfg.imageFsPrescreen = bool(doc.imageFsPrescreen, 'imageFsPrescreen');
  if (doc.runtimeSocket !== undefined) {
    const s = str(doc.runtimeSocket, 'runtimeSocket').replace(/^unix:\/\//, '');
    if (!s.startsWith('/'))
      throw new ConfigError(
        `runtimeSocket: must be an absolute host path, got ${JSON.stringify(doc.runtimeSocket)}`,
      );
    cfg.runtimeSocket = s;
  }
  if (doc.nodeFilter !== undefined) {
    const nf = doc.nodeFilter;
    if (!isObj(nf)) throw new ConfigError('nodeFilter: must be a mapping with type and selectors');
    known(nf, ['type', 'selectors'], 'nodeFilter.');
    if (nf.type !== undefined) {
      if (nf.type !== 'include' && nf.type !== 'exclude')
        throw new ConfigError(`nodeFilter.type: must be include or exclude, got ${JSON.stringify(nf.type)}`);
      cfg.nodeFilter.type = nf.type;
    }
    if (nf.selectors !== undefined) {
      if (!Array.isArray(nf.selectors))
        throw new ConfigError('nodeFilter.selectors: must be a list of label selectors');
      cfg.nodeFilter.selectors = nf.selectors.map((s, i) => {
        const text = str(s, `nodeFilter.selectors[${i}]`);
        try {
          parseSelector(text);
        } catch (e) {
          throw new ConfigError(`nodeFilter.selectors[${i}]: ${(e as Error).message}`);
        }
        return text;
      });
    }
  }
  if (doc.maxConcurrentJobs !== undefined) {
    const n = doc.maxConcurrentJobs;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1000)
      throw new ConfigError(
        `maxConcurrentJobs: must be a whole number from 1 to 1000, got ${JSON.stringify(n)}`,
      );
    cfg.maxConcurrentJobs = n;
  }
  if (doc.skipNotReady !== undefined) cfg.skipNotReady = bool(doc.skipNotReady, 'skipNotReady');
  if (doc.skipCordoned !== undefined) cfg.skipCordoned = bool(doc.skipCordoned, 'skipCordoned');
  if (doc.successRatio !== undefined) {
    const r =
      typeof doc.successRatio === 'string' && doc.successRatio.trim() !== ''
        ? Number(doc.successRatio)
        : doc.successRatio;
    if (typeof r !== 'number' || !Number.isFinite(r) || r < 0 || r > 1)
      throw new ConfigError(
        `successRatio: must be a number from 0 to 1, got ${JSON.stringify(doc.successRatio)}`,
      );
    cfg.successRatio = r;
  }
  if (doc.delayOnSuccess !== undefined)
    cfg.delayOnSuccessSeconds = parseDuration(doc.delayOnSuccess, 'delayOnSuccess');
  if (doc.delayOnFailure !== undefined)
    cfg.delayOnFailureSeconds = parseDuration(doc.delayOnFailure, 'delayOnFailure');
  if (doc.jobTimeout !== undefined) {
    cfg.jobTimeoutSeconds = parseDuration(doc.jobTimeout, 'jobTimeout');
    if (cfg.jobTimeoutSeconds <= 0) throw new ConfigError('jobTimeout: must be longer than 0s');
  }
  if (doc.workerStartGrace !== undefined)
    cfg.workerStartGraceSeconds = parseDuration(doc.workerStartGrace, 'workerStartGrace');
  if (doc.protectionWait !== undefined) {
    cfg.protectionWaitSeconds = parseDuration(doc.protectionWait, 'protectionWait');
    if (cfg.protectionWaitSeconds <= 0) throw new ConfigError('protectionWait: must be longer than 0s');
  }
  if (doc.exclusionLabel !== undefined) {
    cfg.exclusionLabel = str(doc.exclusionLabel, 'exclusionLabel');
    try {
      parseSelector(cfg.exclusionLabel);
    } catch (e) {
      throw new ConfigError(`exclusionLabel: ${(e as Error).message}`);
    }
  }
  if (doc.rollout !== undefined) {
    const r = doc.rollout;
    if (!isObj(r)) throw new ConfigError('rollout: must be a mapping (maxParallel, pause, failureBudget)');
    known(r, ['maxParallel', 'pause', 'failureBudget'], 'rollout.');
    const problems = rolloutProblems(r as RolloutSpec, 'rollout');
    if (problems.length) throw new ConfigError(problems.join('; '));
    cfg.rollout = r as RolloutSpec;
  }
  if (doc.worker !== undefined) {
    const w = doc.worker;
    if (!isObj(w)) throw new ConfigError('worker: must be a mapping');
    known(
      w,
      ['image', 'criTimeout', 'resources', 'tolerations', 'priorityClassName', 'imagePullSecrets'],
      'worker.',
    );
    if (w.image !== undefined) {
      cfg.worker.image = str(w.image, 'worker.image');
      if (/\s/.test(cfg.worker.image))
        throw new ConfigError(`worker.image: must not contain spaces, got ${JSON.stringify(w.image)}`);
    }
    if (w.criTimeout !== undefined) {
      // Passed to `inv node-remove --timeout`: checked here with the same parser, so a bad value
      // fails the configuration, not every worker.
      const t = String(w.criTimeout).trim();
      if (!(parseDuration(typeof w.criTimeout === 'string' ? t : w.criTimeout, 'worker.criTimeout') > 0))
        throw new ConfigError(
          `worker.criTimeout: must be longer than 0s, got ${JSON.stringify(w.criTimeout)}`,
        );
      cfg.worker.criTimeout = t;
    }
    if (w.resources !== undefined) {
      if (!isObj(w.resources)) throw new ConfigError('worker.resources: must be a mapping (requests/limits)');
      known(w.resources, ['requests', 'limits'], 'worker.resources.');
      for (const [part, v] of Object.entries(w.resources)) {
        if (!isObj(v))
          throw new ConfigError(`worker.resources.${part}: must be a mapping of resource quantities`);
        for (const [res, q] of Object.entries(v)) {
          if (!/^[0-9.]+([eE][0-9]+|[numkMGTPE]|[KMGTPE]i)?$/.test(String(q)))
            throw new ConfigError(`worker.resources.${part}.${res}: not a quantity: ${JSON.stringify(q)}`);
        }
      }
      cfg.worker.resources = w.resources;
    }
    if (w.tolerations !== undefined) {
      if (!Array.isArray(w.tolerations) || !w.tolerations.every(isObj))
        throw new ConfigError('worker.tolerations: must be a list of tolerations');
      cfg.worker.tolerations = w.tolerations;
    }
    if (w.priorityClassName !== undefined)
      cfg.worker.priorityClassName = str(w.priorityClassName, 'worker.priorityClassName', true);
    if (w.imagePullSecrets !== undefined) {
      if (!Array.isArray(w.imagePullSecrets))
        throw new ConfigError('worker.imagePullSecrets: must be a list of Secret names');
      cfg.worker.imagePullSecrets = w.imagePullSecrets.map((n, i) => {
        const name = str(n, `worker.imagePullSecrets[${i}]`);
        if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name))
          throw new ConfigError(`worker.imagePullSecrets[${i}]: not a Secret name: ${JSON.stringify(n)}`);
        return name;
      });
    }
  }
  const limits = parseRequesterLimits(doc.requesterLimits, { ...cfg, rolloutPause: cfg.rollout?.pause });
  if (typeof limits === 'string') throw new ConfigError(limits);
  cfg.requesterLimits = limits;
  return cfg;
}
