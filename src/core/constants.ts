// Names shared across the inventory, erase and node-remove sides, defined once.

/** The standard label that says which tool manages an object (its values differ per side). */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** The target that means "every image not in use" (`inv erase --all-unused`, node-remove `*`). */
export const PRUNE_ALL = '*';

/** containerd's CRI socket on a node, where kubeadm-style clusters put it. */
export const DEFAULT_RUNTIME_SOCKET = '/run/containerd/containerd.sock';
export const DEFAULT_RUNTIME_ENDPOINT = `unix://${DEFAULT_RUNTIME_SOCKET}`;
