// How an informer (./informer.ts) knows whether its cache sees the cluster now, and how often a
// kind that cannot be listed whole may be listed one namespace at a time.
//
// - current(): synced, not failing round after round, and its last successful LIST, watch start,
//   event or bookmark is recent (the API server bookmarks every watch about once a minute). A `*` prune
//   takes its protected set from the cache only while every informer is current; a cache that
//   was synced once and then froze (a kind whose watch cannot start) is not the cluster now.
// - The per-namespace pass (namespace-list.ts) costs one LIST per namespace: 10,001 LISTs at
//   10,000 namespaces. A kind whose watch cannot start (a conversion webhook that refuses one
//   tenant's object keeps the API server's watch cache of that kind from starting) would be
//   listed that way at every relist, every 1.5-2 minutes. So the passes back off on their own
//   clock: the next one no sooner than 5 minutes after the first, doubling to 30 minutes, and
//   back to the start once the kind is listed whole again. Between passes a relist tries only
//   the cluster-wide LIST. Ceiling per failing kind at 10,000 namespaces: one pass per 30
//   minutes once backed off (about 334 LISTs a minute averaged; 4 passes in the first hour,
//   about 667 a minute), plus the cluster-wide retries of the informer's backoff (at most 2 a
//   minute). Pure apart from the clock it is given.

/** A cache whose last successful LIST or watch is older than this is not current. */
export const CURRENT_WITHIN_MS = 120_000;
/** Failed rounds in a row from which the informer reports itself unhealthy. */
export const UNHEALTHY_AFTER = 2;
/** First and longest wait between two per-namespace passes of one kind. */
export const PER_NAMESPACE_FIRST_MS = 5 * 60_000;
export const PER_NAMESPACE_MAX_MS = 30 * 60_000;

export class InformerHealth {
  /** Failed rounds since a watch last held. */
  failures = 0;
  /** The last error of a failed round, for /readyz ('' after a success). */
  lastError = '';
  private synced = false;
  private okAt = 0;
  private watching = false;
  private passDelay = 0;
  private nextPassAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A LIST succeeded (the cache is the cluster as of now). */
  listed(): void {
    this.synced = true;
    this.okAt = this.now();
  }

  /** A watch is open and has held (true), or has ended (false; success unless a failure follows). */
  watch(open: boolean): void {
    this.watching = open;
    this.okAt = this.now();
    if (open) {
      this.failures = 0;
      this.lastError = '';
    }
  }

  /** An event or a bookmark arrived: the cache is current to it. */
  event(): void {
    this.okAt = this.now();
  }

  /** A round failed; lastError says why, and when the kind is next listed one namespace at a time. */
  failed(err: unknown): void {
    this.watching = false;
    this.failures++;
    this.lastError = err instanceof Error ? err.message : String(err);
    if (this.nextPassAt > this.now())
      this.lastError += `; next listing one namespace at a time at ${new Date(this.nextPassAt).toISOString()}`;
  }

  /** Listed, and able to keep a watch open (not from the second failed round in a row). */
  healthy(): boolean {
    return this.synced && this.failures < UNHEALTHY_AFTER;
  }

  /**
   * Healthy, and its last LIST, watch start, event or bookmark is within CURRENT_WITHIN_MS. An
   * open watch alone is not enough: a connection dropped without a reset (a failover, a load
   * balancer), or a kind whose watch cache cannot start, keeps a watch "open" and silent until its
   * idle timeout (5-10 min). The API server sends every watch a bookmark about once a minute, so
   * a healthy watch on a quiet kind stays current.
   */
  current(): boolean {
    return this.healthy() && this.now() - this.okAt <= CURRENT_WITHIN_MS;
  }

  /** May this relist fall back to one namespace at a time now? */
  passDue(): boolean {
    return this.now() >= this.nextPassAt;
  }

  /** A per-namespace pass ran: the next waits 5 min, then twice as long each time, to 30 min. */
  passed(): void {
    this.passDelay = this.passDelay
      ? Math.min(PER_NAMESPACE_MAX_MS, this.passDelay * 2)
      : PER_NAMESPACE_FIRST_MS;
    this.nextPassAt = this.now() + this.passDelay;
  }

  /** The kind was listed whole: the passes start over. */
  wholeAgain(): void {
    this.passDelay = 0;
    this.nextPassAt = 0;
  }
}
