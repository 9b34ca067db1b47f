// Rollout waves (spec.rollout, see ../spec/rollout.ts): which worker Pods apply may create in this
// pass (rolloutGate, before apply), and after observe the failure budget, the pause before the
// next wave and when to look again (rolloutProgress). A job without spec.rollout is untouched.
//
// Restart-safe by construction: everything is derived from the status (node results, the
// inventory, status.rollout) and written in the pass's one status PUT. The workers admitted are
// always the first waiting Pod items in inventory order, so a controller that crashed after
// creating Pods but before recording them admits the same items again, and apply adopts them
// (same name, owner label and digest): no node runs twice, none is passed over.
import { itemKey, ApplyInventory, type InventoryItem } from '../../apply-inventory/apply-inventory.js';
import { admissions, resolveRollout, ROLLOUT_STOPPED, type RolloutStatus } from '../spec/rollout.js';
import type { JobContext } from './context.js';
import { jobEvent } from './job-events.js';
import { timeAfter } from '../../timestamps.js';
import { iso, setResult, type Pass } from './pass.js';

interface Split {
  /** Pending nodes whose worker exists. */
  running: number;
  /** Pending nodes whose worker is not created yet: their Pod items, in inventory order. */
  waiting: InventoryItem[];
}

function split(p: Pass): Split {
  const pending = new Set(p.results.filter((r) => r.outcome === 'Pending').map((r) => r.node));
  const out: Split = { running: 0, waiting: [] };
  for (const i of p.inv.items) {
    if (i.kind !== 'Pod') continue;
    const node = p.podToNode.get(i.name);
    if (!node || !pending.has(node) || !ApplyInventory.active(i)) continue;
    if (i.phase === 'Creating') out.waiting.push(i);
    else out.running++;
  }
  return out;
}

/** The job's rollout state, created (maxParallel resolved) on the first pass that needs it. */
function state(p: Pass): RolloutStatus | undefined {
  const spec = p.job.spec.rollout;
  if (!spec || p.st.phase !== 'Running') return undefined;
  if (!p.st.rollout) {
    const ro = resolveRollout(spec, p.podToNode.size);
    if (!ro) return undefined;
    p.st.rollout = { maxParallel: ro.maxParallel, wave: 0 };
  }
  return p.st.rollout;
}

/** Before apply: sets p.admit to the worker Pods this pass may create. */
export function rolloutGate(ctx: JobContext, p: Pass): void {
  const st = state(p);
  if (!st) return;
  const ro = { ...resolveRollout(p.job.spec.rollout, p.podToNode.size)!, maxParallel: st.maxParallel };
  const s = split(p);
  const a = admissions(ro, st, s.running, s.waiting.length, p.now.getTime());
  if (a.startWave) {
    st.wave++;
    delete st.nextWaveAt;
    if (ro.pauseMs) st.toStart = a.startWave;
    ctx.log.info('rollout wave started', { job: p.name, wave: st.wave, nodes: a.startWave });
  }
  const admitted = new Set(s.waiting.slice(0, a.admit).map(itemKey));
  p.admitCount = admitted.size;
  p.admit = (i) => i.kind !== 'Pod' || admitted.has(itemKey(i));
}

/**
 * After apply: the current wave's workers created in this pass no longer count as to start;
 * without a pause, each pass that created workers counts as a wave.
 */
export function rolloutApplied(p: Pass): void {
  const st = p.st.rollout;
  if (!st || !p.admit || !p.admitCount) return;
  // Admitted items no longer waiting were created (or adopted, or lost to a name collision).
  const left = split(p).waiting.filter((i) => p.admit!(i)).length;
  const created = Math.max(0, p.admitCount - left);
  if (!created) return;
  if (st.toStart === undefined) st.wave++;
  else {
    st.toStart = Math.max(0, st.toStart - created);
    if (!st.toStart) delete st.toStart;
  }
}

/** After observe: the failure budget, the pause after a finished wave, when to look again. */
export async function rolloutProgress(ctx: JobContext, p: Pass): Promise<void> {
  const st = state(p);
  if (!st) return;
  const ro = { ...resolveRollout(p.job.spec.rollout, p.podToNode.size)!, maxParallel: st.maxParallel };
  let s = split(p);
  const failed = p.results.filter((r) => r.outcome === 'Failed').length;
  if (ro.failureBudget !== undefined && failed >= ro.failureBudget && !st.stopped) {
    st.stopped = true;
    delete st.toStart;
    delete st.nextWaveAt;
    for (const i of s.waiting) {
      const node = p.podToNode.get(i.name)!;
      const r = p.results.find((x) => x.node === node)!;
      setResult(p, { ...r, outcome: 'Skipped', reason: ROLLOUT_STOPPED });
    }
    // Never created as far as the status knows; a Pod created just before a crash is deleted.
    p.inv.scheduleDeletion(s.waiting.map(itemKey));
    p.st.message = `rollout stopped: ${failed} node(s) failed (failure budget ${ro.failureBudget}); ${s.waiting.length} node(s) not started were skipped (${ROLLOUT_STOPPED})`;
    ctx.log.warn('rollout stopped', { job: p.name, failed, skipped: s.waiting.length });
    await jobEvent(ctx, p.job, 'rollout-stopped', 'Warning', 'RolloutStopped', p.st.message);
    s = split(p);
  }
  if (st.stopped || !s.waiting.length) return;
  if (ro.pauseMs && !st.toStart && s.running === 0 && st.wave > 0 && !st.nextWaveAt) {
    // Rounded up to the second the status stores: the pause is never cut short.
    // Past the latest time a status holds (a pause of 3,000,000,000 h), the wave waits until
    // then: the job's deadline comes first.
    const at = timeAfter(p.now, ro.pauseMs, 'the next wave');
    st.nextWaveAt = iso(timeAfter(Math.ceil(at.getTime() / 1000) * 1000, 0, 'the next wave'));
    ctx.log.info('rollout wave finished', { job: p.name, wave: st.wave, nextWaveAt: st.nextWaveAt });
  }
  const a = admissions(ro, st, s.running, s.waiting.length, p.now.getTime());
  const next = a.admit ? 0 : a.waitMs;
  if (next !== undefined) p.requeue = Math.min(p.requeue ?? Infinity, next);
}
