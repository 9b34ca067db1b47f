// The developer scripts reviewers and later issues rely on: `npm run cluster:up/down` and
// `npm run cri:up/down`, run exactly as documented (in their own directories, so they do not
// disturb the run's shared API server and containerd).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';

function npmRun(script: string, env: NodeJS.ProcessEnv, args: string[] = []) {
  const r = spawnSync('npm', ['run', '-s', script, ...(args.length ? ['--', ...args] : [])], {
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

  it('cri:up -- --runtime containerd2 runs containerd 2.x next to 1.6; cri:down -- --runtime containerd2 stops it', () => {
    const env = { INV_CRI_DIR: path.join(tmp, 'cri1'), INV_CRI2_DIR: path.join(tmp, 'cri2') };
    const one = npmRun('cri:up', env);
    assert.equal(one.status, 0, one.stderr);
    const two = npmRun('cri:up', env, ['--runtime', 'containerd2']);
    assert.equal(two.status, 0, two.stderr);
    assert.equal(two.lines.at(-1), `unix://${path.join(env.INV_CRI2_DIR, 'containerd.sock')}`);
    assert.match(two.stderr, /containerd2 ready/);
    // Both answer at once, each with its own version.
    const version = (dir: string, ctr: string) =>
      spawnSync(ctr, ['--address', path.join(dir, 'containerd.sock'), 'version'], { encoding: 'utf8' })
        .stdout;
    assert.match(version(env.INV_CRI_DIR, 'ctr'), /Server:[\s\S]*Version:\s+1\.6\./);
    const ctr2 = path.join(repoRoot, '.cache', 'bin', 'containerd-v2.4.2', 'ctr');
    assert.match(version(env.INV_CRI2_DIR, ctr2), /Server:[\s\S]*Version:\s+v?2\./);
    const bad = npmRun('cri:up', env, ['--runtime', 'docker']);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--runtime docker: must be one of containerd, containerd2, crio/);
    assert.equal(npmRun('cri:down', env, ['--runtime', 'containerd2']).status, 0);
    assert.ok(!fs.existsSync(env.INV_CRI2_DIR));
    assert.ok(fs.existsSync(env.INV_CRI_DIR), 'the 1.6 one still runs');
    assert.equal(npmRun('cri:down', env).status, 0);
  });

  it('cri:up -- --runtime crio runs CRI-O with its pause image pulled in; cri:down -- --runtime crio stops it', () => {
    const env = { INV_CRIO_DIR: path.join(tmp, 'crio') };
    const up = npmRun('cri:up', env, ['--runtime', 'crio']);
    assert.equal(up.status, 0, up.stderr);
    assert.equal(up.lines.at(-1), `unix://${path.join(env.INV_CRIO_DIR, 'crio.sock')}`);
    assert.match(up.stderr, /crio ready/);
    // Its configuration is its own: storage and run roots, the pause image pinned.
    const conf = fs.readFileSync(path.join(env.INV_CRIO_DIR, 'crio.conf'), 'utf8');
    assert.ok(conf.includes(`root = "${path.join(env.INV_CRIO_DIR, 'storage')}"`), conf);
    assert.match(conf, /pinned_images = \["inv\.test\/pause:1"\]/);
    const pid = Number(fs.readFileSync(path.join(env.INV_CRIO_DIR, 'pid'), 'utf8'));
    assert.equal(npmRun('cri:down', env, ['--runtime', 'crio']).status, 0);
    assert.ok(!fs.existsSync(env.INV_CRIO_DIR));
    assert.throws(() => process.kill(pid, 0), 'crio is gone');
  });
});
