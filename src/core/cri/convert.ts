// The explicit conversion layer between wire answers and the v1 shapes in types.ts.
// For every field inv reads, runtime.v1alpha2 has the same name, number and type as runtime.v1
// (checked against k8s.io/cri-api); the differences are fields v1 added later, which get their
// v1 default here (Container.image_id). Both versions go through the same normalisers, so a
// missing or odd field from any runtime cannot leak an `undefined` into the rest of inv.
import type {
  ContainerState,
  CriApiVersion,
  CriContainer,
  CriFilesystemUsage,
  CriImage,
  CriPodSandbox,
  CriPodSandboxStatus,
  CriStatus,
  CriVersion,
  ImageSpec,
  PodSandboxState,
} from './messages.js';

// proto-loader output is untyped; read it defensively.
type Raw = Record<string, unknown> | null | undefined;

const str = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0) || 0);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);
const map = (v: unknown): Record<string, string> =>
  v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, str(x)])) : {};

/** A verbose answer's info map (map<string, string> on the wire). */
export const infoMap = map;

const CONTAINER_STATES: readonly ContainerState[] = [
  'CONTAINER_CREATED',
  'CONTAINER_RUNNING',
  'CONTAINER_EXITED',
  'CONTAINER_UNKNOWN',
];
const SANDBOX_STATES: readonly PodSandboxState[] = ['SANDBOX_READY', 'SANDBOX_NOTREADY'];

function enumValue<T extends string>(v: unknown, values: readonly T[], fallback: T): T {
  if (typeof v === 'number') return values[v] ?? fallback;
  return values.includes(v as T) ? (v as T) : fallback;
}

function imageSpec(raw: unknown): ImageSpec | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  return { image: str(r.image), annotations: map(r.annotations) };
}

export function version(raw: Raw): CriVersion {
  return {
    version: str(raw?.version),
    runtimeName: str(raw?.runtimeName),
    runtimeVersion: str(raw?.runtimeVersion),
    runtimeApiVersion: str(raw?.runtimeApiVersion),
  };
}

export function image(raw: Raw): CriImage {
  return {
    id: str(raw?.id),
    repoTags: strs(raw?.repoTags),
    repoDigests: strs(raw?.repoDigests),
    size: num(raw?.size),
    spec: imageSpec(raw?.spec),
    pinned: raw?.pinned === true,
  };
}

export function container(raw: Raw, api: CriApiVersion): CriContainer {
  const md = raw?.metadata as Raw;
  return {
    id: str(raw?.id),
    podSandboxId: str(raw?.podSandboxId),
    metadata: md ? { name: str(md.name), attempt: num(md.attempt) } : null,
    image: imageSpec(raw?.image),
    imageRef: str(raw?.imageRef),
    imageId: api === 'v1' ? str(raw?.imageId) : '', // not in v1alpha2
    state: enumValue(raw?.state, CONTAINER_STATES, 'CONTAINER_UNKNOWN'),
    createdAt: str(raw?.createdAt),
    labels: map(raw?.labels),
  };
}

const sandboxMetadata = (md: Raw): CriPodSandbox['metadata'] =>
  md
    ? { name: str(md.name), uid: str(md.uid), namespace: str(md.namespace), attempt: num(md.attempt) }
    : null;

export function podSandbox(raw: Raw): CriPodSandbox {
  return {
    id: str(raw?.id),
    metadata: sandboxMetadata(raw?.metadata as Raw),
    state: enumValue(raw?.state, SANDBOX_STATES, 'SANDBOX_NOTREADY'),
    createdAt: str(raw?.createdAt),
    labels: map(raw?.labels),
    runtimeHandler: str(raw?.runtimeHandler),
  };
}

export function podSandboxStatus(raw: Raw): CriPodSandboxStatus {
  const st = raw?.status as Raw;
  return {
    id: str(st?.id),
    metadata: sandboxMetadata(st?.metadata as Raw),
    state: enumValue(st?.state, SANDBOX_STATES, 'SANDBOX_NOTREADY'),
    info: map(raw?.info),
  };
}

export function status(raw: Raw): CriStatus {
  const st = raw?.status as Raw;
  const conds = Array.isArray(st?.conditions) ? (st.conditions as Raw[]) : [];
  return {
    conditions: conds.map((c) => ({
      type: str(c?.type),
      status: c?.status === true,
      reason: str(c?.reason),
      message: str(c?.message),
    })),
    info: map(raw?.info),
  };
}

/** ImageFsInfo's image file systems (the same fields in both API versions). */
export function imageFilesystems(raw: Raw): CriFilesystemUsage[] {
  const list = Array.isArray(raw?.imageFilesystems) ? (raw.imageFilesystems as Raw[]) : [];
  return list.map((f) => ({
    mountpoint: String((f?.fsId as Raw | undefined)?.mountpoint ?? ''),
    usedBytes: num((f?.usedBytes as Raw | undefined)?.value),
    timestamp: num(f?.timestamp),
  }));
}
