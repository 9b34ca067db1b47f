// Pure: scan mode on the node (vuln-scan/answer.ts). The candidates handed to the scanner are the
// * candidates and the images in use, in Eraser's shape; the scanner's answer is read strictly (a
// bad answer is an error: the node then removes nothing) and narrows the candidates, never widens
// them; scan-failed and end-of-life images go only when the policy says so.
import assert from 'node:assert/strict';
import {
  AnswerError,
  candidateList,
  narrow,
  parseAnswer,
} from '../../../src/core/noderemove/vuln-scan/answer.js';
import type { Decision } from '../../../src/core/noderemove/types.js';
import { id } from './scan-fixtures.js';

const d = (
  c: string,
  action: 'remove' | 'keep',
  outcome: Decision['outcome'] = 'remove',
  detail = '',
): Decision => ({
  target: '*',
  imageId: id(c),
  aliases: [`docker.io/library/${c}:1`, `docker.io/library/${c}@sha256:${'f'.repeat(64)}`, id(c)],
  size: 10,
  action,
  outcome: action === 'remove' ? 'remove' : outcome,
  detail,
});
const policy = { deleteFailedImages: false, deleteEOLImages: false };

describe('scan mode (pure)', () => {
  it("hands over the candidates and the images in use, pinned or protected (never excluded or the sandbox), in Eraser's shape", () => {
    const list = candidateList([
      d('a', 'remove'),
      d('b', 'keep', 'in-use', 'container x'),
      d('a', 'remove'),
      d('c', 'keep', 'excluded', 'pattern'),
      d('e', 'keep', 'sandbox-image', 'pause'),
      d('f', 'keep', 'protected', 'Deployment web'),
    ]);
    const shape = (c: string) => ({
      image_id: id(c),
      names: [`docker.io/library/${c}:1`],
      digests: [`sha256:${'f'.repeat(64)}`],
    });
    assert.deepEqual(list, [shape('a'), shape('b'), shape('f')]);
  });

  it('reads an answer strictly: garbage, a non-list, an entry without image_id are errors', () => {
    for (const bad of ['', 'nope', '{}', '[1]', '[{"names":["x"]}]', '[{"image_id":""}]'])
      assert.throws(() => parseAnswer(bad), AnswerError, bad);
    assert.deepEqual(parseAnswer('[{"image_id":"x"}]'), [{ id: 'x', vuln: { status: 'vulnerable' } }]);
    const [e] = parseAnswer(
      JSON.stringify([
        {
          image_id: 'x',
          inv: {
            status: 'eol',
            cveCount: 7,
            highestSeverity: 'critical',
            cves: ['a', 'b', 'c', 'd', 'e', 'f', 1],
          },
        },
      ]),
    );
    assert.deepEqual(e!.vuln, {
      status: 'eol',
      cveCount: 7,
      highestSeverity: 'CRITICAL',
      cves: ['a', 'b', 'c', 'd', 'e'],
    });
  });

  it('narrows: named candidates go, others are clean, named kept images are vulnerable-kept, unknown names warn', () => {
    const ds = [
      d('a', 'remove'),
      d('b', 'remove'),
      d('c', 'keep', 'in-use', 'container x'),
      d('e', 'keep', 'protected', 'Deployment ns/app'),
    ];
    const answer = parseAnswer(
      JSON.stringify([
        { image_id: id('a') },
        { image_id: id('c') },
        { image_id: id('e') },
        { image_id: id('9') },
      ]),
    );
    const n = narrow(ds, answer, policy);
    assert.deepEqual(
      n.decisions.map((x) => [x.imageId.slice(7, 8), x.action, x.outcome]),
      [
        ['a', 'remove', 'remove'],
        ['b', 'keep', 'clean'],
        ['c', 'keep', 'vulnerable-kept'],
        ['e', 'keep', 'vulnerable-kept'],
      ],
    );
    assert.equal(n.decisions[2]!.detail, 'in-use: container x');
    assert.match(n.warnings[0]!, /named 1 image\(s\) this node does not have/);
  });

  it('scan-failed and end-of-life images go only when the policy says so', () => {
    const ds = [d('a', 'remove'), d('b', 'remove')];
    const answer = parseAnswer(
      JSON.stringify([
        { image_id: id('a'), inv: { status: 'scan-failed' } },
        { image_id: id('b'), inv: { status: 'eol' } },
      ]),
    );
    assert.deepEqual(
      narrow(ds, answer, policy).decisions.map((x) => x.outcome),
      ['scan-failed', 'clean'],
    );
    assert.deepEqual(
      narrow(ds, answer, { deleteFailedImages: true, deleteEOLImages: true }).decisions.map((x) => x.outcome),
      ['remove', 'remove'],
    );
  });
});
