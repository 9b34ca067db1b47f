// The protected set of a `*` prune, packed into ConfigMap-sized chunks, computed once per job:
// at plan time, and kept (by job UID) until the job's ConfigMaps exist, so a reconcile does not
// scan the cluster again. Forgotten once the job has finished.
import type { ProtectionSource } from '../worker/inventory-protection.js';
import { buildProtectedSet, EMPTY_CHUNK, packProtectedSet } from '../worker/protected-set.js';
import type { ImageJob } from '../api/types.js';

export class ProtectedChunks {
  private readonly byJob = new Map<string, string[]>();

  constructor(private readonly protection: ProtectionSource) {}

  /** The protected set, packed into ConfigMap-sized chunks (at least one, possibly empty). */
  async compute(): Promise<{ refs: number; chunks: string[] }> {
    const set = buildProtectedSet(await this.protection.uses());
    const chunks = packProtectedSet(set);
    return { refs: set.size, chunks: chunks.length ? chunks : [EMPTY_CHUNK] };
  }

  /** Keeps the chunks computed at planning for this job's apply. */
  remember(job: ImageJob, chunks: string[]): void {
    this.byJob.set(job.metadata.uid ?? job.metadata.name, chunks);
  }

  forget(job: ImageJob): void {
    this.byJob.delete(job.metadata.uid ?? job.metadata.name);
  }

  /**
   * The chunk contents for this reconcile. Only ConfigMaps still to be created need their content;
   * after a restart between planning and creating them, the set is computed again and must fit
   * the number of ConfigMaps recorded at planning (the Pods mount exactly those).
   */
  async forJob(
    job: ImageJob,
    inv: readonly { kind: string; name: string; phase: string }[],
  ): Promise<string[]> {
    const n = job.status?.protectedChunks ?? 0;
    if (n === 0) return [];
    const uid = job.metadata.uid ?? job.metadata.name;
    const cached = this.byJob.get(uid);
    if (cached) return cached;
    const prefix = `${job.metadata.name}-protected-`;
    const pending = inv.some(
      (i) =>
        i.kind === 'ConfigMap' &&
        i.name.startsWith(prefix) &&
        (i.phase === 'Creating' || i.phase === 'Updating'),
    );
    if (!pending) return Array.from({ length: n }, () => ''); // created already: content unused
    const { chunks } = await this.compute();
    if (chunks.length > n)
      throw new Error(
        `the protected set now needs ${chunks.length} ConfigMaps, ${n} were planned; run the erase again`,
      );
    while (chunks.length < n) chunks.push(EMPTY_CHUNK);
    this.byJob.set(uid, chunks);
    return chunks;
  }
}
