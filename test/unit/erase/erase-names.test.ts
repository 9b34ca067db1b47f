// Issue 29 §1 and §3, the pure parts: counts of images once per node whatever the number of
// targets that matched them; rows named by the image's tags (else digests, else ID) and grouped
// across nodes; targets present on no node; the structured per-node status and its old lines.
import assert from 'node:assert/strict';
import { groupImages, renderEraseReport } from '../../../src/cli/erase/render.js';
import {
  decodeNode,
  decodeNodes,
  encodeNodes,
  toNodeStatus,
} from '../../../src/core/erase/api/node-status.js';
import { encodeResult, pendingResult, resultFromPod } from '../../../src/core/contract/results.js';
import { buildReport, notPresentAnywhere, type NodeReport } from '../../../src/core/erase-request/report.js';
import type { ImageJob, ImageList } from '../../../src/core/erase/api/types.js';
import { terminationSummary } from '../../../src/core/noderemove/summary.js';
import { unseenTargets } from '../../../src/core/erase-request/referenced-targets.js';
import { imageCounts, imageNames, type Result } from '../../../src/core/noderemove/types.js';

const ID = `sha256:${'a'.repeat(64)}`;
const dupResults = (outcome: Result['outcome']): Result[] =>
  ['docker.io/library/dup:latest', 'dup'].map((target) => ({
    target,
    imageId: ID,
    aliases: ['docker.io/library/dup:latest', `docker.io/library/dup@sha256:${'b'.repeat(64)}`, ID],
    size: 4_000_000,
    outcome,
    error: '',
    detail: '',
  }));

describe('erase names what it removes (pure)', () => {
  it('two targets naming one image count it once: worker summary, node result, job counts', () => {
    const results = [
      ...dupResults('removed'),
      {
        target: 'ngnix:1.25',
        imageId: '',
        aliases: [],
        size: 0,
        outcome: 'not-present' as const,
        error: '',
        detail: '',
      },
    ];
    assert.deepEqual(imageCounts(results), { 'not-present': 1, removed: 1 });
    const summary = terminationSummary({
      node: 'n1',
      runtime: { name: 'c', version: '1', apiVersion: 'v1' },
      results,
    });
    const r = resultFromPod('n1', { phase: 'Succeeded', message: summary });
    assert.deepEqual([r.removed, r.bytes], [1, 4_000_000]);
    // An image one target removes and `*` would have protected is counted removed, once.
    const mixed = [dupResults('removed')[0]!, { ...dupResults('protected')[1]!, target: '*' }];
    assert.deepEqual(imageCounts(mixed), { removed: 1 });
    // Names: tags, else digests, never the ID.
    assert.deepEqual(imageNames(results[0]!.aliases, ID), ['docker.io/library/dup:latest']);
    assert.deepEqual(imageNames([`x@sha256:${'c'.repeat(64)}`, ID], ID), [`x@sha256:${'c'.repeat(64)}`]);
    assert.deepEqual(imageNames([ID], ID), []);
    // The summary carries the names and the size of each row.
    const row = (JSON.parse(summary) as { results: { n?: string[]; s?: number }[] }).results[0]!;
    assert.deepEqual([row.n, row.s], [['docker.io/library/dup:latest'], 4_000_000]);
  });

  it('groups identical images across nodes, names them, and warns of targets present on no node', () => {
    const image = (node: string, extra: Partial<NodeReport> = {}): NodeReport => ({
      node,
      outcome: 'Succeeded',
      reason: '',
      pod: `p-${node}`,
      removed: 0,
      wouldRemove: 1,
      inUse: 0,
      excluded: 0,
      protected: 0,
      failed: 0,
      bytes: 4_000_000,
      images: [
        {
          target: 'legacy-tool:0.9',
          image: ID,
          names: ['docker.io/library/legacy-tool:0.9'],
          size: 4_000_000,
          outcome: 'would-remove',
        },
        { target: 'ngnix:1.25', image: '', names: [], size: 0, outcome: 'not-present' },
      ],
      imagesTruncated: false,
      ...extra,
    });
    const nodes = [image('n1'), image('n2')];
    const groups = groupImages(nodes);
    assert.deepEqual(
      groups.map((g) => [g.name, g.outcome, g.nodes, g.size]),
      [
        ['docker.io/library/legacy-tool:0.9', 'would-remove', ['n1', 'n2'], 4_000_000],
        ['ngnix:1.25', 'not-present', ['n1', 'n2'], 0],
      ],
    );
    assert.deepEqual(notPresentAnywhere(nodes), ['ngnix:1.25']);
    // A node whose list is missing or cut short could hold it: no warning.
    assert.deepEqual(notPresentAnywhere([image('n1'), image('n2', { images: null })]), []);
    assert.deepEqual(notPresentAnywhere([image('n1'), image('n2', { imagesTruncated: true })]), []);

    const list: ImageList = { metadata: { name: 'l' }, spec: { images: ['legacy-tool:0.9'], dryRun: true } };
    const job: ImageJob = {
      metadata: { name: 'l-1-abcde', uid: 'J' },
      spec: {
        imageList: { name: 'l', uid: 'L', generation: 1 },
        namespace: 'w',
        images: [],
        dryRun: true,
        config: {} as ImageJob['spec']['config'],
      },
      status: {
        phase: 'Completed',
        nodes: encodeNodes([{ ...pendingResult('n1'), outcome: 'Succeeded', removed: 1 }]),
      },
    };
    const summary = JSON.stringify({
      node: 'n1',
      counts: { 'would-remove': 1 },
      bytes: 4_000_000,
      results: [
        {
          t: 'legacy-tool:0.9',
          i: ID,
          o: 'would-remove',
          n: ['docker.io/library/legacy-tool:0.9'],
          s: 4_000_000,
        },
      ],
    });
    const pods = [
      {
        metadata: { name: 'p', ownerReferences: [{ uid: 'J' }] },
        spec: { nodeName: 'n1' },
        status: {
          phase: 'Succeeded',
          containerStatuses: [{ state: { terminated: { exitCode: 0, message: summary } } }],
        },
      },
    ];
    const dry = buildReport(list, { generation: 1, job, pods });
    const out = renderEraseReport(dry, { width: 80 });
    assert.match(out, /docker\.io\/library\/legacy-tool:0\.9\s+would-remove\s+n1\s+4 MB/);
    const wide = renderEraseReport(dry, { wide: true, width: 200 });
    assert.ok(wide.includes(ID), 'full ID with -o wide');
    // A real run prints the same rows.
    const real = buildReport(
      { ...list, spec: { ...list.spec, dryRun: false } },
      {
        generation: 1,
        job: { ...job, spec: { ...job.spec, dryRun: false } },
        pods: pods.map(
          (p) => JSON.parse(JSON.stringify(p).replaceAll('would-remove', 'removed')) as typeof p,
        ),
      },
    );
    assert.match(
      renderEraseReport(real, { width: 80 }),
      /docker\.io\/library\/legacy-tool:0\.9\s+removed\s+n1\s+4 MB/,
    );
  });

  it('status.nodes: objects without zero fields, read back whole; old lines and unknown fields read', () => {
    const r = { ...pendingResult('n1'), outcome: 'Failed' as const, failed: 1, bytes: 12, reason: 'x\ny' };
    assert.deepEqual(toNodeStatus(r), { node: 'n1', outcome: 'Failed', failed: 1, bytes: 12, reason: 'x y' });
    assert.deepEqual(decodeNode(toNodeStatus(r)), { ...r, reason: 'x y' });
    // In the API server's (sorted) key order: a status read back is the one written, unchanged.
    assert.deepEqual(Object.keys(toNodeStatus(r)), ['bytes', 'failed', 'node', 'outcome', 'reason']);
    // A line of an ImageJob written before.
    assert.deepEqual(decodeNode(encodeResult(r)), { ...r, reason: 'x y' });
    // A field a newer controller added flows through; a wrong type falls back to the default.
    const later = decodeNode({ node: 'n2', outcome: 'Succeeded', vulnerable: 3, removed: 'many' });
    assert.deepEqual([(later as unknown as { vulnerable: number }).vulnerable, later.removed], [3, 0]);
    assert.throws(() => decodeNode({ outcome: 'Succeeded' }), /malformed/);
    assert.deepEqual(
      decodeNodes(
        [
          { node: 'a', outcome: 'Nope' },
          { node: 'b', outcome: 'Pending' },
        ],
        true,
      ).length,
      1,
    );
  });
});

describe('a target the inventory never saw (pure)', () => {
  it('suggests the closest ref within two edits; says nothing without one', () => {
    const img = (image: string) => ({ metadata: { name: 'x', namespace: 'shop' }, spec: { image } });
    const inventory = [img('docker.io/library/nginx:1.25'), img('quay.io/team/api:2')];
    assert.deepEqual(
      unseenTargets(['ngnix:1.25', 'nginx:1.25', 'legacy-tool:0.9', 'quay.io/team/apj:2'], inventory),
      [
        { target: 'ngnix:1.25', suggestion: 'nginx:1.25' },
        { target: 'quay.io/team/apj:2', suggestion: 'quay.io/team/api:2' },
      ],
    );
  });
});
