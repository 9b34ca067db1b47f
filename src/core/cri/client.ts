// A CRI client over a unix socket. It negotiates the API version (runtime.v1 first, then
// runtime.v1alpha2 for older runtimes) and hands out v1 shapes only. Everything is bounded in
// time: connecting plus negotiating share one deadline, and every later call gets its own, so
// a missing socket, a socket nobody serves, or a runtime that never answers ends in a CriError
// naming the endpoint instead of a hang.
import * as grpc from '@grpc/grpc-js';
import * as convert from './convert.js';
import { checkSocket, parseEndpoint } from './endpoint.js';
import { CriError, fromServiceError } from './errors.js';
import { MAX_ANSWER_BYTES } from './limits.js';
import { services } from './proto.js';
import type {
  CriApiVersion,
  CriContainer,
  CriFilesystemUsage,
  CriImage,
  CriPodSandbox,
  CriPodSandboxStatus,
  CriStatus,
  CriVersion,
} from './messages.js';

export interface ConnectOptions {
  /** `unix:///path/to.sock` or `/path/to.sock`. */
  endpoint: string;
  /** Budget for connecting + negotiating, and then for each call. */
  timeoutMs: number;
}

export type CriServiceName = 'runtime' | 'image';

export interface CriClient {
  readonly endpoint: string;
  readonly apiVersion: CriApiVersion;
  /** The Version answer obtained while negotiating. */
  readonly runtime: CriVersion;
  version(): Promise<CriVersion>;
  status(verbose?: boolean): Promise<CriStatus>;
  listImages(): Promise<CriImage[]>;
  /** null when the runtime does not know the image. */
  imageStatus(ref: string): Promise<CriImage | null>;
  /**
   * ImageStatus with verbose set: the runtime's free-form info map (containerd and CRI-O put the
   * image's OCI config, with its creation time, under `info`); empty when the runtime gives none.
   */
  imageStatusInfo(ref: string): Promise<Record<string, string>>;
  /** Removes the image (all its tags) that `ref` (tag, digest ref or ID) resolves to. */
  removeImage(ref: string): Promise<void>;
  /** The image file systems: mount point and the bytes images use (no capacity: CRI has none). */
  imageFsInfo(): Promise<CriFilesystemUsage[]>;
  listContainers(): Promise<CriContainer[]>;
  listPodSandboxes(): Promise<CriPodSandbox[]>;
  /** One sandbox's status; with verbose, runtime-specific `info` (containerd: the sandbox's image). */
  podSandboxStatus(id: string, verbose?: boolean): Promise<CriPodSandboxStatus>;
  /**
   * A raw unary call in the negotiated version (requests and answers are field-compatible
   * between versions for what the project sends); used by the test lifecycle helpers.
   */
  call(service: CriServiceName, method: string, request: object): Promise<Record<string, unknown>>;
  close(): void;
}

// grpc's default, 4 MiB per answer, made explicit (limits.ts says why): a larger answer fails
// the call with the reason, before it is read.
const channelOptions: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_ANSWER_BYTES,
  'grpc.enable_retries': 0,
};

type Clients = Record<CriServiceName, grpc.Client>;

function unary(
  client: grpc.Client,
  endpoint: string,
  method: string,
  request: object,
  deadline: number,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, unknown>)[method];
    if (typeof fn !== 'function') {
      reject(
        new CriError('call', endpoint, `CRI method ${method} is not defined in the project's proto files`, {
          method,
        }),
      );
      return;
    }
    (
      fn as (req: object, opts: grpc.CallOptions, cb: grpc.requestCallback<Record<string, unknown>>) => void
    ).call(client, request, { deadline }, (err, res) => {
      if (err) reject(fromServiceError(endpoint, method, err, timeoutMs));
      else resolve(res ?? {});
    });
  });
}

function waitForReady(
  client: grpc.Client,
  endpoint: string,
  deadline: number,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    client.waitForReady(deadline, (err) => {
      if (!err) resolve();
      else {
        reject(
          new CriError(
            'unreachable',
            endpoint,
            `cannot connect to the container runtime at ${endpoint} within ${timeoutMs} ms (${err.message})`,
          ),
        );
      }
    });
  });
}

export async function connectCri({ endpoint, timeoutMs }: ConnectOptions): Promise<CriClient> {
  const ep = parseEndpoint(endpoint);
  checkSocket(ep);
  const display = ep.display;
  const deadline = Date.now() + timeoutMs;
  // One channel (one connection) shared by every service client of both versions.
  const channel = new grpc.Channel(ep.target, grpc.credentials.createInsecure(), channelOptions);
  const clientsFor = (api: CriApiVersion): Clients => {
    const s = services(api);
    const opts = { channelOverride: channel };
    return {
      runtime: new s.RuntimeService(ep.target, grpc.credentials.createInsecure(), opts),
      image: new s.ImageService(ep.target, grpc.credentials.createInsecure(), opts),
    };
  };
  // Clients built with channelOverride close the shared channel in close(); closing the
  // channel once is all there is to release.
  const closeChannel = () => channel.close();

  const v1 = clientsFor('v1');
  let clients = v1;
  let api: CriApiVersion = 'v1';
  let runtime: CriVersion;
  try {
    await waitForReady(v1.runtime, display, deadline, timeoutMs);
    const req = { version: '0.1.0' }; // what the kubelet sends
    try {
      runtime = convert.version(await unary(v1.runtime, display, 'Version', req, deadline, timeoutMs));
    } catch (err) {
      // UNIMPLEMENTED is what grpc servers answer for a service they do not have.
      if (!(err instanceof CriError && err.code === grpc.status.UNIMPLEMENTED)) throw err;
      clients = clientsFor('v1alpha2');
      api = 'v1alpha2';
      try {
        runtime = convert.version(await unary(clients.runtime, display, 'Version', req, deadline, timeoutMs));
      } catch (err2) {
        if (err2 instanceof CriError && err2.code === grpc.status.UNIMPLEMENTED) {
          throw new CriError(
            'unreachable',
            display,
            `the service at ${display} implements neither CRI runtime.v1 nor runtime.v1alpha2`,
            { method: 'Version', code: err2.code },
          );
        }
        throw err2;
      }
    }
  } catch (err) {
    closeChannel();
    throw err;
  }

  const call = (service: CriServiceName, method: string, request: object) =>
    unary(clients[service], display, method, request, Date.now() + timeoutMs, timeoutMs);

  return {
    endpoint: display,
    apiVersion: api,
    runtime,
    async version() {
      return convert.version(await call('runtime', 'Version', { version: '0.1.0' }));
    },
    async status(verbose = false) {
      return convert.status(await call('runtime', 'Status', { verbose }));
    },
    async listImages() {
      const res = await call('image', 'ListImages', {});
      return (Array.isArray(res.images) ? res.images : []).map((i) =>
        convert.image(i as Record<string, unknown>),
      );
    },
    async imageStatus(ref: string) {
      const res = await call('image', 'ImageStatus', { image: { image: ref } });
      const img = res.image as Record<string, unknown> | null | undefined;
      return img && img.id ? convert.image(img) : null;
    },
    async imageStatusInfo(ref: string) {
      const res = await call('image', 'ImageStatus', { image: { image: ref }, verbose: true });
      return convert.infoMap(res.info);
    },
    async removeImage(ref: string) {
      await call('image', 'RemoveImage', { image: { image: ref } });
    },
    async imageFsInfo() {
      return convert.imageFilesystems(await call('image', 'ImageFsInfo', {}));
    },
    async listContainers() {
      const res = await call('runtime', 'ListContainers', {});
      return (Array.isArray(res.containers) ? res.containers : []).map((c) =>
        convert.container(c as Record<string, unknown>, api),
      );
    },
    async listPodSandboxes() {
      const res = await call('runtime', 'ListPodSandbox', {});
      return (Array.isArray(res.items) ? res.items : []).map((p) =>
        convert.podSandbox(p as Record<string, unknown>),
      );
    },
    async podSandboxStatus(id: string, verbose = false) {
      return convert.podSandboxStatus(
        await call('runtime', 'PodSandboxStatus', { podSandboxId: id, verbose }),
      );
    },
    call,
    close() {
      closeChannel();
    },
  };
}
