// A fault-injecting CRI proxy for tests against the REAL containerd: a gRPC server on a unix
// socket that forwards every unary CRI call (runtime.v1 and runtime.v1alpha2, both services)
// to the runtime byte for byte, except the methods told to fail, which answer the given gRPC
// error. Byte-level forwarding (no decoding) passes on every field, including methods and
// fields the project's trimmed .proto files do not declare (PodSandboxStatus, verbose info).
// Faults can be switched on and off while the proxy runs. Answers can also be rewritten (the
// runtime's answer decoded with the project's codec, changed, encoded again: garbage fields) or
// replaced by prepared bytes (huge answers, without keeping a decoded copy in the test process).
import * as grpc from '@grpc/grpc-js';
import { bindUnixSocket } from '../support/servers/grpc-socket.js';
import { decode, encode, type ProtoSchema } from '../../src/core/cri/codec.js';
import { schema as v1Schema } from '../../src/core/cri/generated/v1.js';
import { schema as v1alpha2Schema } from '../../src/core/cri/generated/v1alpha2.js';

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

/** Changes a decoded answer (proto-loader's object shape) before it goes back to the client. */
export type Rewrite = (answer: Record<string, unknown>) => Record<string, unknown>;

export interface FaultProxy {
  endpoint: string;
  /** "Service/Method" of every call received, in order (faulted ones included). */
  calls: string[];
  /** From now on, `method` answers `fault` instead of reaching the runtime. */
  fail(method: ProxiedMethod, fault: Fault): void;
  /** From now on, `method`'s answer from the runtime goes through `fn` (the runtime is still called). */
  rewrite(method: ProxiedMethod, fn: Rewrite): void;
  /** From now on, `method` answers these bytes (an encoded response) without calling the runtime. */
  replace(method: ProxiedMethod, answer: Buffer): void;
  /** `method` reaches the runtime again, unchanged. */
  heal(method: ProxiedMethod): void;
  close(): Promise<void>;
}

const identity = (b: Buffer) => b;

export async function serveFaultProxy(
  target: string,
  faults: Partial<Record<ProxiedMethod, Fault>> = {},
): Promise<FaultProxy> {
  const active = new Map<string, Fault>(Object.entries(faults) as [string, Fault][]);
  const rewrites = new Map<string, Rewrite>();
  const replaced = new Map<string, Buffer>();
  const schemas: Record<string, ProtoSchema> = { v1: v1Schema, v1alpha2: v1alpha2Schema };
  const calls: string[] = [];
  const upstream = new grpc.Client(
    `unix://${target.replace(/^unix:\/\//, '')}`,
    grpc.credentials.createInsecure(),
    {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    },
  );
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': -1,
  });
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
        const schema = schemas[api]!;
        const answerType = schema.services[svc]?.[m]?.[1];
        const handler: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
          calls.push(name);
          const fault = active.get(name);
          if (fault) {
            callback({ code: fault.code, details: fault.details });
            return;
          }
          const fixed = replaced.get(name);
          if (fixed) {
            callback(null, fixed);
            return;
          }
          const rewrite = rewrites.get(name);
          upstream.makeUnaryRequest(
            methodPath,
            identity,
            identity,
            call.request,
            new grpc.Metadata(),
            { deadline: Date.now() + 30_000 },
            (err, res) => {
              if (err) return callback({ code: err.code, details: err.details });
              if (!rewrite || !answerType || !res) return callback(null, res);
              callback(null, encode(schema, answerType, rewrite(decode(schema, answerType, res))));
            },
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
    rewrite: (method, fn) => void rewrites.set(method, fn),
    replace: (method, answer) => void replaced.set(method, answer),
    heal: (method) => {
      active.delete(method);
      rewrites.delete(method);
      replaced.delete(method);
    },
    async close() {
      await bound.close();
      upstream.close();
    },
  };
}
