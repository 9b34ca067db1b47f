// inv erase on a real pseudo-terminal (test/support/pty.ts): ^C while the spinner follows a job
// (run by another controller, or in this process with --standalone) and at the confirmation
// prompt ends the command within a second with exit 130, saying what keeps running and how to
// follow or cancel it; the prompt names the nodes and the kube context; the tables fit 80 and
// 200 columns.
import assert from 'node:assert/strict';
import { EXIT_INTERRUPTED } from '../../../src/cli/process/exit-codes.js';
import { CTRL_C, runOnPty } from '../../support/pty.js';
import { EraseEnv, eraseEnvPerTest, holdLease } from '../helpers.js';
import { envFlags } from './cli-helpers.js';

describe('inv erase on a terminal: Ctrl-C, prompts, widths (real pseudo-terminal)', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  let release: (() => Promise<void>) | undefined;
  eraseEnvPerTest((e) => (env = e), {
    beforeTeardown: async () => {
      await release?.();
      release = undefined;
    },
  });

  const common = () => [...envFlags(env), '--node-selector', `erase-test=${env.tag}`];

  it('^C while the spinner follows a job: exit 130 within a second; the job keeps running; how to follow or cancel it', async () => {
    await env.nodes([{ name: 'a' }, { name: 'b' }]);
    release = await holdLease(env, 'ctl');
    env.startControllers();
    env.startKubelet(() => 'hang');
    const r = await runOnPty(
      [
        'erase',
        '--images',
        `nothing-${env.tag}:1`,
        '--name',
        `int-${env.tag}`,
        ...common(),
        '--controller-lease',
        `${env.namespace}/ctl`,
      ],
      { cols: 80, steps: [{ wait: '2 running, 0 pending, 0/2 finished', send: CTRL_C }], timeoutMs: 60_000 },
    );
    assert.equal(r.stepsDone, 1, r.output);
    assert.equal(r.exitCode, EXIT_INTERRUPTED, r.output);
    assert.ok(r.exitedAtMs - r.sentAtMs[0]! < 1000, `exited ${r.exitedAtMs - r.sentAtMs[0]!} ms after ^C`);
    const m =
      /interrupted: job (\S+) keeps running in the cluster: follow it with `inv erase status \1 --follow`, or cancel it with `inv erase cancel \1`/.exec(
        r.output.replace(/\n(?!interrupted)/g, ''),
      );
    assert.ok(m, r.output);
    assert.equal((await env.job(m[1]!))?.status?.phase, 'Running');
    assert.doesNotMatch(r.output, /AbortError/);
  });

  it('^C during --standalone: exit 130 within a second; says nothing runs the job now and how to finish or cancel it', async () => {
    await env.nodes([{ name: 'a' }]);
    env.startKubelet(() => 'hang');
    const r = await runOnPty(
      ['erase', '--images', `nothing-${env.tag}:1`, '--name', `sa-${env.tag}`, ...common(), '--standalone'],
      {
        cols: 200,
        steps: [{ wait: '1 running, 0 pending, 0/1 finished', send: CTRL_C }],
        timeoutMs: 60_000,
      },
    );
    assert.equal(r.stepsDone, 1, r.output);
    assert.equal(r.exitCode, EXIT_INTERRUPTED, r.output);
    assert.ok(r.exitedAtMs - r.sentAtMs[0]! < 1000, `exited ${r.exitedAtMs - r.sentAtMs[0]!} ms after ^C`);
    assert.match(r.output, /interrupted: job \S+ stays in the cluster, unfinished, and nothing runs it now/);
    assert.match(r.output, /`inv erase cancel \S+ --standalone`/);
  });

  it('the prompt names the nodes (and why some are skipped) and the context; ^C there exits 130, "n" exits 2; nothing submitted', async () => {
    await env.nodes([
      { name: 'a' },
      { name: 'b' },
      { name: 'c', cordoned: true },
      { name: 'd', ready: false },
    ]);
    const args = ['erase', '--all-unused', '--name', `ask-${env.tag}`, ...common(), '--standalone'];
    const question = new RegExp(
      `Remove every unused image on 2 of 4 node\\(s\\) matching erase-test=${env.tag} \\(2 skipped: (cordoned, not ready|not ready, cordoned)\\), in context \\S+\\? \\[y/N\\]`,
    );
    for (const cols of [80, 200]) {
      const r = await runOnPty(args, {
        cols,
        steps: [{ wait: '\\[y/N\\] $', send: CTRL_C }],
        timeoutMs: 30_000,
      });
      assert.equal(r.stepsDone, 1, r.output);
      assert.equal(r.exitCode, EXIT_INTERRUPTED, r.output);
      assert.ok(r.exitedAtMs - r.sentAtMs[0]! < 1000);
      assert.match(r.output.replace(/\n/g, ''), question);
      assert.match(r.output, /^interrupted: nothing was submitted$/m);
      assert.doesNotMatch(r.output, /AbortError/);
    }
    const no = await runOnPty(args, { steps: [{ wait: '\\[y/N\\] $', send: 'n\r' }], timeoutMs: 30_000 });
    assert.equal(no.exitCode, 2, no.output);
    assert.match(no.output, /aborted: nothing was submitted/);
    const lists = await env.rest.list<{ metadata: { name: string } }>(
      '/apis/erase.imageinventory.dev/v1alpha1/imagelists',
    );
    assert.ok(!lists.items.some((l) => l.metadata.name === `ask-${env.tag}`));
  });

  it('the result tables fit 80 columns (long values cut with …) and are whole at 200', async () => {
    // Long node names, as cloud providers give them.
    await env.nodes([
      { name: 'ip-10-0-101-23.eu-central-1.compute.internal-a' },
      { name: 'ip-10-0-101-24.eu-central-1.compute.internal-b', cordoned: true },
    ]);
    env.startKubelet();
    for (const cols of [80, 200]) {
      const r = await runOnPty(
        [
          'erase',
          '--images',
          'docker.io/library/busybox:1.36.1-uclibc',
          '--dry-run',
          '--name',
          `w${cols}-${env.tag}`,
          ...common(),
          '--standalone',
        ],
        { cols, timeoutMs: 60_000 },
      );
      assert.equal(r.exitCode, 0, r.output);
      const table = r.output.split('\n').filter((l) => /^(NODE|ip-10-0-101-)/.test(l));
      // The node table: its header and one row per node (the image table is grouped by image).
      assert.ok(table.length >= 3, r.output);
      for (const l of table) assert.ok([...l].length <= cols, `${[...l].length} > ${cols}: ${l}`);
      if (cols === 80)
        assert.ok(
          table.some((l) => l.includes('…')),
          r.output,
        );
      else assert.ok(!table.some((l) => l.includes('…')), r.output);
    }
  });
});
