// The developer scripts reviewers and later issues rely on: `npm run cluster:up/down` and
// `npm run cri:up/down`, run exactly as documented (in their own directories, so they do not
// disturb the run's shared API server and containerd).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';

function npmRun(script: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync('npm', ['run', '-s', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 240_000,
  });
  return { status: r.status, lines: r.stdout.trim().split('\n'), stderr: r.stderr };
}

describe('developer scripts', function () {
  this.timeout(300_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-scripts-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('cluster:up prints an admin kubeconfig path last, reuses a running server, and cluster:down removes it', () => {
    const env = { INV_CLUSTER_DIR: path.join(tmp, 'cluster') };
    const first = npmRun('cluster:up', env);
    assert.equal(first.status, 0, first.stderr);
    const kubeconfig = first.lines.at(-1)!;
    assert.ok(path.isAbsolute(kubeconfig) && fs.existsSync(kubeconfig), kubeconfig);
    assert.match(fs.readFileSync(kubeconfig, 'utf8'), /server: https:\/\/127\.0\.0\.1:\d+/);
    const pid = fs.readFileSync(path.join(env.INV_CLUSTER_DIR, 'pid'), 'utf8');
    const second = npmRun('cluster:up', env);
    assert.equal(second.status, 0);
    assert.equal(second.lines.at(-1), kubeconfig);
    assert.match(second.stderr, /reusing running server/);
    assert.equal(fs.readFileSync(path.join(env.INV_CLUSTER_DIR, 'pid'), 'utf8'), pid);
    assert.equal(npmRun('cluster:down', env).status, 0);
    assert.ok(!fs.existsSync(env.INV_CLUSTER_DIR));
    assert.throws(() => process.kill(Number(pid), 0), 'the server process is gone');
  });

  it('cri:up prints the unix endpoint last, and cri:down stops it', () => {
    const env = { INV_CRI_DIR: path.join(tmp, 'cri') };
    const up = npmRun('cri:up', env);
    assert.equal(up.status, 0, up.stderr);
    const endpoint = up.lines.at(-1)!;
    assert.equal(endpoint, `unix://${path.join(env.INV_CRI_DIR, 'containerd.sock')}`);
    assert.ok(fs.existsSync(endpoint.slice('unix://'.length)));
    assert.equal(npmRun('cri:down', env).status, 0);
    assert.ok(!fs.existsSync(env.INV_CRI_DIR));
  });
});
