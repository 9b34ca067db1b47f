// A scoped prune's keep rule (`--only`, `--except`; refs/scope.ts): every decision of the `*`
// target about an image out of scope becomes `out-of-scope`, with the reason, whatever decide()
// made of it, since the requester asked for the image not to be considered at all. Named targets
// are not scoped: the requester named them. PURE.
import { outOfScope, type Scope } from '../../refs/scope.js';
import { PRUNE_ALL } from '../targets.js';
import type { Decision } from '../types.js';

export function applyScope(decisions: readonly Decision[], scope: Scope): Decision[] {
  return decisions.map((d) => {
    if (d.target !== PRUNE_ALL || !d.imageId) return d;
    const why = outOfScope(scope, d.aliases);
    return why === undefined ? d : { ...d, action: 'keep', outcome: 'out-of-scope', detail: why };
  });
}
