// Docs that cannot drift: every generated region (metrics, configuration keys, exit codes, printer
// columns: src/docs/generated.ts) equals what the code generates now, and every metric name or
// label written in the docs, the chart's alerts or its dashboard is one the daemon registers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { GENERATED_DOCS } from '../../../src/docs/generated.js';
import { regionOf } from '../../../src/docs/regions.js';
import { metricCatalog, SERIES_SUFFIXES } from '../../../src/docs/metrics-catalog.js';
import { acceptedConfigKeys } from '../../../src/docs/config-table.js';
import { CONFIG_KEYS } from '../../../src/core/erase/config/config-keys.js';
import { ERASE_ACCESS, SCAN_ACCESS } from '../../../src/core/check/checks.js';
import { imageResourceName } from '../../../src/core/inventory/naming.js';
import { docsPages } from '../../support/docs/docs-pages.js';
import { repoRoot } from '../../support/paths.js';

/** Labels Prometheus adds to every scraped series (the target's), and a histogram's bucket bound. */
const TARGET_LABELS = ['job', 'namespace', 'instance', 'pod', 'service', 'container', 'endpoint'];

const catalog = metricCatalog();
/** Every series name a scrape can hold, with the labels it may carry. */
const series = new Map<string, string[]>();
for (const m of catalog) {
  series.set(m.name, [...m.labels, ...TARGET_LABELS]);
  for (const s of SERIES_SUFFIXES[m.type] ?? [])
    series.set(m.name + s, [...m.labels, ...TARGET_LABELS, ...(s === '_bucket' ? ['le'] : [])]);
}

/** Each `inv_…` name in `text`, with the label names of a `{…}` right after it. */
function mentions(text: string): { name: string; labels: string[] }[] {
  const out: { name: string; labels: string[] }[] = [];
  for (const m of text.matchAll(/\b(inv_[a-z0-9_]+)(\*)?(\{([^}]*)\})?/g)) {
    if (m[2] || m[1]!.endsWith('_')) continue; // a family written as a prefix: `inv_erase_*`
    const inside = m[4] ?? '';
    // `{result="error",job="x"}` (PromQL) or `{result}`, `{a,b}` (the docs' shorthand)
    const labels = /[=~!]/.test(inside)
      ? [...inside.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1]!)
      : inside
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
    out.push({ name: m[1]!, labels });
  }
  return out;
}

/** The names and labels written in `text` that the code does not have, as readable lines. */
function unknownMetrics(where: string, text: string): string[] {
  const bad: string[] = [];
  for (const { name, labels } of mentions(text)) {
    const allowed = series.get(name);
    if (!allowed) bad.push(`${where}: ${name} is not a metric the daemon registers`);
    else for (const l of labels) if (!allowed.includes(l)) bad.push(`${where}: ${name} has no label ${l}`);
  }
  return bad;
}

/** Labels grouped or kept in PromQL (`by (x)`, `without (x)`, `on (x)`) must be some metric's. */
function unknownGroupings(where: string, expr: string): string[] {
  const known = new Set([...catalog.flatMap((m) => m.labels), ...TARGET_LABELS, 'le']);
  return [...expr.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)]
    .flatMap((m) => m[1]!.split(','))
    .map((l) => l.trim())
    .filter((l) => l && !known.has(l))
    .map((l) => `${where}: no metric has the label ${l} (in a by/without clause)`);
}

const read = (f: string) => fs.readFileSync(path.join(repoRoot, f), 'utf8');
/** Helm's own syntax out of a template, so what is left reads as PromQL. */
const unhelm = (t: string) => t.replace(/\{\{[^}]*\}\}/g, '');

describe('docs that cannot drift: generated regions and metric names', () => {
  for (const g of GENERATED_DOCS)
    it(`${g.file} "${g.region}" is what the code generates (npm run gen:docs)`, () => {
      assert.equal(
        regionOf(read(g.file), g.region),
        g.body().replace(/\n$/, '') + '\n',
        `${g.file} is stale: run npm run build && npm run gen:docs`,
      );
    });

  it('the catalogue sees every registry: the inventory, the cache, the servers and erase', () => {
    const names = catalog.map((m) => m.name);
    for (const n of [
      'inv_leader',
      'inv_cache_objects',
      'inv_http_connections_refused_total',
      'inv_erase_jobs_total',
    ])
      assert.ok(names.includes(n), n);
    assert.ok(!names.some((n) => n.startsWith('process_') || n.startsWith('nodejs_')));
  });

  it('every key inv-erase-config accepts is described once, and nothing else', () => {
    const keys = CONFIG_KEYS.map((k) => k.key);
    assert.deepEqual([...keys].sort(), [...new Set(acceptedConfigKeys())].sort());
    assert.equal(new Set(keys).size, keys.length);
  });

  it('every metric name and label in the docs is registered', () => {
    const pages = [
      ...docsPages(),
      ...['ARCHITECTURE.md', 'bench/README.md'].map((file) => ({ file, text: read(file) })),
    ];
    assert.ok(pages.some((p) => p.text.includes('inv_erase_jobs_total')));
    assert.deepEqual(
      pages.flatMap((p) => unknownMetrics(p.file, p.text)),
      [],
    );
  });

  it("the chart's alerts and dashboard use only registered names and labels", () => {
    const rules = unhelm(read('charts/inv/templates/prometheusrule.yaml'));
    const dashboard = read('charts/inv/files/dashboard.json');
    assert.ok(
      mentions(rules).length >= 5 && mentions(dashboard).length >= 10,
      'the scan sees the expressions',
    );
    assert.deepEqual(
      [
        ...unknownMetrics('prometheusrule.yaml', rules),
        ...unknownGroupings('prometheusrule.yaml', rules),
        ...unknownMetrics('dashboard.json', dashboard.replace(/\\"/g, '"')),
        ...unknownGroupings('dashboard.json', dashboard),
      ],
      [],
    );
  });

  it('the samples of `inv check` and `kubectl get images` are what the code prints', () => {
    const install = read('docs/install.md');
    assert.match(install, new RegExp(`may run \`inv scan\`: ${SCAN_ACCESS.length} permissions`));
    assert.match(install, new RegExp(`may run \`inv erase\`: ${ERASE_ACCESS.length} permissions`));
    for (const ref of ['docker.io/library/nginx:1.25', 'docker.io/library/redis:7.2'])
      assert.ok(
        install.includes(`\n${imageResourceName(ref)} `),
        `${imageResourceName(ref)} in docs/install.md`,
      );
    assert.match(
      install,
      /\$ kubectl get images -n shop\nNAME +KINDS +USERS +AGE\n/,
      'IMAGE shows only with -o wide',
    );
  });

  it('the checker catches what the old docs said', () => {
    assert.deepEqual(unknownMetrics('x', '`inv_erase_last_job_duration_seconds{result}`'), [
      'x: inv_erase_last_job_duration_seconds has no label result',
    ]);
    assert.deepEqual(unknownMetrics('x', 'inv_erase_threshold_bytes_freed_total{imagelist="a"}'), [
      'x: inv_erase_threshold_bytes_freed_total has no label imagelist',
    ]);
    assert.deepEqual(unknownMetrics('x', 'inv_erase_nope_total and inv_erase_*'), [
      'x: inv_erase_nope_total is not a metric the daemon registers',
    ]);
  });
});
