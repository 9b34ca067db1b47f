// The generated CRI schemas and the codec (src/core/cri/codec.ts) against @grpc/proto-loader,
// which parses the same .proto files: both directions, for every message kind the CRI protos use,
// on both API versions. Also: the generated files are up to date with proto/.
import type * as protoLoader from '@grpc/proto-loader';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { decode, encode } from '../../../src/core/cri/codec.js';
import { TooManyEntriesError } from '../../../src/core/cri/limits.js';
import { schema as v1 } from '../../../src/core/cri/generated/v1.js';
import { schema as v1alpha2 } from '../../../src/core/cri/generated/v1alpha2.js';
import { loadCriDefinition } from '../../support/cri-proto-loader.js';
import { repoRoot } from '../../support/paths.js';

type Msg = Record<string, unknown>;

const samples: [string, Msg][] = [
  ['VersionRequest', { version: '0.1.0' }],
  [
    'VersionResponse',
    { version: '0.1.0', runtimeName: 'containerd', runtimeVersion: 'v1.6', runtimeApiVersion: 'v1' },
  ],
  [
    'ListImagesResponse',
    {
      images: [
        {
          id: 'sha256:' + 'a'.repeat(64),
          repoTags: ['docker.io/library/busybox:1.36', 'x:y'],
          repoDigests: ['docker.io/library/busybox@sha256:' + 'b'.repeat(64)],
          size: '18446744073709551615', // uint64 max: no precision lost
          uid: { value: '-42' },
          username: 'nobody',
          spec: { image: 'busybox', annotations: { a: '1', 'ü/ß': 'ünïcode' } },
          pinned: true,
        },
        { id: 'sha256:' + 'c'.repeat(64) },
      ],
    },
  ],
  ['ListContainersRequest', { filter: { state: { state: 'CONTAINER_RUNNING' }, labelSelector: { k: 'v' } } }],
  [
    'PodSandboxStatusResponse',
    { status: { id: 'p', state: 'SANDBOX_NOTREADY', createdAt: '-1' }, info: { info: '{}' } },
  ],
  ['RemoveImageRequest', { image: { image: 'busybox' } }],
  ['RemoveImageResponse', {}],
];

function fromLoader(def: protoLoader.PackageDefinition, pkg: string, type: string) {
  // Requests and responses share one serializer per method; find a method carrying `type`.
  for (const svc of ['RuntimeService', 'ImageService']) {
    const methods = def[`${pkg}.${svc}`] as protoLoader.ServiceDefinition;
    for (const m of Object.values(methods)) {
      if ((m.requestType as { type: { name: string } }).type.name === type)
        return { ser: m.requestSerialize, de: m.requestDeserialize };
      if ((m.responseType as { type: { name: string } }).type.name === type)
        return { ser: m.responseSerialize, de: m.responseDeserialize };
    }
  }
  throw new Error(`${type} is no method's request or response`);
}

for (const [api, schema] of [
  ['v1', v1],
  ['v1alpha2', v1alpha2],
] as const) {
  describe(`CRI codec (${api}) against proto-loader`, () => {
    const def = loadCriDefinition(api);
    for (const [type, msg] of samples) {
      it(`${type}: the same bytes decode to the same object`, () => {
        const loader = fromLoader(def, `runtime.${api}`, type);
        const ours = encode(schema, type, msg);
        assert.deepEqual(decode(schema, type, ours), loader.de(loader.ser(msg)));
        assert.deepEqual(decode(schema, type, loader.ser(msg) as Buffer), loader.de(ours));
      });
    }
  });
}

describe('CRI codec details', () => {
  it('fills defaults the way proto-loader does (absent messages null, int64 "0", first enum value)', () => {
    assert.deepEqual(decode(v1, 'PodSandbox', Buffer.alloc(0)), {
      id: '',
      metadata: null,
      state: 'SANDBOX_READY',
      createdAt: '0',
      labels: {},
      annotations: {},
      runtimeHandler: '',
    });
  });

  it('skips fields it does not know (a newer runtime) and keeps unknown enum values as numbers', () => {
    // field 99 (varint 5), field 98 (bytes "xx"), then state = 7 (no such enum value)
    const buf = Buffer.from([0x98, 0x06, 5, 0x92, 0x06, 2, 0x78, 0x78, 0x18, 7]);
    const out = decode(v1, 'PodSandbox', buf);
    assert.equal(out.state, 7);
  });

  it('accepts snake_case names and numeric enums on the way in', () => {
    const a = encode(v1, 'ContainerFilter', { pod_sandbox_id: 'p', state: { state: 1 } });
    const b = encode(v1, 'ContainerFilter', { podSandboxId: 'p', state: { state: 'CONTAINER_RUNNING' } });
    assert.deepEqual(a, b);
  });

  it('refuses a truncated message and an unknown enum name', () => {
    assert.throws(() => decode(v1, 'VersionRequest', Buffer.from([0x0a, 5, 0x61])), /beyond/);
    assert.throws(() => encode(v1, 'ContainerStateValue', { state: 'NOPE' }), /NOPE is not a value/);
  });

  it('stops decoding past an entry budget: messages, repeated values and map entries all count', () => {
    const images = encode(v1, 'ListImagesResponse', {
      images: [{ id: 'a', repoTags: ['t1', 't2'] }, { id: 'b' }],
    });
    // The answer, 2 images, 2 tags: 5 entries.
    assert.equal((decode(v1, 'ListImagesResponse', images, 5).images as Msg[]).length, 2);
    assert.throws(() => decode(v1, 'ListImagesResponse', images, 4), TooManyEntriesError);
    // Empty images are 2 bytes each: bytes alone would let millions through.
    const empty = Buffer.alloc(2 * 1000, Buffer.from([0x0a, 0x00]));
    assert.throws(() => decode(v1, 'ListImagesResponse', empty, 999), /more than 999 entries/);
    const labels = encode(v1, 'Container', { id: 'c', labels: { a: '1', b: '2', c: '3' } });
    assert.throws(() => decode(v1, 'Container', labels, 3), TooManyEntriesError);
    assert.equal(Object.keys(decode(v1, 'Container', labels, 4).labels as Msg).length, 3);
  });

  it('the generated schemas are up to date with proto/ (scripts/cri-codegen.mjs --check)', function () {
    this.timeout(30_000);
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'cri-codegen.mjs'), '--check'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
  });
});
