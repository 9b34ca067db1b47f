// `inv scan -o json` from rendered namespaces (cli/scan/json-collector.ts) prints what the whole
// document prints, byte for byte, in every shape the report takes; a reset voids what it held.
import assert from 'node:assert/strict';
import type { NamespaceResult } from '../../../src/core/inventory/rebuild.js';
import type { ScanFailure, ScanReport } from '../../../src/core/inventory/scan.js';
import { ScanJsonCollector } from '../../../src/cli/scan/json-collector.js';
import { fromClusterScan, renderScan, scanDocument } from '../../../src/cli/scan/render-scan.js';

const counts = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
const ns = (namespace: string, over: Partial<NamespaceResult> = {}): NamespaceResult => ({
  namespace,
  images: [
    {
      name: 'web-v1-1a2b',
      image: 'registry.example.com/web:v1',
      kinds: 'Deployment,Pod',
      change: 'create',
      result: 'planned',
    },
    {
      name: 'old-1-3c4d',
      image: 'registry.example.com/old:1',
      kinds: '',
      previousKinds: 'Pod',
      change: 'delete',
      result: 'planned',
    },
    {
      name: 'same-5e6f',
      image: 'docker.io/library/busybox:1.36',
      kinds: 'Pod',
      change: 'none',
      result: 'planned',
    },
  ],
  invalid: [],
  errors: [],
  warnings: [],
  writes: 0,
  counts,
  ...over,
});

/** What the whole-document path prints for `results` (the report before json-collector.ts). */
function whole(
  results: NamespaceResult[],
  failures: ScanFailure[],
  dryRun: boolean,
  readOnly = false,
  selector?: string,
) {
  const report: ScanReport = {
    results: [...results].sort((a, b) => a.namespace.localeCompare(b.namespace)),
    rebuilt: results.length,
    failures,
    readOnly,
  };
  return renderScan(scanDocument(fromClusterScan(report, dryRun, selector)), 'json');
}

function collected(
  results: NamespaceResult[],
  failures: ScanFailure[],
  dryRun: boolean,
  readOnly = false,
  selector?: string,
) {
  const c = new ScanJsonCollector(dryRun, readOnly);
  for (const r of results) c.add(r);
  const report: ScanReport = { results: [], rebuilt: results.length, failures, readOnly };
  const out = c.render(fromClusterScan(report, dryRun, selector));
  return { stdout: out.stdout.join(''), stderr: out.stderr };
}

describe('inv scan -o json from rendered namespaces', () => {
  const failure: ScanFailure = { namespace: 'locked', error: 'pods is forbidden', reason: 'Forbidden' };
  const cases: [string, NamespaceResult[], ScanFailure[], boolean, boolean?, string?][] = [
    [
      'a dry run of several namespaces, handed over out of order',
      [ns('b-ns'), ns('a'), ns('a-b'), ns('Zed'), ns('z')],
      [],
      true,
    ],
    [
      'a write with failures, warnings, invalid refs and errors',
      [
        ns('shop', {
          images: [
            {
              name: 'x-1',
              image: 'registry.example.com/x:1',
              kinds: 'Pod',
              change: 'update',
              previousKinds: 'Deployment',
              result: 'failed',
              error: 'the server said "no"\nand more',
            },
          ],
          invalid: [
            {
              namespace: 'shop',
              source: 'Pod/bad',
              kind: 'Pod',
              name: 'bad',
              container: 'c',
              image: 'Not A Ref!',
              reason: 'invalid reference format',
            },
          ],
          warnings: ['an Event could not be written'],
          errors: ['Image x-1: the server said no'],
          writes: 3,
          counts: { created: 1, updated: 0, deleted: 0, unchanged: 2 },
        }),
        ns('web'),
      ],
      [failure],
      false,
    ],
    ['no namespace rebuilt, one failed', [], [failure], false],
    ['nothing at all', [], [], true],
    ['a selector scan (read-only)', [ns('one')], [], false, true, 'app=web'],
    ['one namespace with no image', [ns('empty', { images: [] })], [], true],
  ];
  for (const [what, results, failures, dryRun, readOnly, selector] of cases)
    it(what, () => {
      const a = whole(results, failures, dryRun, readOnly, selector);
      const b = collected(results, failures, dryRun, readOnly, selector);
      assert.equal(b.stdout, a.stdout);
      assert.equal(b.stderr, a.stderr);
      JSON.parse(b.stdout);
    });

  it('a reset voids every namespace and count taken so far', () => {
    const c = new ScanJsonCollector(true, false);
    c.add(ns('stale'));
    c.add(ns('a'));
    c.reset();
    c.add(ns('a'));
    const report: ScanReport = { results: [], rebuilt: 1, failures: [], readOnly: false };
    const out = c.render(fromClusterScan(report, true));
    assert.equal(out.stdout.join(''), whole([ns('a')], [], true).stdout);
    assert.equal(c.size, 1);
  });
});
