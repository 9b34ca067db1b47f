// The worker image that the whole local cluster builds from the checkout (scripts/worker-image.mjs):
// a stripped Node.js runtime with its libraries and the production bundle, and nothing a worker
// does not run: no node_modules, tests, TypeScript sources or scripts. Its size is measured here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

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
  let imageConfig: { config: { Env: string[] } };
  before(async () => {
    const mod = (await import(path.join(repoRoot, 'scripts', 'worker-image.mjs'))) as {
      buildWorkerImage(): Promise<Built>;
    };
    built = await mod.buildWorkerImage();
    const outer = tarList(['-tf', built.file]);
    const blob = <T>(member: string): T =>
      JSON.parse(spawnSync('tar', ['-xOf', built.file, member]).stdout.toString()) as T;
    const index = blob<{ manifests: { digest: string }[] }>('index.json');
    const manifest = blob<{ config: { digest: string }; layers: { digest: string }[] }>(
      `blobs/sha256/${index.manifests[0]!.digest.slice(7)}`,
    );
    imageConfig = blob<{ config: { Env: string[] } }>(`blobs/sha256/${manifest.config.digest.slice(7)}`);
    assert.equal(manifest.layers.length, 1);
    const layerPath = `blobs/sha256/${manifest.layers[0]!.digest.slice(7)}`;
    assert.ok(outer.includes(layerPath));
    layer = spawnSync('tar', ['-xOf', built.file, layerPath], { maxBuffer: 1024 * 2 ** 20 }).stdout;
    files = tarList(['-t'], layer);
    process.stderr.write(
      `      (${built.ref}: ${(built.layerBytes / 2 ** 20).toFixed(1)} MiB, ${files.length} entries, ${built.reused ? 'cached' : `built in ${built.buildMs} ms`})\n`,
    );
  });

  it('holds the runtime, its libraries and the bundle, and no node_modules', () => {
    for (const f of [
      'usr/bin/node',
      'app/bin/run.js',
      'app/package.json',
      'app/dist/bundle/run.js',
      'app/dist/bundle/package.json',
      'app/dist/bundle/oclif.manifest.json',
      'app/dist/bundle/commands/node-remove.js',
      'app/dist/bundle/commands/watch.js',
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
    assert.ok(files.some((f) => f.startsWith('app/crds/')));
    assert.deepEqual(
      files.filter(
        (f) => f.includes('node_modules/') || f.startsWith('app/proto/') || f.startsWith('app/dist/src/'),
      ),
      [],
      'no node_modules, .proto files or tsc output: the bundle is the program',
    );
  });

  it('measures its size: a stripped Node 24 and its libraries, plus a program of a few MB', () => {
    const node = Number(/\d+/.exec(tarList(['-tv', 'usr/bin/node'], layer)[0]!.split(/\s+/)[2]!)![0]);
    const program = files.filter((f) => f.startsWith('app/') && !f.endsWith('/'));
    process.stderr.write(
      `      (layer ${(built.layerBytes / 2 ** 20).toFixed(1)} MiB = ${(built.layerBytes / 1e6).toFixed(1)} MB; node ${(node / 2 ** 20).toFixed(1)} MiB; ${program.length} program files)\n`,
    );
    // Node 24's official binary is 121 MiB unstripped, 103.7 MiB stripped; glibc and libstdc++
    // add 5.2 MiB. The issue's target (110 MB) is below what the stock binary allows; this
    // bounds what the project controls: the program (bundle, bin, CRDs) stays under 3 MiB.
    assert.ok(node < 110 * 2 ** 20, `node is ${node} bytes: not stripped?`);
    assert.ok(built.layerBytes - node < 9 * 2 ** 20, `libraries + program: ${built.layerBytes - node} bytes`);
    assert.ok(built.layerBytes < 112 * 2 ** 20, `layer ${built.layerBytes} bytes`);
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
    const { strippedNode } = (await import(path.join(repoRoot, 'scripts', 'strip-node.mjs'))) as {
      strippedNode(binary: string): string;
    };
    const stripped = strippedNode(nodeBinary(24));
    assert.ok(
      shipped.equals(fs.readFileSync(stripped)),
      'usr/bin/node is the pinned Node 24 binary, stripped',
    );
    assert.ok(shipped.length < fs.statSync(nodeBinary(24)).size, 'smaller than the official binary');
    assert.match(NODE_VERSIONS[24]!, /^24\./);
    // The stripped binary runs the bundle: the worker's own start-up path.
    const v = spawnSync(stripped, ['--version'], { encoding: 'utf8' }).stdout.trim();
    assert.equal(v, `v${NODE_VERSIONS[24]}`);
    const help = spawnSync(stripped, [path.join(repoRoot, 'bin', 'run.js'), 'node-remove', '--help'], {
      encoding: 'utf8',
      env: { ...process.env, INV_BUNDLE: '1' },
    });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /--runtime-endpoint/);
  });

  it('holds no tests, TypeScript sources, benchmarks or scripts, and ships no dependency list', () => {
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
    const shipped = JSON.parse(
      spawnSync('tar', ['-xO', 'app/package.json'], { input: layer }).stdout.toString(),
    ) as Record<string, unknown>;
    assert.equal(shipped.devDependencies, undefined, 'the shipped package.json lists no dev dependencies');
    assert.equal(shipped.scripts, undefined);
  });

  it("carries Node's compile cache for the worker's start, and the image's node accepts all of it", async () => {
    const cached = files.filter((f) => f.startsWith('app/.node-compile-cache/') && !f.endsWith('/'));
    assert.ok(cached.length >= 5, `cache files: ${cached.join(', ')}`);
    const config = imageConfig;
    assert.ok(
      config.config.Env.includes('NODE_COMPILE_CACHE=/app/.node-compile-cache'),
      config.config.Env.join(' '),
    );
    assert.ok(config.config.Env.includes('NODE_COMPILE_CACHE_PORTABLE=1'));

    // The image's own files, unpacked elsewhere: the worker's start under the worker Pod's
    // NODE_OPTIONS reads every module it loads from the cache, which it cannot write.
    const { WORKER_NODE_OPTIONS } = await import('../../../src/core/erase/worker/pod-spec.js');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-worker-root-'));
    try {
      const x = spawnSync('tar', ['-x', '-C', root], { input: layer, maxBuffer: 1024 * 2 ** 20 });
      assert.equal(x.status, 0, x.stderr?.toString());
      const cacheDir = path.join(root, 'app', '.node-compile-cache');
      const before = fs.readdirSync(cacheDir, { recursive: true }).map(String).sort();
      const r = spawnSync(
        path.join(root, 'usr', 'bin', 'node'),
        [
          path.join(root, 'app', 'bin', 'run.js'),
          'node-remove',
          '--runtime-endpoint',
          'unix:///nonexistent/cri.sock',
          '--images',
          'x',
          '-o',
          'json',
        ],
        {
          encoding: 'utf8',
          env: {
            PATH: '/usr/bin:/bin',
            NODE_OPTIONS: WORKER_NODE_OPTIONS,
            NODE_COMPILE_CACHE: cacheDir,
            NODE_COMPILE_CACHE_PORTABLE: '1',
            NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
          },
        },
      );
      assert.equal(r.status, 2, r.stderr);
      const accepted = r.stderr.split('\n').filter((l) => /code cache for .* was accepted/.test(l));
      assert.ok(accepted.length >= 5, r.stderr);
      assert.ok(
        accepted.some((l) => l.includes('dist/bundle/direct.js')),
        'the direct start is cached',
      );
      assert.doesNotMatch(r.stderr, /rejected|mismatch/i);
      assert.ok(
        fs.readdirSync(cacheDir, { recursive: true }).map(String).sort().length >= before.length,
        'nothing lost',
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
