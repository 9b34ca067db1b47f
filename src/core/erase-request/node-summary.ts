// What a prompt says about the nodes a request touches: "3 of 5 node(s) matching pool=gpu
// (2 skipped: cordoned, not ready)", by the same selection the ImageJob controller makes, over
// the cluster's configuration (every default when there is none).
import * as resources from '../kube/resources.js';
import { KubeApiError, type KubeRest } from '../kube/rest.js';
import { DEFAULT_CONFIG, type EraseConfig } from '../erase/config/config.js';
import { selectNodes, type NodeLike } from '../erase/nodes/selection.js';

/** The summary, or undefined when Nodes may not be read (403). */
export async function nodeSummary(
  rest: KubeRest,
  config: EraseConfig | undefined,
  selector: string | undefined,
): Promise<string | undefined> {
  try {
    const nodes = await resources.list<NodeLike>(rest, 'Node');
    const sel = selectNodes(nodes.items, config ?? DEFAULT_CONFIG, selector ?? '');
    const total = sel.selected.length + sel.skipped.length;
    const why = [...new Set(sel.skipped.map((s) => s.reason.replace('-', ' ')))].join(', ');
    return `${sel.selected.length} of ${total} node(s)${selector ? ` matching ${selector}` : ''}${
      sel.skipped.length ? ` (${sel.skipped.length} skipped: ${why})` : ''
    }`;
  } catch (e) {
    if (e instanceof KubeApiError && e.code === 403) return undefined;
    throw e;
  }
}
