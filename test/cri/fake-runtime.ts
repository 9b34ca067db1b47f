// In-test gRPC servers on unix sockets, built from the project's own .proto files:
// - serveFake: answers only the services/methods it is given (e.g. runtime.v1alpha2 only, to
//   exercise version negotiation); grpc-js answers UNIMPLEMENTED for everything else.
// To make one call of a real runtime fail, see test/noderemove/fault-proxy.ts.
import * as grpc from '@grpc/grpc-js';
import type { CriApiVersion } from '../../src/core/cri/messages.js';
import { loadCriPackage } from '../support/cri-proto-loader.js';
import { bindUnixSocket } from '../support/servers/grpc-socket.js';

type Handler = (request: Record<string, unknown>) => unknown;
export type FakeMethods = Partial<Record<'RuntimeService' | 'ImageService', Record<string, Handler>>>;

export interface FakeServer {
  endpoint: string;
  socketPath: string;
  /** "Service/Method" of every call the server answered. */
  calls: string[];
  close(): Promise<void>;
}

const pkg = loadCriPackage;

const serviceDef = (api: CriApiVersion, name: string) =>
  (pkg(api)[name] as grpc.ServiceClientConstructor).service;

function toUnary(
  name: string,
  h: Handler,
  calls: string[],
): grpc.handleUnaryCall<Record<string, unknown>, unknown> {
  return (call, callback) => {
    calls.push(name);
    Promise.resolve()
      .then(() => h(call.request))
      .then(
        (res) => callback(null, res ?? {}),
        (err: unknown) => {
          const e = err as Partial<grpc.ServiceError>;
          callback({
            code: e.code ?? grpc.status.UNKNOWN,
            details: e.details ?? String((err as Error).message ?? err),
          });
        },
      );
  };
}

async function listen(server: grpc.Server, calls: string[]): Promise<FakeServer> {
  const bound = await bindUnixSocket(server, 'inv-fake-cri-');
  return { endpoint: bound.endpoint, socketPath: bound.socketPath, calls, close: bound.close };
}

/** A server speaking only `api`, with only the given methods implemented. */
export async function serveFake(api: CriApiVersion, methods: FakeMethods): Promise<FakeServer> {
  const server = new grpc.Server();
  const calls: string[] = [];
  for (const [svc, impl] of Object.entries(methods)) {
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const [m, h] of Object.entries(impl ?? {})) handlers[m] = toUnary(`${svc}/${m}`, h, calls);
    server.addService(serviceDef(api, svc), handlers);
  }
  return listen(server, calls);
}
