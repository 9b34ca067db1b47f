// The ImageJob controller: one reconcile looks at one job's level (its status inventory, the
// live worker Pods, the clock) and takes the next steps; it never sleeps or polls, it returns
// when to look again.
//
//   plan     list the Nodes, apply the node filter, record every worker object in the
//            inventory (Creating) and every node's result (Pending or Skipped): persisted
//            BEFORE anything is created (write-ahead);
//            A `*` prune with the inventory's protection also computes, once, the set of refs
//            the cluster's workloads reference (inventory-protection.ts) and records how many
//            ConfigMaps carry it; without that set, the job waits instead of pruning (fail closed);
//   apply    wave 0: the image-list, exclusion and protected-set ConfigMaps (immutable) and
//            the PodTemplate;
//            wave 1: one Pod per selected node (nodeName, restartPolicy Never);
//   observe  finished Pods give the node results (termination messages); their items Complete;
//            a worker that cannot start fails its node after a grace;
//            past the job deadline, unfinished nodes fail with a reason naming their Pod and its
//            state ("timeout: Pod x Pending: Unschedulable: ...") and their Pods are scheduled for
//            deletion;
//   finish   once no node is pending: Completed if (succeeded+skipped)/desired >= successRatio,
//            else Failed; deleteAfter = now + delayOnSuccess/delayOnFailure;
//   cleanup  after deleteAfter: every item is scheduled for deletion (persisted), deleted wave by
//            wave in canonical order (Pods, then PodTemplate, then ConfigMaps), dropped when gone;
//            then the ImageJob itself once its ImageList has recorded the result.
import { isConflict, isNotFound, type KubeRest } from '../kube/rest.js';
import {
  requeueAfter,
  TerminalError,
  type ReconcileResult,
  type Reconciler,
} from '../controller/reconcile.js';
import { noopLogger, type Logger } from '../observability/logger.js';
import {
  decodeInventory,
  dropItem,
  encodeInventory,
  isDeletionPhase,
  itemKey,
  markCompleted,
  nextApplyWave,
  nextDeleteWave,
  isApplyPending,
  scheduleApply,
  scheduleDeletion,
  type DesiredItem,
  type InventoryItem,
} from '../reconciler/inventory.js';
import {
  applyWave,
  deleteWave,
  manifestDigest,
  isOwnedBy,
  objectPath,
  type KubeObject,
  type Owner,
} from '../reconciler/objects.js';
import { selectNodes } from './nodes.js';
import { RestReader, type EraseReader } from './reader.js';
import { AdminSettingsSource, DEFAULT_CONFIG_NAMESPACE, type AdminSettings } from './settings.js';
import { ConfigError } from './config.js';
import { policyProblem } from './policy.js';
import { trustProblem } from './trust.js';
import { ScanProtection, type ProtectionSource } from './inventory-protection.js';
import type { EraseMetrics } from './metrics.js';
import { buildProtectedSet, EMPTY_CHUNK, packProtectedSet } from './protected-set.js';
import { PRUNE_ALL } from './images.js';
import { jobConditions } from './conditions.js';
import { writeEvent } from './events.js';
import { describeWorker, startFailure, type StartFailure } from './start-failure.js';
import {
  countResults,
  decodeResult,
  encodeResults,
  jobPhase,
  pendingResult,
  resultFromPod,
  type NodeResult,
} from './results.js';
import {
  inputContents,
  MAX_RENAMES,
  planInputs,
  renamed,
  renames,
  sha256Hex,
  type JobInput,
} from './inputs.js';
import {
  CLEANUP_FINALIZER,
  GROUP,
  IMAGEJOBS_PATH,
  isFinished,
  JOB_LABEL,
  podNames,
  SCHEDULE_TIME_ANNOTATION,
  VERSION,
  type ImageJob,
} from './types.js';
import { inputConfigMap, inputsOf, podTemplate, workerPod, type WorkerSettings } from './worker.js';

export interface JobControllerOptions {
  /** Writes (and confirming reads the cache cannot answer) go here. */
  rest: KubeRest;
  /** Where reads come from: the controllers' informers (EraseCache), or the server directly (default). */
  reader?: EraseReader;
  /** Namespace of the worker Pods, ConfigMaps and PodTemplate. */
  namespace: string;
  logger?: Logger;
  now?: () => Date;
  /** Look again at a running job at least this often (Pod events usually come first). Default 30 s. */
  resyncMs?: number;
  /** Objects created per reconcile before the progress is persisted. Default 500. */
  applyChunk?: number;
  /** Namespace of the configuration and the exclusion lists (default: image-inventory-system). */
  configNamespace?: string;
  /** The administrator's settings (default: read from the configuration namespace, cached 5 s). */
  settings?: AdminSettingsSource;
  /** Where a `*` prune learns what the workloads reference (default: a fresh scan of the cluster). */
  protection?: ProtectionSource;
  metrics?: EraseMetrics;
}

/** A `*` prune keeps what the inventory references unless the request turned that off. */
export const protectsInventory = (job: ImageJob): boolean =>
  job.spec.images.includes(PRUNE_ALL) && job.spec.protectInventory !== false;

/** The exclusions a job's workers get: the administrator's, plus any the request adds. */
export const jobExclusions = (job: ImageJob, admin: AdminSettings): string[] => [
  ...new Set([...admin.exclusions, ...(job.spec.exclusions ?? [])]),
];

/** After this many failed nodes, node failures are reported only in the job's final Event. */
const MAX_FAILURE_EVENT_NODES = 50;

/** Retry delay while the protected set cannot be computed. */
const PROTECTION_RETRY_MS = 5000;

interface PodLike extends KubeObject {
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    startTime?: string;
    containerStatuses?: {
      state?: {
        terminated?: { exitCode?: number; message?: string; reason?: string };
        waiting?: { reason?: string; message?: string };
      };
    }[];
  };
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One reconcile pass: the job as read, its decoded inventory and node results, and what the
 * phase handlers (plan, apply, observe, finish, clean up) hand on to each other. */
interface Pass {
  job: ImageJob;
  name: string;
  st: NonNullable<ImageJob['status']>;
  now: Date;
  owner: Owner;
  ns: string;
  inv: InventoryItem[];
  results: NodeResult[];
  cfg: ImageJob['spec']['config'];
  admin: AdminSettings;
  desired: Map<string, { item: DesiredItem; manifest: KubeObject }>;
  podToNode: Map<string, string>;
  /** Why objects could not be created in this pass, by item key (for the deadline's reasons). */
  applyErrors: Map<string, string>;
  /** Pods created in this pass: the cache may not show them yet. */
  justCreated: Set<string>;
  /** Nodes that had failed before this pass (the rest are reported in a NodesFailed Event). */
  failedBefore: Set<string>;
  /** The job's live worker Pods, by item key. */
  live: Map<string, KubeObject>;
  requeue?: number;
  applyFailed?: string;
  /** Writes the status if it changed (with observedGeneration and conditions). */
  save(): Promise<void>;
}

const setResultIn = (results: NodeResult[], r: NodeResult) => {
  const i = results.findIndex((x) => x.node === r.node);
  if (i >= 0) results[i] = r;
};

export class ImageJobController implements Reconciler {
  private readonly log: Logger;
  private readonly now: () => Date;
  private nodeReadiness?: { at: number; ready: Map<string, string | undefined> };
  private readonly reader: EraseReader;
  private readonly direct: RestReader;

  private readonly settings: AdminSettingsSource;
  private readonly protection: ProtectionSource;
  /**
   * The content of each job's inputs by role (inputs.ts), computed at plan time, by job UID,
   * until their ConfigMaps exist: the protected set is computed once per job, not at every
   * reconcile.
   */
  private readonly inputContent = new Map<string, Map<string, string>>();

  constructor(private readonly opts: JobControllerOptions) {
    this.log = (opts.logger ?? noopLogger).child({ controller: 'imagejob' });
    this.now = opts.now ?? (() => new Date());
    this.direct = new RestReader(opts.rest);
    this.reader = opts.reader ?? this.direct;
    this.settings =
      opts.settings ??
      new AdminSettingsSource(
        this.reader,
        opts.configNamespace ?? DEFAULT_CONFIG_NAMESPACE,
        5000,
        this.direct,
        opts.namespace,
      );
    this.protection = opts.protection ?? new ScanProtection(opts.rest);
  }

  /** The protected set, packed into ConfigMap-sized chunks (at least one, possibly empty). */
  private async computeProtectedChunks(): Promise<{ refs: number; chunks: string[] }> {
    const set = buildProtectedSet(await this.protection.uses());
    const chunks = packProtectedSet(set);
    return { refs: set.size, chunks: chunks.length ? chunks : [EMPTY_CHUNK] };
  }

  /**
   * The content of each input still to be created. After a restart between planning and
   * creating them, the exclusions and the protected set are computed again and must come out
   * as planned: the workers verify the digests recorded at planning, so an input that changed
   * in between is an error here (fail closed), not a ConfigMap every worker would refuse.
   */
  private async contentsFor(job: ImageJob, inv: readonly InventoryItem[], admin: AdminSettings) {
    const uid = job.metadata.uid ?? job.metadata.name;
    const inputs = inputsOf(job);
    const pending = new Set(
      inv.filter((i) => i.kind === 'ConfigMap' && isApplyPending(i.phase)).map((i) => i.name),
    );
    const todo = inputs.filter((i) => pending.has(i.name));
    const cached = this.inputContent.get(uid) ?? new Map<string, string>();
    if (todo.every((i) => cached.has(i.role))) return cached;
    const n = job.status?.protectedChunks ?? 0;
    let chunks: string[] = [];
    if (n > 0 && todo.some((i) => i.role.startsWith('protected-') && !cached.has(i.role))) {
      chunks = (await this.computeProtectedChunks()).chunks;
      if (chunks.length > n)
        throw new Error(
          `the protected set now needs ${chunks.length} ConfigMaps, ${n} were planned; run the erase again`,
        );
      while (chunks.length < n) chunks.push(EMPTY_CHUNK);
    }
    const fresh = inputContents(job.spec.images, jobExclusions(job, admin), chunks);
    for (const input of todo) {
      if (cached.has(input.role)) continue;
      const text = fresh.get(input.role);
      if (text === undefined) continue;
      if (input.sha256 && sha256Hex(text) !== input.sha256)
        throw new Error(
          `the ${input.role} input changed between planning the job and creating its ConfigMap; run the erase again`,
        );
      cached.set(input.role, text);
    }
    this.inputContent.set(uid, cached);
    return cached;
  }

  owner(job: ImageJob): Owner {
    return { uid: job.metadata.uid ?? '', description: `${GROUP}/ImageJob/${job.metadata.name}` };
  }

  /**
   * The worker objects of a job, by item key, with their manifests. What they run as comes from
   * the administrator's settings; the job contributes its images, and exclusions only add to
   * the administrator's.
   */
  private desired(
    job: ImageJob,
    nodes: readonly string[],
    ns: string,
    admin: AdminSettings,
    contents: ReadonlyMap<string, string>,
  ): Map<string, { item: DesiredItem; manifest: KubeObject }> {
    const settings: WorkerSettings = {
      worker: admin.config.worker,
      runtimeSocket: admin.config.runtimeSocket,
    };
    const inputs = inputsOf(job);
    const name = job.metadata.name;
    const out = new Map<string, { item: DesiredItem; manifest: KubeObject }>();
    const add = (manifest: KubeObject, applyOrder: number, deleteOrder: number) => {
      const [group, version] = (manifest.apiVersion ?? 'v1').includes('/')
        ? (manifest.apiVersion!.split('/') as [string, string])
        : ['', manifest.apiVersion ?? 'v1'];
      const item: DesiredItem = {
        group,
        version,
        kind: manifest.kind!,
        namespace: ns,
        name: manifest.metadata!.name!,
        applyOrder,
        deleteOrder,
        deletePolicy: 'Delete',
        digest: manifestDigest(manifest),
      };
      out.set(itemKey(item), { item, manifest });
    };
    // An input created already needs no content here (its manifest is only used to create it).
    for (const input of inputs) add(inputConfigMap(job, ns, input, contents.get(input.role) ?? ''), 0, 1);
    add(podTemplate(job, settings, ns, inputs), 0, 1);
    for (const [node, pod] of podNames(name, nodes))
      add(workerPod(job, settings, ns, pod, node, inputs), 1, 0);
    return out;
  }

  /**
   * Reconciles one ImageJob (see src/core/controller/reconcile.ts for the contract). A job that
   * is not to be trusted is marked Failed and thrown as a TerminalError; objects the API
   * refuses are thrown as plain errors (retried with backoff).
   */
  async reconcile(name: string, signal?: AbortSignal): Promise<ReconcileResult> {
    return requeueAfter(await this.reconcileJob(name, signal));
  }

  /**
   * One pass: read the job, then the phase handlers in order (each one writes the status at most
   * once: plan before anything exists, finish before counting, clean up before its first DELETE;
   * the rest is written once at the end). Returns when to look again (ms), or undefined for "on
   * events only".
   */
  private async reconcileJob(name: string, signal?: AbortSignal): Promise<number | undefined> {
    const read = await this.reader.job(name);
    if (!read) return undefined;
    // A copy: the reconcile edits the status in place, and a cached object must never change.
    const job = structuredClone(read);
    if (job.metadata.deletionTimestamp) return this.finalize(job);
    const st = (job.status ??= {});
    if (!st.planned && st.phase === 'Failed') return undefined; // refused before: never touched again
    const p = this.begin(job, signal);
    // The administrator's settings; fresh from the server while planning. Without a valid
    // configuration a job is never planned: it fails closed, with the reason.
    try {
      p.admin = await this.settings.get(!st.planned);
    } catch (e) {
      if (st.planned || !(e instanceof ConfigError)) throw e;
      return this.refuse(p, (e as Error).message);
    }
    const refused = st.planned ? undefined : policyProblem(job.spec, p.admin.config);
    if (refused) return this.refuse(p, refused);

    await this.checkTrust(p);
    if (!st.planned) {
      const waitMs = await this.plan(p);
      if (waitMs !== 'planned') return waitMs;
    }
    await this.prepare(p);
    await this.apply(p);
    await this.observe(p);
    await this.finish(p);
    if ((await this.cleanUp(p)) === 'deleted') return undefined;

    this.write(st, p.inv, p.results);
    await p.save();
    await this.reportFailures(job, p.results, p.failedBefore);
    if (p.applyFailed && st.phase === 'Running') {
      if (st.message !== p.applyFailed) {
        st.message = p.applyFailed;
        await p.save();
      }
      throw new Error(p.applyFailed);
    }
    const requeue = p.requeue;
    return requeue === undefined || requeue === Infinity ? undefined : Math.max(0, requeue);
  }

  /** The state of one pass, shared by the phase handlers. */
  private begin(job: ImageJob, signal: AbortSignal | undefined): Pass {
    const { rest } = this.opts;
    const name = job.metadata.name;
    const st = job.status!;
    const now = this.now();
    let savedText = JSON.stringify(st);
    const p: Pass = {
      job,
      name,
      st,
      now,
      owner: this.owner(job),
      // Worker objects live in the controllers' namespace, whatever the job says.
      ns: this.opts.namespace,
      inv: decodeInventory(st.inventory),
      results: (st.nodes ?? []).map(decodeResult),
      // Request-level values (deadline, ratio, delays) as recorded at creation; what runs, where
      // it may run and what it must keep come from the administrator's settings.
      cfg: job.spec.config,
      admin: undefined as unknown as AdminSettings,
      desired: new Map(),
      podToNode: new Map(),
      applyErrors: new Map(),
      justCreated: new Set(),
      failedBefore: new Set(),
      live: new Map(),
      save: async () => {
        st.observedGeneration = job.metadata.generation ?? 1;
        const step = !st.planned ? 'Planned' : nextApplyWave(p.inv) ? 'Applying' : 'Observing';
        st.conditions = jobConditions(st, st.observedGeneration, step, now);
        if (JSON.stringify(st) === savedText) return;
        const replaced = job.metadata.resourceVersion;
        const updated = await rest.request<ImageJob>('PUT', `${IMAGEJOBS_PATH}/${name}/status`, {
          body: job,
          signal,
        });
        this.reader.wrote('ImageJob', updated, replaced);
        job.metadata.resourceVersion = updated.metadata.resourceVersion;
        savedText = JSON.stringify(st);
      },
    };
    return p;
  }

  /** A job that may not run: Failed before anything is created, for good. */
  private async refuse(p: Pass, reason: string): Promise<undefined> {
    const { st, name } = p;
    st.phase = 'Failed';
    st.message = reason;
    st.completionTime = iso(p.now);
    await p.save();
    this.log.warn('ImageJob refused, nothing created', { job: name, reason });
    await this.event(p.job, 'refused', 'Warning', 'Refused', reason);
    throw new TerminalError(`ImageJob ${name} refused: ${reason}`);
  }

  /** Act only on jobs of a live ImageList: refuse a job for good, or stop one whose list went away. */
  private async checkTrust(p: Pass): Promise<void> {
    const { job, name, st } = p;
    if (!(!st.planned || (st.phase === 'Running' && nextApplyWave(p.inv)))) return;
    // A refusal is for good: a verdict read from a cache is confirmed at the server first.
    let problem = await trustProblem(this.reader, job);
    if (problem && this.reader !== this.direct) problem = await trustProblem(this.direct, job);
    if (!problem) return;
    if (!st.planned) {
      st.phase = 'Failed';
      st.message = `refused: ${problem}`;
      st.completionTime = iso(p.now);
      await p.save();
      this.log.warn('ImageJob refused, nothing created', { job: name, reason: problem });
      throw new TerminalError(`ImageJob ${name} refused: ${problem}`);
    }
    // Its list went away while it ran: create nothing more, stop what has not finished.
    for (const r of p.results)
      if (r.outcome === 'Pending')
        setResultIn(p.results, { ...r, outcome: 'Failed', reason: `refused: ${problem}` });
    p.inv = scheduleDeletion(
      p.inv,
      p.inv.filter((i) => !isDeletionPhase(i.phase) && i.phase !== 'Completed').map(itemKey),
    );
    st.message = `refused: ${problem}`;
  }

  /**
   * Plan (write-ahead): select the nodes, record every worker object (Creating) and every node's
   * result, and write it before anything is created. Returns 'planned', or when to look again
   * while the protected set of a `*` prune cannot be computed (fail closed).
   */
  private async plan(p: Pass): Promise<'planned' | number | undefined> {
    const { job, name, st, now, cfg, admin } = p;
    let planChunks: string[] = [];
    if (protectsInventory(job)) {
      try {
        const c = await this.computeProtectedChunks();
        planChunks = c.chunks;
        st.protectedRefs = c.refs;
        st.protectedChunks = c.chunks.length;
      } catch (e) {
        // Fail closed: without the set, a * prune could remove what a workload needs next.
        const msg = `waiting for the inventory (${this.protection.describe}) to protect referenced images: ${(e as Error).message}`;
        const created = Date.parse(job.metadata.creationTimestamp ?? iso(now));
        if (now.getTime() - created >= cfg.jobTimeoutSeconds * 1000) {
          st.phase = 'Failed';
          st.message = `${msg}; gave up at the job deadline, nothing was removed`;
          st.completionTime = iso(now);
          st.deleteAfter = iso(new Date(now.getTime() + cfg.delayOnFailureSeconds * 1000));
        } else {
          st.message = msg;
        }
        this.log.warn('protected set unavailable, job not started', {
          job: name,
          error: (e as Error).message,
        });
        await p.save();
        return st.phase === 'Failed' ? undefined : PROTECTION_RETRY_MS;
      }
    }
    const sel = selectNodes(
      await this.reader.nodes(),
      {
        ...cfg,
        nodeFilter: admin.config.nodeFilter,
        skipNotReady: admin.config.skipNotReady,
        skipCordoned: admin.config.skipCordoned,
      },
      job.spec.nodeSelector,
    );
    p.results = [
      ...sel.selected.map(pendingResult),
      ...sel.skipped.map((s) => ({
        ...pendingResult(s.node),
        outcome: 'Skipped' as const,
        reason: s.reason,
      })),
    ].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
    // The inputs are recorded with their digests before anything exists (write-ahead).
    const contents = inputContents(job.spec.images, jobExclusions(job, admin), planChunks);
    st.inputs = planInputs(name, contents);
    this.inputContent.set(job.metadata.uid ?? name, contents);
    p.inv = scheduleApply(
      p.inv,
      [...this.desired(job, sel.selected, p.ns, admin, contents).values()].map((d) => d.item),
    );
    st.phase ??= 'Running';
    st.startTime ??= iso(now);
    st.planned = true;
    st.message = `${sel.selected.length} node(s) selected, ${sel.skipped.length} skipped${sel.ignored ? `, ${sel.ignored} outside the node selector` : ''}${st.protectedChunks ? `; ${st.protectedRefs ?? 0} referenced image(s) protected (from ${this.protection.describe})` : ''}`;
    this.write(st, p.inv, p.results);
    await p.save(); // the inventory is persisted before any object exists
    this.log.info('job planned', { job: name, nodes: sel.selected.length, skipped: sel.skipped.length });
    await this.event(job, 'planned', 'Normal', 'Planned', st.message);
    return 'planned';
  }

  /** The desired worker objects of a planned job (and what the later handlers look up). */
  private async prepare(p: Pass): Promise<void> {
    const { job, name } = p;
    const selected = p.results.filter((r) => r.outcome !== 'Skipped').map((r) => r.node);
    let contents: ReadonlyMap<string, string>;
    try {
      contents = await this.contentsFor(job, p.inv, p.admin);
    } catch (e) {
      // Fail closed: the inputs cannot be handed to the workers as planned.
      const msg = (e as Error).message;
      for (const r of p.results)
        if (r.outcome === 'Pending')
          setResultIn(p.results, {
            ...r,
            outcome: 'Failed',
            reason: msg.startsWith('the protected set') ? `protected set: ${msg}` : `inputs: ${msg}`,
          });
      p.inv = scheduleDeletion(
        p.inv,
        p.inv.filter((i) => !isDeletionPhase(i.phase) && i.phase !== 'Completed').map(itemKey),
      );
      contents = new Map();
    }
    p.desired = this.desired(job, selected, p.ns, p.admin, contents);
    p.podToNode = new Map([...podNames(name, selected)].map(([n, pod]) => [pod, n]));
    p.failedBefore = new Set(p.results.filter((r) => r.outcome === 'Failed').map((r) => r.node));
  }

  /** Apply: the next wave (ConfigMaps and PodTemplate, then the Pods), a chunk at a time. */
  private async apply(p: Pass): Promise<void> {
    const { name, st } = p;
    if (!(st.phase === 'Running' && nextApplyWave(p.inv))) return;
    const pendingBefore = new Set(p.inv.filter((i) => i.kind === 'Pod' && i.phase !== 'Ready').map(itemKey));
    const pendingBeforeAll = p.inv.filter((i) => i.phase === 'Creating' || i.phase === 'Updating').length;
    const r = await applyWave(this.opts.rest, p.inv, {
      owner: p.owner,
      manifest: (item) => p.desired.get(itemKey(item))!.manifest,
      limit: this.opts.applyChunk ?? 500,
      now: this.now,
    });
    p.inv = r.inventory;
    // Pods created by this pass: the cache may not show them yet, and they cannot have ended.
    for (const i of p.inv)
      if (i.phase === 'Ready' && pendingBefore.has(itemKey(i))) p.justCreated.add(itemKey(i));
    for (const c of r.collisions) {
      const line = `${c.ref.kind} ${c.ref.namespace}/${c.ref.name} is held by ${c.holder}`;
      st.collisions = [...new Set([...(st.collisions ?? []), line])];
      this.log.warn('name collision, foreign object left untouched', { job: name, object: line });
      const node = p.podToNode.get(c.ref.name);
      const input =
        c.ref.kind === 'ConfigMap' ? inputsOf(p.job).find((i) => i.name === c.ref.name) : undefined;
      if (input && renames(input) < MAX_RENAMES && st.phase === 'Running') {
        // Never use an input we did not create: move it to a fresh, unguessable name.
        await this.moveInput(p, input);
        continue;
      }
      if (c.ref.kind === 'Pod' && node) {
        setResultIn(p.results, {
          ...pendingResult(node),
          outcome: 'Failed',
          reason: `name collision: ${line}`,
        });
      } else {
        // Without its ConfigMaps or template the job cannot run: fail every pending node.
        for (const res of p.results)
          if (res.outcome === 'Pending')
            setResultIn(p.results, { ...res, outcome: 'Failed', reason: 'name collision' });
        p.inv = scheduleDeletion(
          p.inv,
          p.inv
            .filter((i) => !isDeletionPhase(i.phase) && i.phase !== 'Completed' && i.kind === 'Pod')
            .map(itemKey),
        );
        st.message = `name collision: ${line}`;
      }
    }
    for (const e of r.errors) {
      this.log.warn('apply failed, will retry', { job: name, object: e.key, error: e.error.message });
      p.applyErrors.set(e.key, e.error.message);
    }
    // No object of the wave got anywhere and no error was reported: applyWave takes a 404 on a
    // create for "changed under us, next pass", but a missing namespace answers the same forever.
    const stillPending = p.inv.filter((i) => i.phase === 'Creating' || i.phase === 'Updating').length;
    if (!r.errors.length && !r.collisions.length && stillPending === pendingBeforeAll) {
      const missing = await this.namespaceMissing(p.ns);
      if (missing) {
        for (const i of nextApplyWave(p.inv)?.items ?? []) p.applyErrors.set(itemKey(i), missing);
        p.applyFailed = missing;
        this.log.warn('apply failed, will retry', { job: name, error: missing });
      }
    }
    // Objects the API refused (admission, quota): retried with the work queue's exponential
    // backoff (the pass throws at its end, after saving), not every 2 s until the deadline.
    if (r.errors.length)
      p.applyFailed = `${r.errors.length} object(s) could not be created, first: ${r.errors[0]!.key}: ${r.errors[0]!.error.message}`;
    if (nextApplyWave(p.inv)) p.requeue = 0; // next wave or next chunk right away
  }

  /**
   * Observe: finished worker Pods give their node's result; a worker that cannot start, or whose
   * node is gone, fails its node early; past the job deadline, unfinished nodes fail with a
   * reason naming their Pod and its state, and their Pods are scheduled for deletion.
   */
  private async observe(p: Pass): Promise<void> {
    const { name, st, now, cfg } = p;
    const pendingNode = (node: string) => p.results.find((r) => r.node === node)?.outcome === 'Pending';
    p.live = await this.livePods(name, p.ns, p.owner);
    const completed: string[] = [];
    const vanished: string[] = [];
    for (const item of p.inv) {
      if (item.kind !== 'Pod' || item.phase !== 'Ready') continue;
      const node = p.podToNode.get(item.name);
      const pod = p.live.get(itemKey(item)) as PodLike | undefined;
      if (!pod) {
        // Missing from a cache may mean "not arrived yet": only a GET that finds nothing says gone.
        if (p.justCreated.has(itemKey(item)) || !(await this.reader.confirmGone(objectPath(item)))) continue;
        vanished.push(itemKey(item));
        if (node && pendingNode(node))
          setResultIn(p.results, {
            ...pendingResult(node),
            outcome: 'Failed',
            reason: 'worker Pod deleted before it finished',
          });
        continue;
      }
      const phase = pod.status?.phase;
      if (phase !== 'Succeeded' && phase !== 'Failed') {
        // A worker that cannot start (its image cannot be pulled, its container cannot be
        // created) never will by itself: fail the node after a short grace, not at the deadline.
        const grace = cfg.workerStartGraceSeconds ?? 15;
        const stuck =
          startFailure(pod.status, now, grace) ??
          (node ? await this.lostNode(node, pod, now, grace) : undefined);
        if (stuck && node && pendingNode(node)) {
          if (stuck.failNow) {
            setResultIn(p.results, { ...pendingResult(node), outcome: 'Failed', reason: stuck.reason });
            p.inv = scheduleDeletion(p.inv, [itemKey(item)]);
            this.log.warn('worker cannot start', { job: name, node, reason: stuck.reason });
          } else {
            p.requeue = Math.min(p.requeue ?? Infinity, stuck.retryInMs);
          }
        }
        continue;
      }
      completed.push(itemKey(item));
      const term = pod.status?.containerStatuses?.[0]?.state?.terminated;
      if (node && pendingNode(node))
        setResultIn(
          p.results,
          resultFromPod(node, {
            phase,
            exitCode: term?.exitCode,
            message: term?.message,
            reason: term?.reason ?? pod.status?.reason,
          }),
        );
    }
    p.inv = dropItem(markCompleted(p.inv, completed), vanished);

    // The deadline.
    if (st.phase !== 'Running') return;
    // startTime is stored to the whole second, rounded down; adding a second makes the deadline
    // fire at or after the configured timeout, never before it.
    const deadline = Date.parse(st.startTime ?? iso(now)) + 1000 + cfg.jobTimeoutSeconds * 1000;
    if (now.getTime() < deadline) {
      p.requeue = Math.min(p.requeue ?? Infinity, deadline - now.getTime(), this.opts.resyncMs ?? 30_000);
      return;
    }
    const stale: string[] = [];
    for (const r of p.results) {
      if (r.outcome !== 'Pending') continue;
      const pod = podNames(name, [r.node]).get(r.node)!;
      const it = p.inv.find((i) => i.kind === 'Pod' && i.name === pod);
      const livePod = it ? (p.live.get(itemKey(it)) as PodLike | undefined) : undefined;
      const createError = it ? p.applyErrors.get(itemKey(it)) : undefined;
      // Name the Pod and its state, not a bare "timeout": that is what the user acts on.
      const why = describeWorker(
        pod,
        livePod,
        createError ?? (it?.phase === 'Creating' ? st.message : undefined),
      );
      setResultIn(p.results, { ...r, outcome: 'Failed', reason: `timeout: ${why}` });
      if (it && !isDeletionPhase(it.phase) && it.phase !== 'Completed') stale.push(itemKey(it));
    }
    p.inv = scheduleDeletion(p.inv, stale);
    if (stale.length)
      st.message = `job deadline of ${cfg.jobTimeoutSeconds}s passed: ${stale.length} worker(s) stopped`;
  }

  /**
   * Re-plans one input under a fresh name: recorded in the status with the same digest, a new
   * item to create, and the worker objects not created yet follow it (their manifests read the
   * recorded names; the PodTemplate is updated in place).
   */
  private async moveInput(p: Pass, input: JobInput): Promise<void> {
    const moved = renamed(p.name, input);
    const inputs = inputsOf(p.job).map((i) => (i.role === input.role ? moved : i));
    p.st.inputs = inputs;
    const contents = this.inputContent.get(p.job.metadata.uid ?? p.name) ?? new Map<string, string>();
    const selected = p.results.filter((r) => r.outcome !== 'Skipped').map((r) => r.node);
    const fresh = this.desired(p.job, selected, p.ns, p.admin, contents);
    const keep = p.inv.filter((i) => !isDeletionPhase(i.phase));
    const want: DesiredItem[] = keep.map((i) => {
      const d = fresh.get(itemKey(i));
      // Only objects not created yet, and the PodTemplate, take the new manifest's digest.
      return d && (isApplyPending(i.phase) || i.kind === 'PodTemplate') ? { ...i, digest: d.item.digest } : i;
    });
    const added = [...fresh.values()].find((d) => d.item.kind === 'ConfigMap' && d.item.name === moved.name);
    if (added) want.push({ ...added.item });
    p.inv = scheduleApply(p.inv, want);
    p.desired = fresh;
    const line = `ConfigMap ${p.ns}/${input.name} was not created by this controller; the ${input.role} input moves to ${moved.name}`;
    p.st.message = line;
    this.log.warn('input name taken, moved to a fresh name', {
      job: p.name,
      input: input.role,
      to: moved.name,
    });
    await this.event(p.job, `moved-${input.role}-${renames(moved)}`, 'Warning', 'InputNameTaken', line);
  }

  /** The API server's answer when the workers' namespace does not exist, else undefined. */
  private async namespaceMissing(ns: string): Promise<string | undefined> {
    try {
      await this.opts.rest.get(`/api/v1/namespaces/${ns}`);
      return undefined;
    } catch (e) {
      if (isNotFound(e)) return `the workers' namespace does not exist: namespaces "${ns}" not found`;
      throw e;
    }
  }

  /** Finish: once no node is pending, Completed or Failed by the success ratio; written, then counted. */
  private async finish(p: Pass): Promise<void> {
    const { job, name, st, now, cfg } = p;
    const counts = countResults(p.results);
    if (!(st.phase === 'Running' && counts.pending === 0)) return;
    st.phase = jobPhase(counts, cfg.successRatio);
    st.completionTime = iso(now);
    const delay = st.phase === 'Completed' ? cfg.delayOnSuccessSeconds : cfg.delayOnFailureSeconds;
    st.deleteAfter = iso(new Date(now.getTime() + delay * 1000));
    this.log.info('job finished', { job: name, phase: st.phase, ...counts });
    // Saved before counting: a conflict here means the next pass finishes it (and counts it).
    this.write(st, p.inv, p.results);
    await p.save();
    const ran = (Date.parse(st.completionTime ?? '') - Date.parse(st.startTime ?? '')) / 1000;
    this.opts.metrics?.jobFinished(
      st.phase,
      counts,
      Boolean(job.spec.dryRun),
      Number.isFinite(ran) ? ran : 0,
    );
    await this.event(
      job,
      'finished',
      st.phase === 'Completed' ? 'Normal' : 'Warning',
      st.phase,
      `${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.skipped} skipped of ${counts.desired} node(s)${st.message ? `; ${st.message}` : ''}`,
    );
  }

  /**
   * Clean up after deleteAfter: every item scheduled for deletion (written before the first
   * DELETE), deleted wave by wave in canonical order, dropped when gone; then the job itself once
   * its ImageList has recorded the result ('deleted').
   */
  private async cleanUp(p: Pass): Promise<'deleted' | undefined> {
    const { job, name, st, now } = p;
    if (!isFinished(st.phase)) return undefined;
    this.inputContent.delete(job.metadata.uid ?? name);
    const deleteAt = Date.parse(st.deleteAfter ?? iso(now));
    if (now.getTime() >= deleteAt && p.inv.some((i) => !isDeletionPhase(i.phase))) {
      p.inv = scheduleDeletion(p.inv);
      this.write(st, p.inv, p.results);
      await p.save(); // deletion is recorded before the first DELETE
    }
    if (nextDeleteWave(p.inv)) {
      const allLive = await this.liveObjects(name, p.ns, p.live, p.inv);
      const r = await deleteWave(this.opts.rest, p.inv, { owner: p.owner, live: allLive });
      p.inv = r.inventory;
      for (const f of r.foreign)
        this.log.warn('object not ours, left untouched', { job: name, object: itemKey(f.ref) });
      p.requeue = Math.min(p.requeue ?? Infinity, nextDeleteWave(p.inv) ? 500 : Infinity);
    }
    if (p.inv.length === 0 && now.getTime() >= deleteAt) {
      this.write(st, p.inv, p.results);
      await p.save();
      if (await this.listRecorded(job)) {
        await this.opts.rest
          .request('DELETE', `${IMAGEJOBS_PATH}/${name}`, {
            body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: job.metadata.uid } },
          })
          .catch((e) => (isNotFound(e) || isConflict(e) ? undefined : Promise.reject(e)));
        this.log.info('job deleted', { job: name });
        return 'deleted';
      }
      p.requeue = Math.min(p.requeue ?? Infinity, 5000);
    } else if (now.getTime() < deleteAt) {
      p.requeue = Math.min(p.requeue ?? Infinity, deleteAt - now.getTime());
    }
    return undefined;
  }

  /**
   * A worker older than the grace whose node is not Ready (its kubelet died, the node lifecycle
   * controller marked it Unknown) will not finish: its node fails with reason node-not-ready.
   * Node readiness comes from one LIST shared by every job, at most every 5 s, and only while
   * some worker is overdue, so healthy jobs cost no extra request.
   */
  private async lostNode(
    node: string,
    pod: PodLike,
    now: Date,
    graceSeconds: number,
  ): Promise<StartFailure | undefined> {
    const created = Date.parse(pod.metadata?.creationTimestamp ?? '');
    if (Number.isNaN(created) || now.getTime() - created < graceSeconds * 1000) return undefined;
    if (!this.nodeReadiness || Date.now() - this.nodeReadiness.at > 5000) {
      const ready = new Map<string, string | undefined>();
      for (const n of await this.reader.nodes()) {
        const c = n.status?.conditions?.find((x) => x.type === 'Ready') as
          { status?: string; reason?: string; message?: string } | undefined;
        ready.set(
          n.metadata?.name ?? '',
          c?.status === 'True'
            ? undefined
            : `${c?.reason ?? 'NotReady'}: ${c?.message ?? 'no Ready condition'}`,
        );
      }
      this.nodeReadiness = { at: Date.now(), ready };
    }
    const notReady = this.nodeReadiness.ready.has(node)
      ? this.nodeReadiness.ready.get(node)
      : 'NodeGone: the Node object no longer exists';
    if (notReady === undefined) return { failNow: false, retryInMs: 5000 };
    return { failNow: true, reason: `node-not-ready: ${notReady}`.slice(0, 200) };
  }

  /**
   * The cleanup finalizer: a job being deleted (by someone, by the garbage collector after its
   * ImageList, or by itself after deleteAfter) first deletes every object of its inventory, in
   * the inventory's delete order, and lets go of the job only when all of them are gone.
   */
  private async finalize(job: ImageJob): Promise<number | undefined> {
    const { rest } = this.opts;
    const name = job.metadata.name;
    if (!job.metadata.finalizers?.includes(CLEANUP_FINALIZER)) return undefined;
    const st = (job.status ??= {});
    let inv = decodeInventory(st.inventory);
    const before = JSON.stringify(st.inventory ?? []);
    if (inv.some((i) => !isDeletionPhase(i.phase))) inv = scheduleDeletion(inv);
    if (nextDeleteWave(inv)) {
      const ns = this.opts.namespace;
      const owner = this.owner(job);
      const live = await this.livePods(name, ns, owner);
      // Write-ahead: the deletion is recorded before the first DELETE.
      st.inventory = encodeInventory(inv);
      if (JSON.stringify(st.inventory) !== before) {
        const replaced = job.metadata.resourceVersion;
        const updated = await rest.request<ImageJob>('PUT', `${IMAGEJOBS_PATH}/${name}/status`, {
          body: job,
        });
        this.reader.wrote('ImageJob', updated, replaced);
        job.metadata.resourceVersion = updated.metadata.resourceVersion;
      }
      const r = await deleteWave(rest, inv, { owner, live: await this.liveObjects(name, ns, live, inv) });
      inv = r.inventory;
      st.inventory = encodeInventory(inv);
      const replaced = job.metadata.resourceVersion;
      const updated = await rest.request<ImageJob>('PUT', `${IMAGEJOBS_PATH}/${name}/status`, { body: job });
      this.reader.wrote('ImageJob', updated, replaced);
      job.metadata.resourceVersion = updated.metadata.resourceVersion;
    }
    if (inv.length > 0) return 500; // Pods take a moment to go (the kubelet stops them first)
    const finalizers = (job.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    await rest.request('PATCH', `${IMAGEJOBS_PATH}/${name}`, {
      contentType: 'application/json-patch+json',
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: job.metadata.resourceVersion },
        { op: 'replace', path: '/metadata/finalizers', value: finalizers },
      ],
    });
    this.log.info('job deleted, its objects cleaned up', { job: name });
    return undefined;
  }

  /** One Event on the job, named after what it reports (events.ts): written once however often seen. */
  private async event(
    job: ImageJob,
    key: string,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string | undefined,
  ): Promise<void> {
    const err = await writeEvent(this.opts.rest, {
      name: `${job.metadata.name}.${(job.metadata.uid ?? '').slice(0, 8)}.${key}`,
      involved: { kind: 'ImageJob', name: job.metadata.name, uid: job.metadata.uid },
      type,
      reason,
      message: message ?? '',
      component: 'inv-erase-imagejob-controller',
    });
    if (err) this.log.warn('could not write an Event', { job: job.metadata.name, reason, error: err });
  }

  /**
   * Nodes that failed in this pass, as one Warning Event (NodesFailed) naming the first few and
   * their reasons. Bounded: the name carries the number of failures so far, and once
   * MAX_FAILURE_EVENT_NODES nodes have failed, later failures are left to the job's final Event
   * and its status, so 5,000 failing nodes never mean 5,000 Events.
   */
  private async reportFailures(job: ImageJob, results: NodeResult[], before: Set<string>): Promise<void> {
    if (before.size >= MAX_FAILURE_EVENT_NODES) return;
    const fresh = results.filter((r) => r.outcome === 'Failed' && !before.has(r.node));
    if (!fresh.length) return;
    const shown = fresh.slice(0, 5).map((r) => `${r.node} (${r.reason})`);
    const more = fresh.length > shown.length ? `; and ${fresh.length - shown.length} more` : '';
    await this.event(
      job,
      `failed-${before.size + fresh.length}`,
      'Warning',
      'NodesFailed',
      `${fresh.length} node(s) failed: ${shown.join('; ')}${more}`,
    );
  }

  private write(st: NonNullable<ImageJob['status']>, inv: InventoryItem[], results: NodeResult[]): void {
    const c = countResults(results);
    st.desired = c.desired;
    st.succeeded = c.succeeded;
    st.failed = c.failed;
    st.skipped = c.skipped;
    st.removed = c.removed;
    st.protected = c.protected;
    st.bytesFreed = c.bytes;
    st.nodes = encodeResults(results);
    st.inventory = encodeInventory(inv);
  }

  /** The job's worker Pods that carry our owner label, by item key. */
  private async livePods(name: string, ns: string, owner: Owner): Promise<Map<string, KubeObject>> {
    const live = new Map<string, KubeObject>();
    for (const p of await this.reader.workers('Pod', ns, name))
      if (isOwnedBy(p, owner)) live.set(`/Pod/${p.metadata?.namespace}/${p.metadata?.name}`, p);
    return live;
  }

  /**
   * Live objects of the job (Pods already read; ConfigMaps and PodTemplates by label), for the
   * next delete wave of `inv`. An object holding one of our names without our labels is not
   * listed: it counts as "gone" and is dropped, so it is never deleted (a DELETE also needs our
   * owner label). A wave item the cache does not show is read from the server: "not in the
   * cache yet" must not drop an object we created a moment ago.
   */
  private async liveObjects(
    name: string,
    ns: string,
    pods: Map<string, KubeObject>,
    inv: InventoryItem[],
  ): Promise<Map<string, KubeObject>> {
    const out = new Map(pods);
    for (const kind of ['ConfigMap', 'PodTemplate'] as const)
      for (const o of await this.reader.workers(kind, ns, name))
        out.set(`/${kind}/${ns}/${o.metadata?.name}`, o);
    if (this.reader === this.direct) return out;
    for (const item of nextDeleteWave(inv)?.items ?? []) {
      if (out.has(itemKey(item)) || item.deletePolicy === 'Orphan') continue;
      const o = await this.opts.rest
        .get<KubeObject>(objectPath(item))
        .catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
      if (o?.metadata?.labels?.[JOB_LABEL] === name) out.set(itemKey(item), o);
    }
    return out;
  }

  /**
   * True when the ImageList has copied this job's result (or is gone, or moved on to a newer
   * generation). Only then may the job delete itself: the list's lastJobGeneration is what
   * keeps the list controller from starting this generation's job again once it is gone, so
   * a list that has not recorded this job yet (e.g. killed between creating the job and
   * writing its status) must record it first.
   */
  private async listRecorded(job: ImageJob): Promise<boolean> {
    const list = await this.reader.list(job.spec.imageList.name);
    if (!list) return true;
    if (list.metadata.uid !== job.spec.imageList.uid) return true;
    const s = list.status;
    if ((s?.lastJobGeneration ?? 0) > job.spec.imageList.generation) return true;
    // A scheduled run is recorded once the list has moved on to a later tick.
    const tick = job.metadata.annotations?.[SCHEDULE_TIME_ANNOTATION];
    if (tick && s?.lastScheduleTime && Date.parse(s.lastScheduleTime) > Date.parse(tick)) return true;
    return s?.lastJob === job.metadata.name && isFinished(s?.phase);
  }
}

export { GROUP as ERASE_GROUP, VERSION as ERASE_VERSION };
