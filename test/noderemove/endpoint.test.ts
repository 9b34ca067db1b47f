// Where `inv node-remove` finds the runtime, and how it names the node (issue 18): the flag, then
// CONTAINER_RUNTIME_ENDPOINT, then crictl's configuration file, then the well-known sockets; the
// node is --node-name or NODE_NAME, never the hostname; --timeout is the deprecated name of
// --call-timeout. Against the run's real private containerd (dry runs: nothing is removed).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chooseRuntimeEndpoint, WELL_KNOWN_ENDPOINTS } from '../../src/core/cri/endpoint-choice.js';
import { criAvailable, criEndpoint } from '../support/cri.js';
import { repoRoot } from '../support/paths.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** node-remove with exactly these arguments and variables (none inherited that would choose a runtime). */
function nodeRemove(args: string[], env: Record<string, string>): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of ['CONTAINER_RUNTIME_ENDPOINT', 'CRI_CONFIG_FILE', 'NODE_NAME']) delete base[k];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, 'bin', 'run.js'), 'node-remove', ...args],
      { env: { ...base, ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
          stdout,
          // One line per message, whatever wrapping the error style does.
          stderr: stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' '),
        }),
    );
  });
}

const ok = (r: Run) => {
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { node: string; runtime: { name: string } };
};

describe('node-remove: choosing the runtime endpoint', function () {
  let tmp: string;
  let missing: string;
  const probe = ['--images', 'docker.io/invtest/none:1', '--dry-run', '-o', 'json'];

  before(function () {
    if (!criAvailable()) this.skip();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-nr-endpoint-'));
    missing = `unix://${path.join(tmp, 'missing.sock')}`;
  });
  after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

  const crictl = (name: string, text: string) => {
    const f = path.join(tmp, name);
    fs.writeFileSync(f, text);
    return f;
  };

  it('uses CONTAINER_RUNTIME_ENDPOINT when no flag is given', async () => {
    const r = ok(await nodeRemove(probe, { CONTAINER_RUNTIME_ENDPOINT: criEndpoint() }));
    assert.match(r.runtime.name, /containerd/);
  });

  it("uses runtime-endpoint from crictl's configuration (CRI_CONFIG_FILE) when the variable is unset", async () => {
    const file = crictl(
      'crictl.yaml',
      `runtime-endpoint: ${criEndpoint()}\nimage-endpoint: ${missing}\ntimeout: 2\n`,
    );
    const r = ok(await nodeRemove(probe, { CRI_CONFIG_FILE: file }));
    assert.match(r.runtime.name, /containerd/);
  });

  it('the flag wins over the variable, and the variable over the file', async () => {
    const wrongFile = crictl('wrong.yaml', `runtime-endpoint: ${missing}\n`);
    ok(
      await nodeRemove(['--runtime-endpoint', criEndpoint(), ...probe], {
        CONTAINER_RUNTIME_ENDPOINT: missing,
        CRI_CONFIG_FILE: wrongFile,
      }),
    );
    ok(await nodeRemove(probe, { CONTAINER_RUNTIME_ENDPOINT: criEndpoint(), CRI_CONFIG_FILE: wrongFile }));
    const viaFile = await nodeRemove(probe, { CRI_CONFIG_FILE: wrongFile });
    assert.equal(viaFile.code, 2);
    assert.ok(viaFile.stderr.includes('missing.sock'), viaFile.stderr);
  });

  it('refuses a crictl configuration it cannot read, naming the file (exit 2)', async () => {
    const bad = crictl('bad.yaml', 'runtime-endpoint: [unclosed\n');
    const r = await nodeRemove(probe, { CRI_CONFIG_FILE: bad });
    assert.equal(r.code, 2);
    assert.ok(r.stderr.includes(bad), r.stderr);
    const list = crictl('list.yaml', '- a\n- b\n');
    const r2 = await nodeRemove(probe, { CRI_CONFIG_FILE: list });
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /must be a mapping/);
  });

  it('without any of them, names every socket it tried (when this machine has none of them)', async function () {
    const present = WELL_KNOWN_ENDPOINTS.filter((e) => fs.existsSync(e.slice('unix://'.length)));
    if (present.length > 0) this.skip();
    const r = await nodeRemove(probe, { CRI_CONFIG_FILE: crictl('empty.yaml', '') });
    assert.equal(r.code, 2);
    for (const e of WELL_KNOWN_ENDPOINTS) assert.ok(r.stderr.includes(e.slice('unix://'.length)), r.stderr);
  });

  it('tries the well-known sockets in their documented order (containerd, CRI-O, cri-dockerd, …)', () => {
    const empty = crictl('empty2.yaml', '');
    const seen: string[] = [];
    const choose = (present: string[]) =>
      chooseRuntimeEndpoint({
        env: { CRI_CONFIG_FILE: empty },
        isSocket: (p) => {
          seen.push(p);
          return present.includes(p);
        },
      });
    assert.deepEqual(choose(['/run/crio/crio.sock', '/var/run/cri-dockerd.sock']), {
      endpoint: 'unix:///run/crio/crio.sock',
      source: 'found',
    });
    assert.deepEqual(seen, ['/run/containerd/containerd.sock', '/run/crio/crio.sock']);
    assert.equal(choose(['/var/run/cri-dockerd.sock']).endpoint, 'unix:///var/run/cri-dockerd.sock');
    assert.equal(
      choose(['/run/containerd/containerd.sock']).endpoint,
      'unix:///run/containerd/containerd.sock',
    );
  });

  it('documents the order in --help', async () => {
    const r = await nodeRemove(['--help'], {});
    assert.equal(r.code, 0, r.stderr);
    const all = r.stdout.replace(/\s+/g, ' ');
    const text = all.slice(all.indexOf('first found wins'));
    const order = [
      '--runtime-endpoint;',
      'CONTAINER_RUNTIME_ENDPOINT',
      'crictl',
      'containerd /run/containerd',
      'CRI-O',
      'cri-dockerd',
    ];
    const at = order.map((w) => text.indexOf(w));
    assert.ok(
      at.every((i) => i >= 0),
      `help mentions ${order.join(', ')}`,
    );
    assert.deepEqual(
      [...at].sort((a, b) => a - b),
      at,
      'in this order',
    );
    assert.match(text, /--call-timeout/);
  });
});

describe('node-remove: the node name and the per-call timeout', function () {
  const probe = ['--images', 'docker.io/invtest/none:1', '--dry-run'];
  before(function () {
    if (!criAvailable()) this.skip();
  });

  it('names the node by NODE_NAME or --node-name, and never by the hostname', async () => {
    const env = { CONTAINER_RUNTIME_ENDPOINT: criEndpoint() };
    assert.equal(
      ok(await nodeRemove([...probe, '-o', 'json'], { ...env, NODE_NAME: 'node-a' })).node,
      'node-a',
    );
    assert.equal(
      ok(await nodeRemove([...probe, '--node-name', 'node-b', '-o', 'json'], { ...env, NODE_NAME: 'node-a' }))
        .node,
      'node-b',
    );
    const none = await nodeRemove([...probe, '-o', 'json'], env);
    assert.equal(ok(none).node, '');
    const table = await nodeRemove(probe, env);
    assert.equal(table.code, 0, table.stderr);
    assert.ok(!table.stdout.includes(`Node ${os.hostname()}`), table.stdout);
  });

  it('accepts --timeout as a deprecated alias of --call-timeout, with a warning', async () => {
    const env = { CONTAINER_RUNTIME_ENDPOINT: criEndpoint() };
    const r = await nodeRemove([...probe, '--timeout', '3s', '-o', 'json'], env);
    ok(r);
    assert.match(r.stderr, /--timeout.*deprecated.*--call-timeout|deprecated.*--timeout.*--call-timeout/is);
    const bad = await nodeRemove([...probe, '--call-timeout', 'soon'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--call-timeout/);
    const quiet = await nodeRemove([...probe, '--call-timeout', '3s', '-o', 'json'], env);
    ok(quiet);
    assert.doesNotMatch(quiet.stderr, /deprecated/);
  });
});
