// Which nodes a job targets: only nodes matching the request's --node-selector are part of the
// job at all; among those, the configured node filter (include: only nodes matching any
// selector; exclude: nodes matching any selector are skipped), then NotReady and cordoned nodes, which are skipped with a reason (by default).
import type { EraseConfig } from '../config/config.js';
import { matches, parseSelector } from '../spec/selector.js';
import { surelyBelow, type PrescreenFacts } from './prescreen.js';

export interface NodeLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: { type?: string; status?: string }[] };
  /** Threshold runs: what the screen reads (prescreen.ts). */
  prescreen?: PrescreenFacts;
}

/** `below-threshold`: a threshold run's screen says the node needs no worker (prescreen.ts). */
export type SkipReason = 'filtered' | 'not-ready' | 'cordoned' | 'below-threshold';

export interface NodeSelection {
  selected: string[];
  skipped: { node: string; reason: SkipReason }[];
  /** Nodes outside the request's --node-selector: not part of the job at all (not desired). */
  ignored: number;
}

export const isReady = (n: NodeLike): boolean =>
  n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export function selectNodes(
  nodes: readonly NodeLike[],
  cfg: EraseConfig,
  nodeSelector = '',
  /** A threshold run's high mark, with the screen on: nodes surely under it are skipped. */
  screenHighPercent?: number,
): NodeSelection {
  const filters = cfg.nodeFilter.selectors.map(parseSelector);
  const narrow = parseSelector(nodeSelector);
  const out: NodeSelection = { selected: [], skipped: [], ignored: 0 };
  for (const n of nodes) {
    const name = n.metadata?.name;
    if (!name) continue;
    const labels = n.metadata?.labels ?? {};
    if (!matches(narrow, labels)) {
      out.ignored++;
      continue;
    }
    const hit = filters.some((s) => matches(s, labels));
    let reason: SkipReason | undefined;
    if (cfg.nodeFilter.type === 'include' ? !hit : hit) reason = 'filtered';
    else if (cfg.skipNotReady && !isReady(n)) reason = 'not-ready';
    else if (cfg.skipCordoned && n.spec?.unschedulable) reason = 'cordoned';
    else if (screenHighPercent !== undefined && surelyBelow(n.prescreen, screenHighPercent))
      reason = 'below-threshold';
    if (reason) out.skipped.push({ node: name, reason });
    else out.selected.push(name);
  }
  out.selected.sort();
  out.skipped.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  return out;
}
