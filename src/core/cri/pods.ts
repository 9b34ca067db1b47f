// Pod sandbox and container lifecycle calls. inv itself never starts anything on a node; the
// tests and the benchmark use these to create real in-use images on the private containerd.
// Sandboxes run with host networking and namespaces so no CNI plugin is needed.
import type { CriClient } from './client.js';
import * as convert from './convert.js';
import type { ContainerState } from './messages.js';

export interface SandboxSpec {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  /** Where the runtime writes the containers' logs (log_path of each is relative to it). */
  logDirectory?: string;
}

/** The PodSandboxConfig for a host-network pod; CreateContainer needs it again. */
export function sandboxConfig(spec: SandboxSpec): object {
  return {
    metadata: {
      name: spec.name,
      uid: spec.uid ?? `uid-${spec.name}`,
      namespace: spec.namespace ?? 'default',
      attempt: 0,
    },
    // no hostname: host-network pods share the node's UTS namespace, runc refuses to set one
    labels: spec.labels ?? {},
    ...(spec.logDirectory ? { logDirectory: spec.logDirectory } : {}),
    linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'POD', ipc: 'POD' } } },
  };
}

export async function runPodSandbox(cri: CriClient, spec: SandboxSpec): Promise<string> {
  const res = await cri.call('runtime', 'RunPodSandbox', { config: sandboxConfig(spec) });
  return String(res.podSandboxId);
}

export async function stopPodSandbox(cri: CriClient, id: string): Promise<void> {
  await cri.call('runtime', 'StopPodSandbox', { podSandboxId: id });
}

export async function removePodSandbox(cri: CriClient, id: string): Promise<void> {
  await cri.call('runtime', 'RemovePodSandbox', { podSandboxId: id });
}

export interface ContainerSpec {
  sandboxId: string;
  sandbox: SandboxSpec;
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  labels?: Record<string, string>;
  /** Host paths bound into the container (the scan-mode tests' shared folder and socket). */
  mounts?: { containerPath: string; hostPath: string; readonly?: boolean }[];
  envs?: Record<string, string>;
  /** Run as this user, whatever the image says (root: to open a root-owned socket). */
  runAsUser?: number;
}

export async function createContainer(cri: CriClient, spec: ContainerSpec): Promise<string> {
  const res = await cri.call('runtime', 'CreateContainer', {
    podSandboxId: spec.sandboxId,
    config: {
      metadata: { name: spec.name, attempt: 0 },
      image: { image: spec.image },
      command: spec.command ?? [],
      args: spec.args ?? [],
      labels: spec.labels ?? {},
      ...(spec.sandbox.logDirectory ? { logPath: `${spec.name}.log` } : {}),
      mounts: spec.mounts ?? [],
      envs: Object.entries(spec.envs ?? {}).map(([key, value]) => ({ key, value })),
      ...(spec.runAsUser !== undefined
        ? { linux: { securityContext: { runAsUser: { value: spec.runAsUser } } } }
        : {}),
    },
    sandboxConfig: sandboxConfig(spec.sandbox),
  });
  return String(res.containerId);
}

export async function startContainer(cri: CriClient, id: string): Promise<void> {
  await cri.call('runtime', 'StartContainer', { containerId: id });
}

/** timeoutSeconds 0 kills at once (SIGKILL), which is all the tests need. */
export async function stopContainer(cri: CriClient, id: string, timeoutSeconds = 0): Promise<void> {
  await cri.call('runtime', 'StopContainer', { containerId: id, timeout: timeoutSeconds });
}

export async function removeContainer(cri: CriClient, id: string): Promise<void> {
  await cri.call('runtime', 'RemoveContainer', { containerId: id });
}

export interface ContainerStatusInfo {
  id: string;
  state: ContainerState;
  exitCode: number;
  imageRef: string;
  reason: string;
}

export async function containerStatus(cri: CriClient, id: string): Promise<ContainerStatusInfo> {
  const res = await cri.call('runtime', 'ContainerStatus', { containerId: id });
  const st = (res.status ?? {}) as Record<string, unknown>;
  // Reuse the container normaliser for the enum handling.
  const c = convert.container({ id: st.id, state: st.state, imageRef: st.imageRef }, cri.apiVersion);
  return {
    id: c.id,
    state: c.state,
    exitCode: Number(st.exitCode ?? 0),
    imageRef: c.imageRef,
    reason: String(st.reason ?? ''),
  };
}
