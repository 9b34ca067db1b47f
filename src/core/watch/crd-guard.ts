// Keeps `inv watch` honest when its CRDs are missing: it polls discovery for them, holds
// /readyz at not-ready while any is missing, and says so in the log at most once per
// `reportEveryMs` (a minute) instead of once per informer retry. The informers keep retrying on
// their own backoff and quietly (see informer.ts), so the daemon recovers by itself as soon as
// `inv install` has run; the erase controllers wait for their CRDs through waitFor().
import { CrdMissingError, missingCrds, type OurCrd } from '../kube/crds.js';
import type { KubeRest } from '../kube/rest.js';
import type { Logger } from '../observability/logger.js';
import type { Runnable } from '../controller/manager.js';

export interface CrdGuardOptions {
  rest: KubeRest;
  crds: readonly OurCrd[];
  logger: Logger;
  pollMs?: number;
  reportEveryMs?: number;
}

export class CrdGuard implements Runnable {
  readonly name = 'crds';
  readonly needLeaderElection = false;
  /** Undefined until the first answer. */
  private missing?: OurCrd[];
  private lastReport = -Infinity;
  private waiters: (() => void)[] = [];

  constructor(private readonly opts: CrdGuardOptions) {}

  ready(): boolean {
    return this.missing !== undefined && this.missing.length === 0;
  }

  /** Resolves once none of `crds` is missing (or `signal` aborts: then false). */
  async waitFor(crds: readonly OurCrd[], signal: AbortSignal): Promise<boolean> {
    const ok = () => this.missing !== undefined && !this.missing.some((m) => crds.includes(m));
    while (!ok()) {
      if (signal.aborted) return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    return true;
  }

  async start(signal: AbortSignal): Promise<void> {
    const log = this.opts.logger;
    while (!signal.aborted) {
      try {
        const missing = await missingCrds(this.opts.rest, this.opts.crds);
        const was = this.missing;
        this.missing = missing;
        if (missing.length) {
          const now = Date.now();
          log.debug('CRDs missing', { crds: missing.map((c) => c.name) });
          if (now - this.lastReport >= (this.opts.reportEveryMs ?? 60_000)) {
            this.lastReport = now;
            log.error(missing.map((c) => new CrdMissingError(c).message).join('; '), {
              crds: missing.map((c) => c.name),
              nextReportInS: Math.round((this.opts.reportEveryMs ?? 60_000) / 1000),
            });
          }
        } else if (was?.length) {
          log.info('CRDs installed', { crds: was.map((c) => c.name) });
        }
        for (const w of this.waiters.splice(0)) w();
      } catch (err) {
        // The API server is unreachable: the informers report that themselves.
        log.debug('CRD check failed', { err: (err as Error).message });
      }
      // Once every CRD is there, look again rarely: removal is an administrator's act.
      const delay = this.ready() ? 30_000 : (this.opts.pollMs ?? 2_000);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, delay);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    for (const w of this.waiters.splice(0)) w();
  }
}
