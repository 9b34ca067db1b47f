// A worker whose runtime socket cannot be mounted never starts: the kubelet keeps the Pod in
// ContainerCreating and says why only in a FailedMount Event ("hostPath type check failed:
// /run/containerd/containerd.sock is not a socket file"), on nodes whose socket is elsewhere
// (k3s, CRI-O) or with a configuration left at the default. Pure: the Pod and its Events in, the
// reason its node fails with out, naming the socket path and the setting that changes it.
import { CONFIG_MAP_NAME } from '../config/config.js';

/** The volume of the worker Pod that mounts the runtime socket (pod-spec.ts). */
export const SOCKET_VOLUME = 'cri';

export interface MountPod {
  spec?: { volumes?: { name?: string; hostPath?: { path?: string } }[] };
  status?: { containerStatuses?: { state?: { waiting?: { reason?: string } } }[] };
}

export interface MountEvent {
  reason?: string;
  message?: string;
}

/** Whether the Pod is still creating its container (where a mount failure leaves it). */
export const stillCreating = (pod: MountPod): boolean =>
  !pod.status?.containerStatuses?.length ||
  pod.status.containerStatuses.some((c) => c.state?.waiting?.reason === 'ContainerCreating');

/** The socket the Pod mounts, from its own spec. */
export const socketPath = (pod: MountPod): string | undefined =>
  pod.spec?.volumes?.find((v) => v.name === SOCKET_VOLUME)?.hostPath?.path;

/**
 * `runtime-socket: cannot mount /run/containerd/containerd.sock (set runtimeSocket in ConfigMap
 * inv-erase-config to the node's CRI socket): <the kubelet's words>`, or undefined when no
 * FailedMount Event is about the socket.
 */
export function socketMountFailure(pod: MountPod, events: readonly MountEvent[]): string | undefined {
  const path = socketPath(pod);
  if (!path) return undefined;
  const ev = events.find(
    (e) =>
      e.reason === 'FailedMount' &&
      (e.message?.includes(path) || e.message?.includes(`volume "${SOCKET_VOLUME}"`)),
  );
  if (!ev) return undefined;
  const said = (ev.message ?? '').replace(/\s+/g, ' ').trim();
  const detail = said.replace(/^MountVolume\.SetUp failed for volume "[^"]*" : /, '');
  return `runtime-socket: cannot mount ${path} (set runtimeSocket in ConfigMap ${CONFIG_MAP_NAME} to the node's CRI socket): ${detail}`;
}
