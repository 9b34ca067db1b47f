// The worker's memory is bounded for any runtime answer (src/core/cri/limits.ts): an answer over
// 4 MiB or over 50,000 entries is refused with the reason, nothing is removed (exit 2), and the
// worst answers within the limits stay well under the worker Pod's 256 MiB.
// `inv node-remove` runs as the worker runs it (the production bundle, the worker Pod's
// NODE_OPTIONS) against the real containerd behind the fault proxy, which serves prepared huge
// answers; peak RSS is the process's own VmHWM. Once, 100,000 images peaked at 430-560 MB and
// 1 million tags at 820-870 MB, and the Pod was OOM-killed with no reason but "OOMKilled".
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WORKER_NODE_OPTIONS } from '../../src/core/erase/worker.js';
import { MAX_ANSWER_BYTES, MAX_ANSWER_ENTRIES } from '../../src/core/cri/limits.js';
import { serveFaultProxy, type FaultProxy } from './fault-proxy.js';
import { criAvailable, criEndpoint } from '../support/cri.js';
import { repoRoot } from '../support/paths.js';

/** Well under the worker Pod's memory limit (256 MiB = 268 MB): the margin is the point. */
const PEAK_LIMIT_MB = 200;

// Protocol buffers by hand: the answers are built as bytes, never as objects in this process.
const varint = (n: number) => {
  const b: number[] = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) b.push((n & 0x7f) | 0x80);
  b.push(n);
  return Buffer.from(b);
};
const field = (no: number, body: Buffer) => Buffer.concat([varint((no << 3) | 2), varint(body.length), body]);
const str = (no: number, s: string) => field(no, Buffer.from(s));
const hex = (i: number) => i.toString(16).padStart(8, '0').repeat(8);

/** ListImagesResponse: `n` images, each with `tags` tags of `tagLength` characters and a digest. */
function imagesAnswer(n: number, tags: number, tagLength = 0): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const inner = [str(1, `sha256:${hex(i)}`)];
    for (let t = 0; t < tags; t++) {
      const tag = `r.example.com/team/app-${i}:v${t}`;
      inner.push(str(2, tag + 'v'.repeat(Math.max(0, tagLength - tag.length))));
    }
    inner.push(str(3, `r.example.com/team/app-${i}@sha256:${hex(i + 1)}`), Buffer.from([0x20]), varint(1e6));
    out.push(field(1, Buffer.concat(inner)));
  }
  return Buffer.concat(out);
}

/** ListContainersResponse: `n` exited containers, each with one label of `labelLength` bytes. */
function containersAnswer(n: number, labelLength: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const label = field(8, Buffer.concat([str(1, 'k'), str(2, 'x'.repeat(labelLength))]));
    out.push(field(1, Buffer.concat([str(1, `c${i}`), str(5, `sha256:${hex(i + 1e6)}`), label])));
  }
  return Buffer.concat(out);
}

interface Run {
  code: number;
  stderr: string;
  peakMB: number;
  json?: { results: { outcome: string }[] };
}

describe('inv node-remove: memory bounded for any runtime answer (fault proxy, real containerd)', function () {
  this.timeout(120_000);
  let proxy: FaultProxy;
  let tmp: string;
  let preload: string;

  before(async function () {
    if (!criAvailable()) this.skip();
    proxy = await serveFaultProxy(criEndpoint());
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-nr-limits-'));
    preload = path.join(tmp, 'peak.mjs');
    fs.writeFileSync(
      preload,
      "import { readFileSync } from 'node:fs';\n" +
        "process.on('exit', () => process.stderr.write(`PEAK_KB ${/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]}\\n`));\n",
    );
  });
  after(async () => {
    await proxy?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });
  afterEach(() => {
    proxy?.heal('ImageService/ListImages');
    proxy?.heal('RuntimeService/ListContainers');
  });

  /** node-remove as the worker Pod runs it: the bundle, the Pod's NODE_OPTIONS. */
  const nodeRemove = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(repoRoot, 'bin', 'run.js'), 'node-remove', '--runtime-endpoint', proxy.endpoint, ...args],
        {
          env: {
            ...process.env,
            INV_BUNDLE: '1',
            NODE_OPTIONS: `${WORKER_NODE_OPTIONS} --import ${preload}`,
            NODE_NAME: 'test-node',
          },
          maxBuffer: 256 * 1024 * 1024,
          timeout: 100_000,
        },
        (err, stdout, stderr) => {
          const kb = /PEAK_KB (\d+)/.exec(stderr);
          const run: Run = {
            code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
            stderr,
            peakMB: kb ? Math.round(Number(kb[1]) / 1024) : NaN,
          };
          try {
            run.json = JSON.parse(stdout);
          } catch {
            // refused runs print nothing on stdout
          }
          resolve(run);
        },
      );
    });

  const refusedWithReason = async (reason: RegExp) => {
    const before = proxy.calls.length;
    const r = await nodeRemove(['--images', '*', '-o', 'json']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, reason);
    assert.ok(!proxy.calls.slice(before).includes('ImageService/RemoveImage'), 'nothing removed');
    assert.ok(r.peakMB < PEAK_LIMIT_MB, `peak ${r.peakMB} MB`);
    return r;
  };

  it('100,000 images and 1 million tags are refused by size, with the reason, before they are read', async () => {
    const big = imagesAnswer(100_000, 1);
    assert.ok(big.length > MAX_ANSWER_BYTES);
    proxy.replace('ImageService/ListImages', big);
    const a = await refusedWithReason(
      new RegExp(
        `answered ListImages with ${big.length} bytes, more than ${MAX_ANSWER_BYTES}, the most inv reads`,
      ),
    );
    proxy.replace('ImageService/ListImages', imagesAnswer(1, 1_000_000));
    const b = await refusedWithReason(/answered ListImages with \d+ bytes, more than/);
    process.stderr.write(
      `      peak RSS: 100,000 images ${a.peakMB} MB, 1,000,000 tags ${b.peakMB} MB (refused)\n`,
    );
  });

  it('an answer of more entries than the limit is refused, however small in bytes', async () => {
    // 50,000 empty images: 100 kB, which once decoded to 50,000 objects (8 million at 16 MiB).
    proxy.replace('ImageService/ListImages', Buffer.alloc(2 * MAX_ANSWER_ENTRIES, Buffer.from([0x0a, 0x00])));
    const r = await refusedWithReason(
      new RegExp(`ListImages, but the answer has more than ${MAX_ANSWER_ENTRIES} entries`),
    );
    process.stderr.write(`      peak RSS: ${MAX_ANSWER_ENTRIES} empty images ${r.peakMB} MB (refused)\n`);
  });

  it('the worst answers within the limits stay well under 256 MiB', async () => {
    const peaks: string[] = [];
    // The most rows: one entry per image (no ID, no names), a row each.
    proxy.replace(
      'ImageService/ListImages',
      Buffer.alloc(2 * (MAX_ANSWER_ENTRIES - 1), Buffer.from([0x0a, 0x00])),
    );
    let r = await nodeRemove(['--images', '*', '--dry-run', '-o', 'json']);
    assert.equal(r.code, 1, r.stderr); // images without an ID are refused (runtime-answers.ts)
    assert.equal(r.json?.results.length, MAX_ANSWER_ENTRIES - 1);
    assert.ok(r.peakMB < PEAK_LIMIT_MB, `peak ${r.peakMB} MB`);
    peaks.push(`${MAX_ANSWER_ENTRIES - 1} empty images ${r.peakMB} MB`);
    // The most real-looking images: a tag and a digest each (3 entries).
    const n = Math.floor((MAX_ANSWER_ENTRIES - 1) / 3);
    proxy.replace('ImageService/ListImages', imagesAnswer(n, 1));
    r = await nodeRemove(['--images', '*', '--dry-run', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json?.results.filter((x) => x.outcome === 'would-remove').length, n);
    assert.ok(r.peakMB < PEAK_LIMIT_MB, `peak ${r.peakMB} MB`);
    peaks.push(`${n} images ${r.peakMB} MB`);
    // The most bytes: an image list and a container list just under 4 MiB each, removing (every
    // removal re-reads the containers). The images exist only in the proxy's answer, so the
    // real containerd's RemoveImage finds nothing to remove.
    proxy.replace('ImageService/ListImages', imagesAnswer(10, 1, 415_000));
    proxy.replace('RuntimeService/ListContainers', containersAnswer(260, 16_000));
    r = await nodeRemove(['--images', '*', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json?.results.filter((x) => x.outcome === 'removed').length, 10);
    assert.ok(r.peakMB < PEAK_LIMIT_MB, `peak ${r.peakMB} MB`);
    peaks.push(`4 MiB of images and 4 MiB of containers, removing, ${r.peakMB} MB`);
    process.stderr.write(`      peak RSS: ${peaks.join('; ')}\n`);
  });
});
