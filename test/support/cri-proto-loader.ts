// The CRI services as @grpc/proto-loader builds them from proto/ at run time: what the tests'
// fake runtimes serve, what the codec's tests compare with, and the benchmark's bare gRPC loop
// (the reference any client is measured against). The program itself uses the generated
// schemas (src/core/cri/proto.ts).
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CriApiVersion } from '../../src/core/cri/messages.js';

/** proto-loader's options the codec mirrors: camelCase, int64 as strings, enums as names, defaults. */
export const loaderOptions: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** proto/ of the checkout (this file runs from dist/test/support/). */
export const protoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../proto');

export function loadCriPackage(api: CriApiVersion): grpc.GrpcObject {
  const def = protoLoader.loadSync(path.join(protoDir, 'runtime', api, 'api.proto'), loaderOptions);
  return (grpc.loadPackageDefinition(def).runtime as grpc.GrpcObject)[api] as grpc.GrpcObject;
}

/** The package definition (with serializers) of one API version. */
export function loadCriDefinition(api: CriApiVersion): protoLoader.PackageDefinition {
  return protoLoader.loadSync(path.join(protoDir, 'runtime', api, 'api.proto'), loaderOptions);
}
