// The content of each job's inputs by role (../worker/inputs.ts: the image list, the exclusions, the
// protected-set chunks), computed at plan time and kept, by job UID, until their ConfigMaps
// exist: the protected set of a `*` prune is computed once per job, not at every reconcile.
// Forgotten once the job has finished.
import { isApplyPending, type InventoryItem } from '../../apply-inventory/apply-inventory.js';
import type { AdminSettings } from '../cluster/settings.js';
import { inputContents } from '../worker/inputs.js';
import { sha256Hex } from '../../contract/sha256.js';
import type { ImageJob } from '../api/types.js';
import type { ProtectionSource } from '../worker/inventory-protection.js';
import { buildProtectedSet, EMPTY_CHUNK, packProtectedSet } from '../../contract/protected-set.js';
import { inputsOf } from '../worker/pod-spec.js';
import { scannerConfigText } from '../worker/scanner-container.js';

/** Scan mode: the scanner's configuration file (undefined otherwise, or without that scanner). */
export function jobScannerConfig(job: ImageJob, admin: AdminSettings): string | undefined {
  const scan = job.spec.scan;
  const scanners = admin.config.scanners ?? {};
  if (!scan || !Object.hasOwn(scanners, scan.scanner)) return undefined;
  return scannerConfigText(scanners[scan.scanner]!, scan);
}

/** The exclusions a job's workers get: the administrator's, plus any the request adds. */
export const jobExclusions = (job: ImageJob, admin: AdminSettings): string[] => [
  ...new Set([...admin.exclusions, ...(job.spec.exclusions ?? [])]),
];

const keyOf = (job: ImageJob) => job.metadata.uid ?? job.metadata.name;

export class InputContents {
  private readonly byJob = new Map<string, Map<string, string>>();

  constructor(private readonly protection: ProtectionSource) {}

  /** The protected set, packed into ConfigMap-sized chunks (at least one, possibly empty). */
  async computeProtected(): Promise<{ refs: number; chunks: string[] }> {
    const set = buildProtectedSet(await this.protection.uses());
    const chunks = packProtectedSet(set);
    return { refs: set.size, chunks: chunks.length ? chunks : [EMPTY_CHUNK] };
  }

  /** Keeps the contents computed at planning for this job's apply. */
  remember(job: ImageJob, contents: Map<string, string>): void {
    this.byJob.set(keyOf(job), contents);
  }

  /** What is kept for the job (nothing: an empty map). */
  known(job: ImageJob): Map<string, string> {
    return this.byJob.get(keyOf(job)) ?? new Map<string, string>();
  }

  forget(job: ImageJob): void {
    this.byJob.delete(keyOf(job));
  }

  /**
   * The content of each input still to be created. After a restart between planning and
   * creating them, the exclusions and the protected set are computed again and must come out
   * as planned: the workers verify the digests recorded at planning, so an input that changed
   * in between is an error here (fail closed), not a ConfigMap every worker would refuse.
   */
  async forJob(
    job: ImageJob,
    inv: readonly InventoryItem[],
    admin: AdminSettings,
  ): Promise<ReadonlyMap<string, string>> {
    const uid = keyOf(job);
    const inputs = inputsOf(job);
    const pending = new Set(
      inv.filter((i) => i.kind === 'ConfigMap' && isApplyPending(i.phase)).map((i) => i.name),
    );
    const todo = inputs.filter((i) => pending.has(i.name));
    const cached = this.byJob.get(uid) ?? new Map<string, string>();
    if (todo.every((i) => cached.has(i.role))) return cached;
    const n = job.status?.protectedChunks ?? 0;
    let chunks: string[] = [];
    if (n > 0 && todo.some((i) => i.role.startsWith('protected-') && !cached.has(i.role))) {
      chunks = (await this.computeProtected()).chunks;
      if (chunks.length > n)
        throw new Error(
          `the protected set now needs ${chunks.length} ConfigMaps, ${n} were planned; run the erase again`,
        );
      while (chunks.length < n) chunks.push(EMPTY_CHUNK);
    }
    const fresh = inputContents(
      job.spec.images,
      jobExclusions(job, admin),
      chunks,
      jobScannerConfig(job, admin),
    );
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
    this.byJob.set(uid, cached);
    return cached;
  }
}
