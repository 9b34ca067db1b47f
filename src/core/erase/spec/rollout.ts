// Rollout waves of a job (ImageList spec.rollout, copied into the ImageJob): how many nodes run a
// worker at once, the pause between waves and the failure budget. Pure: the spec as written, its
// validation and what it resolves to for a job of n nodes. Without spec.rollout every node's
// worker is created at once (the behaviour before rollouts existed).
import { DurationError, parseDurationMs } from '../../duration.js';

export interface RolloutSpec {
  /** Nodes whose workers run at once: a number (>= 1) or a percentage of the job's nodes ("10%"). */
  maxParallel?: number | string;
  /**
   * Pause between waves (a duration, "2m"). With a pause, waves are whole: the next one starts
   * once every worker of the previous one has finished, plus the pause. Without one, a node's
   * worker starts as soon as another finishes (a sliding window, like a Deployment's maxUnavailable).
   */
  pause?: string;
  /** After this many failed nodes the nodes not started yet are skipped (reason rollout-stopped). */
  failureBudget?: number;
}

/** What the ImageJob controller records of its rollout, in the job's status. */
export interface RolloutStatus {
  /** maxParallel resolved against the job's node count. */
  maxParallel: number;
  /** Waves started so far (with a pause: whole waves; without: the batches the window admitted). */
  wave: number;
  /** With a pause: workers of the current wave still to be created (write-ahead, see rollout.ts). */
  toStart?: number;
  /** With a pause: the next wave starts at this time (RFC 3339). */
  nextWaveAt?: string;
  /** Set once the failure budget is spent. */
  stopped?: boolean;
}

export const ROLLOUT_STOPPED = 'rollout-stopped';

export interface Rollout {
  maxParallel: number;
  pauseMs: number;
  failureBudget?: number;
}

const PERCENT = /^(100|[1-9][0-9]?)%$/;

/** Problems with a spec.rollout as written ([] when fine); `where` prefixes each. */
export function rolloutProblems(r: RolloutSpec | undefined, where = 'spec.rollout'): string[] {
  if (r === undefined) return [];
  const out: string[] = [];
  const mp = r.maxParallel;
  if (mp !== undefined) {
    if (typeof mp === 'number') {
      if (!Number.isSafeInteger(mp) || mp < 1) out.push(`${where}.maxParallel: must be 1 or more, got ${mp}`);
    } else if (typeof mp !== 'string' || !PERCENT.test(mp)) {
      out.push(
        `${where}.maxParallel: must be a number or a percentage from 1% to 100%, got ${JSON.stringify(mp)}`,
      );
    }
  }
  if (r.pause !== undefined) {
    try {
      parseDurationMs(String(r.pause), `${where}.pause`);
    } catch (e) {
      if (!(e instanceof DurationError)) throw e;
      out.push(e.message);
    }
  }
  const fb = r.failureBudget;
  if (fb !== undefined && (!Number.isSafeInteger(fb) || fb < 1))
    out.push(`${where}.failureBudget: must be 1 or more, got ${JSON.stringify(fb)}`);
  return out;
}

/**
 * What the spec means for a job of `nodes` nodes; undefined when the job has no rollout (every
 * worker at once). A percentage rounds down, as maxUnavailable does, but never below 1 node.
 */
export function resolveRollout(r: RolloutSpec | undefined, nodes: number): Rollout | undefined {
  if (!r || rolloutProblems(r).length) return undefined;
  const mp = r.maxParallel;
  let maxParallel = Math.max(1, nodes);
  if (typeof mp === 'number') maxParallel = mp;
  else if (typeof mp === 'string')
    maxParallel = Math.max(1, Math.floor((nodes * Number(mp.slice(0, -1))) / 100));
  return {
    maxParallel,
    pauseMs: r.pause ? parseDurationMs(r.pause, 'pause') : 0,
    ...(r.failureBudget !== undefined ? { failureBudget: r.failureBudget } : {}),
  };
}

/**
 * How many workers to create now. `running`: pending nodes whose worker exists; `waiting`:
 * pending nodes whose worker is not created yet. Without a pause: a sliding window. With one:
 * the current wave's `toStart` only; a new wave (returned as `startWave`) once nothing runs and
 * `nextWaveAt` has passed.
 */
export function admissions(
  ro: Rollout,
  st: RolloutStatus,
  running: number,
  waiting: number,
  now: number,
): { admit: number; startWave?: number; waitMs?: number } {
  if (st.stopped || waiting === 0) return { admit: 0 };
  if (!ro.pauseMs) return { admit: Math.max(0, Math.min(waiting, ro.maxParallel - running)) };
  if (st.toStart) return { admit: Math.min(st.toStart, waiting) };
  if (running > 0) return { admit: 0 };
  if (st.wave > 0) {
    // The previous wave has finished: the pass that saw it set nextWaveAt (rolloutProgress).
    const at = st.nextWaveAt ? Date.parse(st.nextWaveAt) : NaN;
    if (!Number.isFinite(at)) return { admit: 0 };
    if (now < at) return { admit: 0, waitMs: at - now };
  }
  const n = Math.min(ro.maxParallel, waiting);
  return { admit: n, startWave: n };
}
