// The CRI shapes inv works with: runtime.v1 messages as decoded by @grpc/proto-loader with
// camelCase names, enums as strings, 64-bit integers as strings, defaults filled in. Answers
// from runtime.v1alpha2 runtimes are converted to these shapes (convert.ts), so nothing outside
// src/core/cri/ knows which API version the runtime speaks.

export type CriApiVersion = 'v1' | 'v1alpha2';

export type ContainerState =
  'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';

export interface CriVersion {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export interface ImageSpec {
  image: string;
  annotations: Record<string, string>;
}

export interface CriImage {
  /** The image ID: `sha256:<config digest>` for containerd and CRI-O. */
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** Bytes; uint64 on the wire, a JS number is exact up to 8 PiB. */
  size: number;
  spec: ImageSpec | null;
  /** Runtime says the image must not be garbage collected (e.g. the sandbox image). */
  pinned: boolean;
}

export interface ContainerMetadata {
  name: string;
  attempt: number;
}

export interface CriContainer {
  id: string;
  podSandboxId: string;
  metadata: ContainerMetadata | null;
  /** The image as the container was created (often the ref the kubelet asked for). */
  image: ImageSpec | null;
  /** The image the runtime resolved (containerd: the image ID; CRI-O: a digest ref). */
  imageRef: string;
  /** runtime.v1 only; '' from v1alpha2 runtimes and runtimes that leave it empty. */
  imageId: string;
  state: ContainerState;
  createdAt: string;
  labels: Record<string, string>;
}

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export interface CriPodSandbox {
  id: string;
  metadata: PodSandboxMetadata | null;
  state: PodSandboxState;
  createdAt: string;
  labels: Record<string, string>;
  runtimeHandler: string;
}

export interface CriPodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata | null;
  state: PodSandboxState;
  /** Runtime-specific details, only filled when asked with verbose. */
  info: Record<string, string>;
}

export interface CriStatus {
  conditions: { type: string; status: boolean; reason: string; message: string }[];
  /** Runtime-specific details, only filled when asked with verbose. */
  info: Record<string, string>;
}

/** One image file system as ImageFsInfo reports it: where it is mounted and what the runtime's images use. */
export interface CriFilesystemUsage {
  /** The mount point (containerd: its snapshotter's folder), '' when the runtime names none. */
  mountpoint: string;
  /** Bytes the runtime's images (snapshots) take there; uint64 on the wire. */
  usedBytes: number;
  /** Nanoseconds since the epoch of the runtime's last measurement (containerd measures in the background). */
  timestamp: number;
}
