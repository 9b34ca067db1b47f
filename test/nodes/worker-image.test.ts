// The worker image that the whole local cluster builds from the checkout (scripts/worker-image.mjs):
// a Node.js runtime with its libraries, the production dependencies and the compiled code, and
// nothing a worker does not run: no dev dependencies, tests, TypeScript sources or scripts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';

interface Built {
  file: string;
  ref: string;
  layerBytes: number;
  buildMs: number;
  reused: boolean;
}

function tarList(args: string[], input?: Buffer): string[] {
  const r = spawnSync('tar', args, { input, maxBuffer: 512 * 2 ** 20 });
  assert.equal(r.status, 0, r.stderr?.toString());
  return r.stdout.toString().split('\n').filter(Boolean);
}

describe('worker image (built without Docker)', function () {
  this.timeout(120_000);
  let built: Built;
  let files: string[];
  let layer: Buffer;
  before(async () => {
    const mod = (await import(path.join(repoRoot, 'scripts', 'worker-image.mjs'))) as {
      buildWorkerImage(): Built;
    };
    built = mod.buildWorkerImage();
    const outer = tarList(['-tf', built.file]);
    const index = JSON.parse(spawnSync('tar', ['-xOf', built.file, 'index.json']).stdout.toString()) as {
      manifests: { digest: string }[];
    };
    const manifest = JSON.parse(
      spawnSync('tar', [
        '-xOf',
        built.file,
        `blobs/sha256/${index.manifests[0]!.digest.slice(7)}`,
      ]).stdout.toString(),
    ) as { layers: { digest: string }[] };
    assert.equal(manifest.layers.length, 1);
    const layerPath = `blobs/sha256/${manifest.layers[0]!.digest.slice(7)}`;
    assert.ok(outer.includes(layerPath));
    layer = spawnSync('tar', ['-xOf', built.file, layerPath], { maxBuffer: 1024 * 2 ** 20 }).stdout;
    files = tarList(['-t'], layer);
    process.stderr.write(
      `      (${built.ref}: ${(built.layerBytes / 2 ** 20).toFixed(1)} MiB, ${files.length} entries, ${built.reused ? 'cached' : `built in ${built.buildMs} ms`})\n`,
    );
  });

  it('holds the runtime, its libraries, the compiled code and the production dependencies', () => {
    for (const f of [
      'usr/bin/node',
      'app/bin/run.js',
      'app/oclif.manifest.json',
      'app/package.json',
      'app/dist/src/commands/node-remove.js',
      'app/node_modules/@grpc/grpc-js/package.json',
      'app/node_modules/@oclif/core/package.json',
    ]) {
      assert.ok(files.includes(f), `${f} in the image`);
    }
    assert.ok(
      files.some((f) => /^lib(64)?\/.*ld-linux.*\.so/.test(f)),
      'the dynamic loader',
    );
    assert.ok(
      files.some((f) => /libstdc\+\+\.so/.test(f)),
      'the C++ runtime node links',
    );
    assert.ok(files.some((f) => f.startsWith('app/proto/')) && files.some((f) => f.startsWith('app/crds/')));
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const dep of Object.keys(pkg.dependencies))
      assert.ok(files.includes(`app/node_modules/${dep}/package.json`), `dependency ${dep}`);
  });

  it("runs Node 24 LTS from the npm registry's node-linux package, not the host's Node", async () => {
    const { nodeBinary, NODE_VERSIONS } = (await import(
      path.join(repoRoot, 'scripts', 'node-runtime.mjs')
    )) as {
      nodeBinary(line: number): string;
      NODE_VERSIONS: Record<number, string>;
    };
    const shipped = spawnSync('tar', ['-xO', 'usr/bin/node'], {
      input: layer,
      maxBuffer: 512 * 2 ** 20,
    }).stdout;
    assert.ok(shipped.equals(fs.readFileSync(nodeBinary(24))), 'usr/bin/node is the pinned Node 24 binary');
    assert.match(NODE_VERSIONS[24]!, /^24\./);
    const v = spawnSync(nodeBinary(24), ['--version'], { encoding: 'utf8' }).stdout.trim();
    assert.equal(v, `v${NODE_VERSIONS[24]}`);
  });

  it('holds no dev dependencies, tests, TypeScript sources, benchmarks or scripts', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([k, v]) => k.startsWith('node_modules/') && v.dev)
      .map(([k]) => `app/${k}/`);
    assert.ok(devOnly.some((d) => d.endsWith('/typescript/')) && devOnly.some((d) => d.endsWith('/mocha/')));
    const leaked = devOnly.filter((d) => files.some((f) => f.startsWith(d)));
    assert.deepEqual(leaked, [], 'dev-only packages in the image');
    for (const dir of [
      'app/src/',
      'app/test/',
      'app/dist/test/',
      'app/bench/',
      'app/scripts/',
      'app/.cache/',
    ])
      assert.ok(!files.some((f) => f.startsWith(dir)), `${dir} is not in the image`);
    assert.deepEqual(
      files.filter((f) => f.startsWith('app/dist/') && /\.(ts|map)$/.test(f)),
      [],
      'no sources or source maps of ours',
    );
    const devDeps = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const shipped = JSON.parse(
      spawnSync('tar', ['-xO', 'app/package.json'], { input: layer }).stdout.toString(),
    ) as Record<string, unknown>;
    assert.equal(shipped.devDependencies, undefined, 'the shipped package.json lists no dev dependencies');
    // A dev dependency that production also needs (e.g. @types/node, through client-node) is a
    // production package in the lockfile; every other one must be absent.
    for (const dep of Object.keys(devDeps.devDependencies)) {
      if (!lock.packages[`node_modules/${dep}`]?.dev) continue;
      assert.ok(!files.includes(`app/node_modules/${dep}/package.json`), `dev dependency ${dep}`);
    }
  });
});
