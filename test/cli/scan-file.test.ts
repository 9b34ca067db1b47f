// `inv scan -f` on what people actually pipe into it: process substitution (a FIFO), /dev/stdin
// (a pipe from a shell, a socket from a program), /dev/null and /dev/zero (character devices),
// a unix socket, UTF-16 files from PowerShell, skipped documents, hostile nesting and inputs
// past the size limit. Each runs the real binary.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';
import { runCli } from './run-cli.js';

const POD = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: shop}
spec: {containers: [{name: c, image: "redis:7"}]}
`;
const REDIS = 'docker.io/library/redis:7';
const bin = path.join(repoRoot, 'bin', 'run.js');

interface Offline {
  namespaces: { namespace: string; images: { image: string }[] }[];
  skipped: { apiVersion?: string; kind?: string; name?: string; reason: string }[];
  ignored: Record<string, number>;
}
const imagesOf = (stdout: string) =>
  (JSON.parse(stdout) as Offline).namespaces.flatMap((n) => n.images.map((i) => i.image));

/** Runs `inv` through bash, for shell-only constructs like <(...) and pipes. */
function shell(cmd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync('bash', ['-c', cmd], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', INV: `${process.execPath} ${bin}`, ...env },
    timeout: 60_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Spawns `inv` with its stdin a socket (what Node's child_process gives a child), writing `input`. */
function withSocketStdin(
  args: string[],
  input: string,
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('inv scan -f: inputs (files, streams, encodings, limits)', () => {
  let dir: string;
  const file = (name: string, content: string | Buffer) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scanf-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads process substitution <(...), a FIFO', () => {
    const p = file('pod.yaml', POD);
    const r = shell(`$INV scan -f <(cat ${p}) -o json`);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(imagesOf(r.stdout), [REDIS]);
  });

  it('reads /dev/stdin when it is a pipe (shell) and when it is a socket (spawned by a program)', async () => {
    const p = file('pod2.yaml', POD);
    const piped = shell(`cat ${p} | $INV scan -f /dev/stdin -o json`);
    assert.equal(piped.status, 0, piped.stderr);
    assert.deepEqual(imagesOf(piped.stdout), [REDIS]);

    // Confirm the premise: a child spawned with stdio 'pipe' has a socket on fd 0.
    const probe = spawnSync(
      process.execPath,
      ['-e', 'process.stdout.write(String(require("fs").fstatSync(0).isSocket()))'],
      {
        input: '',
        encoding: 'utf8',
      },
    );
    const sock = await withSocketStdin(['scan', '-f', '/dev/stdin', '-o', 'json'], POD);
    assert.equal(sock.status, 0, sock.stderr);
    assert.deepEqual(imagesOf(sock.stdout), [REDIS], `stdin was a socket: ${probe.stdout}`);
    const dash = await withSocketStdin(['scan', '-f', '-', '-o', 'json'], POD);
    assert.deepEqual(imagesOf(dash.stdout), [REDIS]);
  });

  it('reads a unix socket path as a stream', async () => {
    const sockPath = path.join(dir, 'manifests.sock');
    const server = net.createServer((c) => c.end(POD));
    await new Promise<void>((r) => server.listen(sockPath, r));
    try {
      const r = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, 'scan', '-f', sockPath, '-o', 'json'], {
          env: { ...process.env, NO_COLOR: '1' },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
      });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(imagesOf(r.stdout), [REDIS]);
    } finally {
      server.close();
    }
  });

  it('/dev/null (a character device) is read, holds nothing, and exits 1 saying so', () => {
    const r = runCli(['scan', '-f', '/dev/null', '-o', 'json']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /\/dev\/null: no Kubernetes objects could be read/);
    assert.doesNotMatch(r.stderr, /ENOTDIR|scandir/);
  });

  it('an endless stream (/dev/zero) stops at the size limit with exit 2', () => {
    const r = runCli(['scan', '-f', '/dev/zero', '--max-input-size', '1Mi']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /\/dev\/zero: larger than 1 MiB, the limit for one input/);
    const big = file('big.yaml', POD.repeat(100));
    const f = runCli(['scan', '-f', big, '--max-input-size', '1Ki']);
    assert.equal(f.status, 2);
    assert.match(f.stderr, /big\.yaml: larger than 1 KiB/);
    const bad = runCli(['scan', '-f', big, '--max-input-size', 'lots']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--max-input-size "lots": not a size/);
  });

  it('decodes UTF-16 (LE and BE) and UTF-8 files with a byte-order mark', () => {
    const le = file('ps.yaml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(POD, 'utf16le')]));
    const be = file(
      'be.yaml',
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(POD, 'utf16le').swap16()]),
    );
    const u8 = file('bom.yaml', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(POD)]));
    for (const p of [le, be, u8]) {
      const r = runCli(['scan', '-f', p, '-o', 'json']);
      assert.equal(r.status, 0, `${p}: ${r.stderr}`);
      assert.deepEqual(imagesOf(r.stdout), [REDIS], p);
    }
    const noBom = file('nobom.yaml', Buffer.from(POD, 'utf16le'));
    const r = runCli(['scan', '-f', noBom]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /nobom\.yaml: contains NUL characters/);
  });

  it('warns about every skipped document by kind, apiVersion and name; exits 1 only when nothing was read', () => {
    const mixed = file(
      'mixed.yaml',
      `apiVersion: apps/v1beta2
kind: Deployment
metadata: {name: old-api}
spec: {template: {spec: {containers: [{name: c, image: nginx}]}}}
---
${POD}---
apiVersion: v1
kind: Service
metadata: {name: svc}
---
just a string
---
kind: Pod
metadata: {name: no-version}
`,
    );
    const r = runCli(['scan', '-f', mixed, '-o', 'json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as Offline;
    assert.deepEqual(imagesOf(r.stdout), [REDIS]);
    assert.deepEqual(out.ignored, { Service: 1 });
    assert.deepEqual(
      out.skipped.map((s) => [s.apiVersion, s.kind, s.name]),
      [
        ['apps/v1beta2', 'Deployment', 'old-api'],
        [undefined, undefined, undefined],
        [undefined, 'Pod', 'no-version'],
      ],
    );
    assert.match(
      r.stderr,
      /warning: skipped apps\/v1beta2 Deployment old-api \(.*mixed\.yaml: document 1, line 1\): Deployment is read only as apps\/v1/,
    );
    assert.match(
      r.stderr,
      /warning: skipped document .*document 4, line 14.*not a Kubernetes object \(a string\)/,
    );
    assert.match(r.stderr, /warning: skipped Pod no-version .*: no apiVersion/);

    const none = file(
      'none.yaml',
      'apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: x}\n---\n42\n',
    );
    const n = runCli(['scan', '-f', none, '-o', 'json']);
    assert.equal(n.status, 1);
    assert.match(n.stderr, /skipped apps\/v1beta1 Deployment x/);
    assert.match(n.stderr, /none\.yaml: no Kubernetes objects could be read/);
    const emptyDir = fs.mkdtempSync(path.join(dir, 'empty-'));
    const e = runCli(['scan', '-f', emptyDir]);
    assert.equal(e.status, 1);
    assert.match(e.stderr, /no manifest files \(\*\.yaml, \*\.yml, \*\.json\) could be read/);
  });

  it('names the nesting limit for hostile nesting, in JSON and in YAML', () => {
    const deepJson = file('deep.json', `${'['.repeat(400)}${']'.repeat(400)}`);
    const j = runCli(['scan', '-f', deepJson]);
    assert.equal(j.status, 2);
    assert.match(j.stderr, /deep\.json: nested more than 100 levels deep, the limit for a manifest/);
    const deepList = file(
      'lists.json',
      `${'{"apiVersion":"v1","kind":"List","items":['.repeat(400)}${']}'.repeat(400)}`,
    );
    assert.match(runCli(['scan', '-f', deepList]).stderr, /nested more than 100 levels deep/);
    const deepYaml = file('deep.yaml', `${POD}---\nspec: ${'['.repeat(400)}${']'.repeat(400)}\n`);
    const y = runCli(['scan', '-f', deepYaml]);
    assert.equal(y.status, 2);
    assert.match(y.stderr, /deep\.yaml: line 6: nested more than 100 levels deep, the limit for a manifest/);
    assert.doesNotMatch(y.stderr + j.stderr, /call stack/);
  });

  it('reads a kubectl-style JSON List and multi-document YAML one document at a time (inv images -f too)', () => {
    const items = Array.from({ length: 300 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p${i}`, namespace: `ns${i % 3}` },
      spec: { containers: [{ name: 'c', image: `example.com/app${i % 10}:1` }] },
      status: { phase: 'Running' },
    }));
    const json = file('list.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const r = runCli(['scan', '-f', json, '-o', 'json']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(imagesOf(r.stdout).length, 30, '10 refs in each of 3 namespaces');
    const yaml = file('list.yaml', items.map((o) => `---\n${JSON.stringify(o)}\n`).join(''));
    const y = runCli(['scan', '-f', yaml, '-o', 'json']);
    assert.equal(y.stdout, r.stdout);
    const imgs = runCli(['images', '--offline', '-f', yaml, '-o', 'json']);
    assert.equal(imgs.status, 0, imgs.stderr);
    const nul = runCli(['images', '--offline', '-f', '/dev/null']);
    assert.equal(nul.status, 1);
  });

  it('skips a container whose image is not a string (inv scan -f and inv images --offline), naming the document', () => {
    const p = file(
      'unquoted.yaml',
      `${POD}---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers: [{name: a, image: 1.25}, {name: b, image: 2024-01-01}, {name: c, image: !!binary aGk=}]
---
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j", "namespace": "shop"},
 "spec": {"containers": [{"name": "d", "image": 125}]}}
`,
    );
    for (const args of [
      ['scan', '-f', p, '-o', 'json'],
      ['images', '--offline', '-f', p, '-o', 'json'],
    ]) {
      const r = runCli(args);
      assert.equal(r.status, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /is not a function/);
      assert.match(r.stdout, /docker\.io\/library\/redis:7/);
      for (const line of [
        'skipped container "a" of apps/v1 Deployment web (' +
          p +
          ': document 2, line 5): image is a number (1.25), not a string (quote it)',
        'skipped container "b" of apps/v1 Deployment web (' + p + ': document 2, line 5): image is a date',
        'skipped container "c" of apps/v1 Deployment web (' +
          p +
          ': document 2, line 5): image is binary data (2 bytes)',
        'skipped container "d" of v1 Pod j (' + p + ': document 3, line 13): image is a number (125)',
      ])
        assert.ok(r.stderr.includes(`warning: ${line}`), `${line}\nin:\n${r.stderr}`);
    }
  });
});
