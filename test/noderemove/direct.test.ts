// The worker's start without oclif (src/bundle/direct.ts): `inv node-remove` from the production
// bundle, as the worker image runs it, against the run's real containerd. The direct start and
// oclif's (INV_NO_DIRECT=1) must print the same report and errors and exit alike; oclif's debug
// output (DEBUG=oclif*, on a successful run) shows which one ran.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CriClient } from '../../src/core/cri/index.js';
import { connect, criAvailable, criEndpoint, waitForImages } from '../support/cri.js';
import { addImages } from '../support/oci.js';
import { outcomes, runNodeRemove, type CliRun } from './helpers.js';

describe('inv node-remove: the direct start of the bundle', function () {
  let cri: CriClient;
  let endpoint: string;
  let tmp: string;
  const run = randomBytes(3).toString('hex');
  const repo = (name: string) => `docker.io/invtest${run}/${name}`;
  const direct = { INV_BUNDLE: '1', DEBUG: 'oclif*' };
  const viaOclif = { INV_BUNDLE: '1', DEBUG: 'oclif*', INV_NO_DIRECT: '1' };
  const plain = { INV_BUNDLE: '1' };
  const plainOclif = { INV_BUNDLE: '1', INV_NO_DIRECT: '1' };
  const oclifRan = (r: CliRun) => /oclif/.test(r.stderr);

  before(async function () {
    if (!criAvailable()) this.skip();
    endpoint = criEndpoint();
    cri = await connect();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-direct-'));
  });
  after(() => {
    cri?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('removes as oclif does, without loading oclif', async () => {
    const built = await addImages([
      { refs: [`${repo('a')}:1`], distinct: `${run}-a` },
      { refs: [`${repo('b')}:1`], distinct: `${run}-b` },
    ]);
    await waitForImages(
      cri,
      built.map((b) => b.id),
    );
    const list = path.join(tmp, 'images.json');
    const results: CliRun[] = [];
    for (const [i, env] of [direct, viaOclif].entries()) {
      fs.writeFileSync(list, JSON.stringify([`${repo(i === 0 ? 'a' : 'b')}:1`, `${repo('gone')}:1`]));
      results.push(await runNodeRemove(endpoint, ['--imagelist', list, '-o', 'json'], env));
    }
    const [d, o] = results as [CliRun, CliRun];
    assert.equal(oclifRan(d), false, d.stderr);
    assert.equal(oclifRan(o), true, 'INV_NO_DIRECT=1 runs through oclif');
    assert.equal(d.code, o.code);
    assert.deepEqual(Object.values(outcomes(d)), ['removed', 'not-present']);
    assert.deepEqual(Object.values(outcomes(d)), Object.values(outcomes(o)));
    assert.deepEqual(Object.keys(d.json!), Object.keys(o.json!));
    assert.equal(d.json!.node, 'test-node');
  });

  it('fails as oclif does: the same message and exit code', async () => {
    const cases: string[][] = [
      [], // nothing to remove
      ['--images', 'x', '--call-timeout', 'soon'], // a bad duration
      ['--images', 'x', '--imagelist', path.join(tmp, 'missing.json')],
    ];
    for (const args of cases) {
      const d = await runNodeRemove(endpoint, args, plain);
      const o = await runNodeRemove(endpoint, args, plainOclif);
      assert.equal(d.code, 2, d.stderr);
      assert.equal(o.code, 2, o.stderr);
      assert.equal(d.stderr, o.stderr);
      assert.match(d.stderr, /^error: /);
    }
    const bad = await runNodeRemove('unix:///nonexistent/inv.sock', ['--images', 'x'], plain);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^error: cannot connect to the container runtime/m);
  });

  it('hands help, unknown flags and bad values to oclif', async () => {
    const help = await runNodeRemove(endpoint, ['--help'], plain);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /USAGE/);
    const unknown = await runNodeRemove(endpoint, ['--images', 'x', '--bogus'], plain);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /^error: Nonexistent flag: --bogus/m);
    const format = await runNodeRemove(endpoint, ['--images', 'x', '-o', 'xml'], plain);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /^error: .*xml/m);
  });
});
