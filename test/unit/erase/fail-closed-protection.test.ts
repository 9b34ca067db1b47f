// A `*` prune trusts the daemon's cache only while it sees the whole cluster now, the
// per-namespace fallback has the rights it needs and says when it cannot run, and waiting has
// an end and a cost bound: the pure parts (informer-health.ts, namespace-list.ts' error,
// CacheProtection's choice, plan.ts' protectionGivesUp, the protectionWait key, the shipped
// ClusterRoles against the daemon's read rights). On the real API server:
// test/watch/poisoned-kind.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import {
  CURRENT_WITHIN_MS,
  InformerHealth,
  PER_NAMESPACE_MAX_MS,
} from '../../../src/core/controller/informer-health.js';
import { listByNamespace, MAX_NAMESPACES } from '../../../src/core/controller/namespace-list.js';
import {
  CacheProtection,
  type InventoryCacheView,
} from '../../../src/core/erase/worker/inventory-protection.js';
import { protectionGivesUp } from '../../../src/core/erase/imagejob/plan.js';
import { parseConfig } from '../../../src/core/erase/config/config.js';
import { daemonReadRights } from '../../../src/core/check/daemon-access.js';
import type { KubeRest } from '../../../src/core/kube/rest.js';
import { emptyNamespaceObjects } from '../../../src/core/inventory/source-fields.js';
import { repoRoot } from '../../support/paths.js';

describe('fail closed: a * prune and a cache that cannot see the cluster', () => {
  it('an informer is current only while its last LIST, watch start, event or bookmark is recent', () => {
    let now = 1_000_000;
    const h = new InformerHealth(() => now);
    assert.equal(h.current(), false, 'not listed yet');
    h.listed();
    assert.equal(h.current(), true);
    now += CURRENT_WITHIN_MS + 1;
    assert.equal(h.current(), false, 'synced once, nothing since: frozen, not current');
    assert.equal(h.healthy(), true, 'yet healthy() alone would say ready');
    h.watch(true);
    assert.equal(h.current(), true, 'a watch that holds makes it current');
    now += CURRENT_WITHIN_MS - 1;
    h.event(); // a bookmark, about once a minute on a quiet kind
    now += CURRENT_WITHIN_MS - 1;
    assert.equal(h.current(), true, 'events and bookmarks keep it current');
    now += 2;
    assert.equal(h.current(), false, 'a watch open but silent past the bound (dropped, or stalled) is not');
    h.event();
    h.failed(new Error('watch refused'));
    assert.equal(h.current(), true, 'one failed round just after an event: a blip, within the bound');
    now += CURRENT_WITHIN_MS + 1;
    assert.equal(h.current(), false, 'and nothing since: not current');
    assert.equal(h.lastError, 'watch refused');
    h.listed();
    assert.equal(h.current(), true, 'one failure, then a LIST: current');
    h.failed(new Error('x'));
    h.failed(new Error('y'));
    h.listed();
    assert.equal(h.current(), false, 'failing round after round: not current');
  });

  it('per-namespace passes of a failing kind back off 5, 10, 20, then 30 minutes apart, and start over once listed whole', () => {
    let now = 0;
    const h = new InformerHealth(() => now);
    const gaps: number[] = [];
    let last = -1;
    // A failing kind asks every 30 s (the informer's backoff cap) for 6 hours.
    for (; now <= 6 * 3_600_000; now += 30_000) {
      if (!h.passDue()) continue;
      if (last >= 0) gaps.push(now - last);
      last = now;
      h.passed();
    }
    assert.deepEqual(
      gaps.slice(0, 5).map((g) => g / 60_000),
      [5, 10, 20, 30, 30],
    );
    // The documented ceiling at 10,000 namespaces: one pass (10,001 LISTs) per 30 minutes once
    // backed off, about 334 LISTs a minute; the first hour has at most 4 passes.
    const passes = gaps.length + 1;
    const steadyPerMinute = 10_001 / (PER_NAMESPACE_MAX_MS / 60_000);
    assert.ok(steadyPerMinute < 335, `${steadyPerMinute}`);
    assert.ok(passes <= 4 + Math.ceil((5 * 3_600_000) / PER_NAMESPACE_MAX_MS), `${passes} passes in 6 h`);
    h.failed(new Error('watch: 429'));
    assert.match(
      h.lastError,
      /^watch: 429; next listing one namespace at a time at \d{4}-/,
      'says when, for /readyz',
    );
    h.wholeAgain();
    assert.equal(h.passDue(), true);
  });

  it('a fallback that cannot list the namespaces says so, with the cluster-wide error', async () => {
    const err = new Error('conversion webhook for argoproj.io/v1alpha1 failed');
    await assert.rejects(
      listByNamespace(
        {
          namespaces: () =>
            Promise.reject(new Error('namespaces is forbidden: cannot list resource "namespaces"')),
          path: (ns) => ns,
        },
        () => Promise.reject(new Error('not called')),
        err,
        new AbortController().signal,
      ),
      (e: Error) =>
        e.message.includes('conversion webhook') &&
        e.message.includes('cannot be listed one namespace at a time') &&
        e.message.includes('forbidden'),
    );
  });

  it('namespaces past the bound of the per-namespace pass are unreadable, never silently absent', async () => {
    const names = Array.from({ length: MAX_NAMESPACES + 2 }, (_, i) => `ns-${String(i).padStart(5, '0')}`);
    const listed = await listByNamespace(
      { namespaces: () => Promise.resolve(names), path: (ns) => ns },
      () => Promise.resolve({ items: [], resourceVersion: '7' }),
      new Error('cluster-wide LIST failed'),
      new AbortController().signal,
    );
    assert.deepEqual([...listed.unreadable.keys()], names.slice(MAX_NAMESPACES));
    assert.match(listed.unreadable.get(names.at(-1)!)!, /past the 10000 namespaces/);
  });

  it("a * prune takes the daemon's cache only when every informer is current and nothing is unreadable", () => {
    const view = (stale: string[], unreadable = new Map<string, string>()): InventoryCacheView => ({
      clusterWide: true,
      hasSynced: () => true,
      namespaces: () => new Set(['shop']),
      objects: () => emptyNamespaceObjects(),
      images: () => [],
      unreadable: () => unreadable,
      stale: () => stale,
      unreadableOf: () => unreadable,
    });
    const rest = {} as KubeRest;
    assert.equal(new CacheProtection(view([]), rest).describe, "the daemon's cache");
    const frozen = new CacheProtection(view(['Rollout.argoproj.io (watch refused)']), rest);
    assert.equal(frozen.describe, 'a fresh scan of the cluster');
    assert.equal(frozen.scansCluster, true);
    assert.equal(
      new CacheProtection(view([], new Map([['tenant', 'Deployment: too large']])), rest).describe,
      'a fresh scan of the cluster',
    );
  });

  it("a waiting prune gives up at the administrator's protectionWait or the job deadline, whichever first", () => {
    assert.equal(protectionGivesUp(3_599_000, 7200, 3600), undefined);
    assert.equal(
      protectionGivesUp(3_600_000, 7_200_000, 3600),
      "gave up after 1h (the administrator's protectionWait)",
    );
    assert.equal(protectionGivesUp(1_800_000, 1800, 3600), 'gave up at the job deadline');
    assert.equal(parseConfig('').protectionWaitSeconds, 3600);
    assert.equal(parseConfig('protectionWait: 20m').protectionWaitSeconds, 1200);
    assert.throws(() => parseConfig('protectionWait: 0s'), /protectionWait: must be longer than 0s/);
    assert.throws(() => parseConfig('protectionWait: 5'), /protectionWait: must be a duration/);
  });

  it("the shipped ClusterRoles (deploy/, the chart) grant every read right of the daemon's cache, list namespaces included", () => {
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    const deploy = parse(fs.readFileSync(path.join(repoRoot, 'deploy/clusterrole.yaml'), 'utf8')) as {
      rules: Rule[];
    };
    // The chart's template: only its rules' lines (no template logic among them), parsed as YAML.
    const chartText = fs.readFileSync(path.join(repoRoot, 'charts/inv/templates/clusterrole.yaml'), 'utf8');
    const chart = parse(
      chartText
        .split('\n---')[0]!
        .split('\n')
        .filter((l) => !l.includes('{{'))
        .join('\n'),
    ) as { rules: Rule[] };
    const rights = daemonReadRights();
    assert.ok(rights.some(([g, r, v]) => g === '' && r === 'namespaces' && v === 'list'));
    for (const [role, name] of [
      [deploy, 'deploy/clusterrole.yaml'],
      [chart, 'the chart'],
    ] as const)
      for (const [group, resource, verb] of rights)
        assert.ok(
          role.rules.some(
            (r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb),
          ),
          `${name}: no ${verb} ${resource}.${group}`,
        );
  });
});
