// Loads the project's CRI .proto files (proto/runtime/<version>/api.proto) into grpc-js client
// constructors. The files ship with the package ("files" in package.json), and are found by
// walking up from this module, so the same code works from src/ and from dist/src/.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CriApiVersion } from './types.js';

/**
 * Decoding options shared by the client and the tests' fake servers: camelCase field names,
 * enums as names, int64 as strings (no precision loss), defaults filled (no undefined lists).
 */
export const loaderOptions: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

let root: string | undefined;

/** Directory holding runtime/v1/api.proto and runtime/v1alpha2/api.proto. */
export function protoDir(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'proto');
    if (fs.existsSync(path.join(candidate, 'runtime', 'v1', 'api.proto'))) return (root = candidate);
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error('CRI proto files not found (expected proto/runtime/v1/api.proto in the package)');
    dir = parent;
  }
}

export interface CriServices {
  RuntimeService: grpc.ServiceClientConstructor;
  ImageService: grpc.ServiceClientConstructor;
}

const cache = new Map<CriApiVersion, CriServices>();

/** Client constructors for one API version; parsed once per process, and only when needed. */
export function services(api: CriApiVersion): CriServices {
  const hit = cache.get(api);
  if (hit) return hit;
  const def = protoLoader.loadSync(path.join(protoDir(), 'runtime', api, 'api.proto'), loaderOptions);
  const pkg = (grpc.loadPackageDefinition(def).runtime as grpc.GrpcObject)[api] as grpc.GrpcObject;
  const out: CriServices = {
    RuntimeService: pkg.RuntimeService as grpc.ServiceClientConstructor,
    ImageService: pkg.ImageService as grpc.ServiceClientConstructor,
  };
  cache.set(api, out);
  return out;
}
