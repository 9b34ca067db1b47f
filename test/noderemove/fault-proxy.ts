// A fault-injecting CRI proxy for tests against the REAL containerd: a gRPC server on a unix
// socket that forwards every unary CRI call (runtime.v1 and runtime.v1alpha2, both services)
// to the runtime byte for byte, except the methods told to fail, which answer the given gRPC
// error. Byte-level forwarding (no decoding) passes on every field, including methods and
// fields the project's trimmed .proto files do not declare (PodSandboxStatus, verbose info).
// Faults can be switched on and off while the proxy runs.
import * as grpc from '@grpc/grpc-js';
import { bindUnixSocket } from '../support/grpc-socket.js';

/** Unary methods of k8s.io/cri-api, per service (streaming ones are not proxied). */
const METHODS = {
  RuntimeService: [
    'Version',
    'RunPodSandbox',
    'StopPodSandbox',
    'RemovePodSandbox',
    'PodSandboxStatus',
    'ListPodSandbox',
    'CreateContainer',
    'StartContainer',
    'StopContainer',
    'RemoveContainer',
    'ListContainers',
    'ContainerStatus',
    'UpdateContainerResources',
    'ReopenContainerLog',
    'ExecSync',
    'Exec',
    'Attach',
    'PortForward',
    'ContainerStats',
    'ListContainerStats',
    'PodSandboxStats',
    'ListPodSandboxStats',
    'UpdateRuntimeConfig',
    'Status',
    'CheckpointContainer',
    'ListMetricDescriptors',
    'ListPodSandboxMetrics',
    'RuntimeConfig',
  ],
  ImageService: ['ListImages', 'ImageStatus', 'PullImage', 'RemoveImage', 'ImageFsInfo'],
} as const;

export type ProxiedMethod =
  | `RuntimeService/${(typeof METHODS.RuntimeService)[number]}`
  | `ImageService/${(typeof METHODS.ImageService)[number]}`;

export interface Fault {
  code: grpc.status;
  details: string;
}

export interface FaultProxy {
  endpoint: string;
  /** "Service/Method" of every call received, in order (faulted ones included). */
  calls: string[];
  /** From now on, `method` answers `fault` instead of reaching the runtime. */
  fail(method: ProxiedMethod, fault: Fault): void;
  /** `method` reaches the runtime again. */
  heal(method: ProxiedMethod): void;
  close(): Promise<void>;
}

const identity = (b: Buffer) => b;

export async function serveFaultProxy(
  target: string,
  faults: Partial<Record<ProxiedMethod, Fault>> = {},
): Promise<FaultProxy> {
  const active = new Map<string, Fault>(Object.entries(faults) as [string, Fault][]);
  const calls: string[] = [];
  const upstream = new grpc.Client(
    `unix://${target.replace(/^unix:\/\//, '')}`,
    grpc.credentials.createInsecure(),
    {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    },
  );
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
  for (const api of ['v1', 'v1alpha2']) {
    for (const [svc, methods] of Object.entries(METHODS)) {
      const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
      const handlers: grpc.UntypedServiceImplementation = {};
      for (const m of methods) {
        const methodPath = `/runtime.${api}.${svc}/${m}`;
        definition[m] = {
          path: methodPath,
          requestStream: false,
          responseStream: false,
          requestSerialize: identity,
          requestDeserialize: identity,
          responseSerialize: identity,
          responseDeserialize: identity,
        };
        const name = `${svc}/${m}`;
        const handler: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
          calls.push(name);
          const fault = active.get(name);
          if (fault) {
            callback({ code: fault.code, details: fault.details });
            return;
          }
          upstream.makeUnaryRequest(
            methodPath,
            identity,
            identity,
            call.request,
            new grpc.Metadata(),
            { deadline: Date.now() + 30_000 },
            (err, res) => (err ? callback({ code: err.code, details: err.details }) : callback(null, res)),
          );
        };
        handlers[m] = handler;
      }
      server.addService(definition, handlers);
    }
  }
  const bound = await bindUnixSocket(server, 'inv-fault-cri-');
  return {
    endpoint: bound.endpoint,
    calls,
    fail: (method, fault) => void active.set(method, fault),
    heal: (method) => void active.delete(method),
    async close() {
      await bound.close();
      upstream.close();
    },
  };
}
