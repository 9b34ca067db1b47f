// A worker's termination message is input from the node. Hand-written ones here, through the
// kubelet harness on the real API server: counts that are not whole numbers must fail their
// node with the reason, never every status write of the job (its count fields are integers,
// so before the check the job stayed Running past its deadline); escape sequences in an error
// never reach the job's status, and so never a terminal.
import assert from 'node:assert/strict';
import { EraseEnv, eraseEnvPerTest, results } from './helpers.js';

const HALF = JSON.stringify({ counts: { removed: 0.5, 'in-use': 1 }, bytes: 10, results: [] });
const HUGE = JSON.stringify({ counts: { removed: 1e300 }, bytes: 1e300, results: [] });
const ESCAPED = JSON.stringify({
  counts: { failed: 1 },
  bytes: 0,
  results: [
    { t: 'docker.io/library/x:1', o: 'failed', e: '\u001b[31mred\u001b[0m \u001b]0;owned\u0007done\r\n' },
  ],
});

describe('erase: a worker report that is not what the worker writes (real API server)', function () {
  this.timeout(120_000);
  let env: EraseEnv;
  eraseEnvPerTest((e) => (env = e));

  it('fails only that node with the reason; the job finishes and its status is clean', async () => {
    const nodes = await env.nodes([{ name: 'ok' }, { name: 'half' }, { name: 'huge' }, { name: 'esc' }]);
    const n = (s: string) => nodes.find((x) => x.startsWith(`${s}-`))!;
    env.startControllers();
    env.startKubelet((node) =>
      node.startsWith('half-')
        ? { exitCode: 0, message: HALF }
        : node.startsWith('huge-')
          ? { exitCode: 0, message: HUGE }
          : node.startsWith('esc-')
            ? { exitCode: 1, message: ESCAPED }
            : 'run',
    );
    const name = `report-${env.tag}`;
    const job = await env.wait(
      name,
      await env.erase({ name, images: [`docker.io/library/nothing-${env.tag}:1`] }),
    );
    assert.equal(job.status?.phase, 'Failed', 'three of four nodes failed');
    const r = results(job);
    assert.equal(r[n('ok')]!.outcome, 'Succeeded');
    assert.equal(r[n('half')]!.outcome, 'Failed');
    assert.equal(
      r[n('half')]!.reason,
      "the worker's report is invalid: counts.removed is 0.5, not a whole number from 0 to 1000000",
    );
    assert.equal(r[n('huge')]!.outcome, 'Failed');
    assert.equal(
      r[n('huge')]!.reason,
      "the worker's report is invalid: counts.removed is 1e+300, not a whole number from 0 to 1000000",
    );
    assert.equal(r[n('esc')]!.outcome, 'Failed');
    assert.equal(r[n('esc')]!.reason, 'failed docker.io/library/x:1: red done');
    // Nothing of the invalid reports was counted.
    assert.equal(job.status?.removed ?? 0, 0);
    // eslint-disable-next-line no-control-regex -- the point
    assert.doesNotMatch(JSON.stringify(job.status), /[\u0000-\u001f\u007f-\u009f]|\\u001b/);
  });
});
