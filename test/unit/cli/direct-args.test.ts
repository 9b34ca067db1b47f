// src/cli/node-remove/direct-args.ts: the worker's node-remove read without oclif. It must agree with
// oclif's parser wherever it answers, and answer for every command line the controller writes.
import { Parser } from '@oclif/core';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDirect, type ManifestFlag } from '../../../src/cli/node-remove/direct-args.js';
import NodeRemove from '../../../src/commands/node-remove.js';
import { DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';
import type { ImageJob } from '../../../src/core/erase/api/types.js';
import { workerArgs } from '../../../src/core/erase/worker/pod-spec.js';
import { NODE_REMOVE_FLAGS } from '../../../src/core/contract/worker-command.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
// The manifest `npm run build` writes (the bundle ships the same flags).
const spec = (
  JSON.parse(fs.readFileSync(path.join(root, 'oclif.manifest.json'), 'utf8')) as {
    commands: Record<string, { flags: Record<string, ManifestFlag> }>;
  }
).commands['node-remove']!.flags;

const job = (over: Partial<ImageJob['spec']> = {}, protectedChunks = 0): ImageJob => ({
  metadata: { name: 'j1', uid: 'u1' },
  spec: {
    imageList: { name: 'l', uid: 'lu', generation: 1 },
    namespace: 'inv-system',
    images: ['nginx:1.25'],
    config: DEFAULT_CONFIG,
    ...over,
  },
  status: { protectedChunks },
});

async function oclifFlags(argv: string[], env: Record<string, string> = {}) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return (await Parser.parse(argv, { flags: NodeRemove.flags, strict: true, context: undefined })).flags;
  } finally {
    for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
  }
}

describe('direct flags for node-remove', () => {
  const agreed: string[][] = [
    [],
    ['--images', 'nginx:1.25'],
    ['--images=nginx:1.25,redis:7', '--images', 'busybox', '--dry-run'],
    ['--imagelist', '/run/x.json', '-o', 'json', '--no-headers'],
    ['--output=yaml', '--call-timeout', '750ms', '--exclude', 'a*', '--exclude=b*'],
    ['--runtime-endpoint', 'unix:///run/containerd/containerd.sock', '--node-name', 'n1'],
    ['--termination-message-path', '/tmp/t', '--protected-dir', '/p', '--exclude-file', '/e.json'],
  ];
  for (const argv of agreed) {
    it(`reads ${JSON.stringify(argv)} as oclif does`, async () => {
      const direct = parseDirect(argv, spec, {});
      assert.ok(direct, 'the direct reader answered');
      assert.deepEqual(normalize(direct), normalize(await oclifFlags(argv)));
    });
  }

  it('takes NODE_NAME from the environment, as oclif does, and a flag over it', async () => {
    const env = { NODE_NAME: 'node-7' };
    for (const argv of [
      ['--images', 'x'],
      ['--images', 'x', '--node-name', 'given'],
    ]) {
      const direct = parseDirect(argv, spec, env);
      assert.deepEqual(normalize(direct!), normalize(await oclifFlags(argv, env)));
    }
    assert.equal(parseDirect(['--images', 'x'], spec, env)!['node-name'], 'node-7');
  });

  it('leaves to oclif what it does not fully understand', () => {
    for (const argv of [
      ['--help'],
      ['-h'],
      ['--images', 'x', '--version'],
      ['--timeout', '5s'], // deprecated alias: oclif warns
      ['--bogus'],
      ['positional'],
      ['--', '--images', 'x'],
      ['-ojson'],
      ['-o', 'xml'], // not one of the options: oclif names them
      ['--output=xml'],
      ['--imagelist'], // missing value
      ['--imagelist', '--dry-run'],
      ['--imagelist', 'a', '--imagelist', 'b'], // a single flag twice
      ['--dry-run=true'],
      ['--dry-run', '--dry-run'],
      ['--no-dry-run'],
    ])
      assert.equal(parseDirect(argv, spec, {}), undefined, JSON.stringify(argv));
  });

  it("reads the manifest's flags as the contract declares them (worker-command.ts)", () => {
    const declared = Object.entries(NODE_REMOVE_FLAGS).map(([name, d]) => {
      const f = d as { kind: string; default?: string; env?: string; char?: string };
      return [name, f.kind, f.default, f.env, f.char];
    });
    const manifest = Object.entries(spec).map(([name, f]) => [
      name,
      f.type === 'boolean' ? 'boolean' : f.multiple ? 'strings' : 'string',
      f.default as string | undefined,
      f.env,
      f.char,
    ]);
    assert.deepEqual(manifest, declared);
  });

  it('reads every command line the erase controller writes for a worker', async () => {
    const settings = { worker: DEFAULT_CONFIG.worker, runtimeSocket: '/run/containerd/containerd.sock' };
    const trigger = { imageFs: { highPercent: 80.5, lowPercent: 70 }, minUnusedAge: '7d' };
    for (const j of [job(), job({ dryRun: true }), job({}, 3), job(trigger), job({ minUnusedAge: '12h' })]) {
      const [id, ...argv] = workerArgs(j, settings);
      assert.equal(id, 'node-remove');
      const direct = parseDirect(argv, spec, { NODE_NAME: 'n1' });
      assert.ok(direct, `direct start for ${JSON.stringify(argv)}`);
      assert.deepEqual(normalize(direct), normalize(await oclifFlags(argv, { NODE_NAME: 'n1' })));
    }
  });
});

/** oclif leaves an unset boolean out or false depending on the flag; both mean "not given". */
function normalize(flags: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined && v !== false));
}
