// The administrator's policy over requesters (inv-erase-config: allowPruneAll,
// allowUnprotected). PURE. Checked where a request becomes work, each time with the same
// words: `inv erase` at preflight (exit 2), the ImageList controller before it starts a job
// (phase Error), and the ImageJob controller before it plans one (refused), so neither a list
// written with kubectl nor a job created by hand gets round it.
import type { EraseConfig } from './config.js';
import { PRUNE_ALL } from '../../constants.js';

export interface PolicyRequest {
  images: readonly string[];
  protectInventory?: boolean;
  /** A dry run removes nothing, so the policy does not refuse it (`inv check --nodes` is one). */
  dryRun?: boolean;
}

/** Why the configuration refuses this request, or undefined. */
export function policyProblem(
  req: PolicyRequest,
  cfg: Pick<EraseConfig, 'allowPruneAll' | 'allowUnprotected'>,
): string | undefined {
  if (req.dryRun) return undefined;
  const all = req.images.includes(PRUNE_ALL);
  if (all && !cfg.allowPruneAll)
    return 'refused by the erase configuration: allowPruneAll is false, so no ImageList may name * (prune every unused image, scoped by --only/--except or not); name the images instead';
  if (all && req.protectInventory === false && !cfg.allowUnprotected)
    return 'refused by the erase configuration: allowUnprotected is false, so a * prune always keeps what the inventory references (drop --no-protect-inventory / spec.protectInventory: false)';
  return undefined;
}
