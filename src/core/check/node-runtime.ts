// What runtime each node runs, as its kubelet reports it (Node status.nodeInfo.containerRuntimeVersion,
// the kubelet's CRI Version answer: "containerd://1.6.20", "cri-o://1.34.0"), for `inv check --nodes`:
// the node lines name it, so a cluster of mixed runtimes shows which node runs which.

interface NodeLike {
  metadata?: { name?: string };
  status?: { nodeInfo?: { containerRuntimeVersion?: string } };
}

/** "cri-o://1.34.0" -> "cri-o 1.34.0"; anything else unchanged ('' when absent). */
export function runtimeLabel(containerRuntimeVersion: string | undefined): string {
  const v = (containerRuntimeVersion ?? '').trim();
  const m = /^([a-z0-9.-]+):\/\/(.+)$/i.exec(v);
  return m ? `${m[1]} ${m[2]}` : v;
}

/** Node name -> runtime label, for the nodes that report one. */
export function runtimesByNode(nodes: readonly NodeLike[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of nodes) {
    const name = n.metadata?.name;
    const label = runtimeLabel(n.status?.nodeInfo?.containerRuntimeVersion);
    if (name && label) out.set(name, label);
  }
  return out;
}
