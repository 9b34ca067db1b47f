// `npm run bench soak [-- --duration 1h]`: `inv watch` with the erase controllers for an hour (by
// default) at 50 Pod operations per second across 1,000 namespaces, an erase job every 5 minutes on
// 1,000 harness Nodes (bench/support/soak-run.ts). Figures against issue 32's targets; never fails on them.
// Flags: --duration, --namespaces, --ops, --nodes, --schedule, --sample.
import { parseDurationMs } from '../src/core/duration.js';
import { runSoak } from './support/soak-run.js';

export async function main(ctx: {
  kubeconfig: string;
  flags?: Record<string, string>;
}): Promise<Record<string, number | string>> {
  const f = ctx.flags ?? {};
  const durationMs = parseDurationMs(f.duration ?? '1h', '--duration');
  const warmupMs = Math.min(600_000, Math.round(durationMs / 3));
  const r = await runSoak({
    kubeconfig: ctx.kubeconfig,
    durationMs,
    namespaces: Number(f.namespaces ?? 1000),
    opsPerSecond: Number(f.ops ?? 50),
    nodes: Number(f.nodes ?? 1000),
    schedule: f.schedule ?? '*/5 * * * *',
    sampleMs: parseDurationMs(f.sample ?? '30s', '--sample'),
    warmupMs,
    log: (m) => process.stderr.write(`bench soak: ${m}\n`),
  });
  const drift = r.drift.created + r.drift.updated + r.drift.deleted;
  return {
    duration: `${Math.round(durationMs / 1000)} s (growth measured after ${Math.round(warmupMs / 1000)} s)`,
    'Pod operations (errors)': `${r.ops} (${r.opErrors}), ${(r.ops / (durationMs / 1000)).toFixed(1)}/s`,
    'erase jobs run': r.eraseJobs,
    'daemon peak RSS (MB)': r.peakRssMB,
    'RSS growth after warm-up (MB per 10 min)': `${r.rssGrowthPer10MinMB} (target < 1)`,
    'RSS warm / end (MB)': `${r.warm.rssMB} / ${r.end.rssMB}`,
    'sockets warm / end (/proc fd)': `${r.warm.sockets} / ${r.end.sockets}`,
    'API server connections warm / end (/proc net)': `${r.warm.apiConnections} / ${r.end.apiConnections}`,
    'active timers warm / end': `${r.warm.timers} / ${r.end.timers}`,
    'converged after the load stopped (ms)': r.convergeMs,
    'changes a fresh dry-run scan would make': `${drift} (target 0)`,
  };
}
