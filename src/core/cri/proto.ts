// grpc-js client constructors for the CRI services, from the message schemas generated at build
// time (scripts/cri-codegen.mjs → generated/) and the codec in codec.ts: no .proto file is read
// or parsed at run time. Method names are the proto's (Version, ListImages, …).
import * as grpc from '@grpc/grpc-js';
import { decode, encode, type ProtoSchema } from './codec.js';
import { MAX_ANSWER_ENTRIES } from './limits.js';
import { schema as v1 } from './generated/v1.js';
import { schema as v1alpha2 } from './generated/v1alpha2.js';
import type { CriApiVersion } from './messages.js';

const schemas: Record<CriApiVersion, ProtoSchema> = { v1, v1alpha2 };

export interface CriServices {
  RuntimeService: grpc.ServiceClientConstructor;
  ImageService: grpc.ServiceClientConstructor;
}

const cache = new Map<CriApiVersion, CriServices>();

function serviceClient(schema: ProtoSchema, service: string): grpc.ServiceClientConstructor {
  const methods: Record<string, grpc.MethodDefinition<Record<string, unknown>, Record<string, unknown>>> = {};
  for (const [name, [req, res]] of Object.entries(schema.services[service] ?? {})) {
    methods[name] = {
      path: `/${schema.package}.${service}/${name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (v: Record<string, unknown>) => encode(schema, req, v),
      requestDeserialize: (b: Buffer) => decode(schema, req, b),
      responseSerialize: (v: Record<string, unknown>) => encode(schema, res, v),
      // Every answer bounded in entries (limits.ts); grpc-js bounds its bytes.
      responseDeserialize: (b: Buffer) => decode(schema, res, b, MAX_ANSWER_ENTRIES),
      originalName: name,
    };
  }
  return grpc.makeGenericClientConstructor(methods, `${schema.package}.${service}`);
}

/** Client constructors for one API version; built once per process, and only when needed. */
export function services(api: CriApiVersion): CriServices {
  const hit = cache.get(api);
  if (hit) return hit;
  const out: CriServices = {
    RuntimeService: serviceClient(schemas[api], 'RuntimeService'),
    ImageService: serviceClient(schemas[api], 'ImageService'),
  };
  cache.set(api, out);
  return out;
}
