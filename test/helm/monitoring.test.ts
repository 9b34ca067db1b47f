// The chart's observability objects against what the daemon really exports: a daemon (with the
// erase controllers, so their metrics exist) runs on the real API server and is scraped; every
// metric name in the Grafana dashboard and in the PrometheusRule's expressions must be in that
// scrape. The rules themselves load in Prometheus' own rule checker (`promtool check rules`, built
// from the Go module proxy). The ServiceMonitor and PrometheusRule render only where the cluster
// serves monitoring.coreos.com/v1.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { chartDir, IMAGE_VALUES, runTool, template } from '../support/helm.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { scrape, startDaemon, type InProcessDaemon } from '../watch/helpers.js';

const MONITORING = [
  '--api-versions',
  'monitoring.coreos.com/v1/ServiceMonitor',
  '--api-versions',
  'monitoring.coreos.com/v1/PrometheusRule',
];
const ON = [
  '--set',
  'serviceMonitor.enabled=true',
  '--set',
  'prometheusRule.enabled=true',
  '--set',
  'dashboard.enabled=true',
];

/** Sample names a scrape holds: each family, and a histogram's _bucket, _sum and _count. */
function sampleNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]!);
    if (m[2] === 'histogram' || m[2] === 'summary')
      for (const s of ['_bucket', '_sum', '_count']) names.add(`${m[1]}${s}`);
  }
  return names;
}

const OVERDUE = 'InvScheduledCleanupOverdue';

const metricNames = (expr: string) => [...expr.matchAll(/\b(inv_[a-z0-9_]+)\b/g)].map((m) => m[1]!);

describe('Helm chart: ServiceMonitor, PrometheusRule and dashboard against a real scrape', function () {
  this.timeout(120_000);
  let daemon: InProcessDaemon;
  let scraped: Set<string>;
  let objects: KubeObject[];
  const find = (kind: string) => objects.find((o) => o.kind === kind) as KubeObject & Record<string, unknown>;

  before(async () => {
    const rest = new KubeRest(adminConfig());
    await installCrds(rest);
    rest.close();
    const ns = await newNamespace('helm-monitoring');
    daemon = await startDaemon(adminConfig(), {
      namespaces: [ns],
      erase: { namespace: ns },
      logLevel: 'info',
    });
    scraped = sampleNames(await scrape(daemon.daemon.manager.metricsUrl!));
    assert.ok(scraped.has('inv_leader'), "the scrape holds the daemon's metrics");
    objects = await template([...MONITORING, ...ON, ...IMAGE_VALUES]);
  });
  after(() => daemon?.stop());

  it('renders the ServiceMonitor and PrometheusRule only where monitoring.coreos.com/v1 is served', async () => {
    assert.ok(find('ServiceMonitor') && find('PrometheusRule'));
    const without = await template([...ON, ...IMAGE_VALUES]);
    assert.deepEqual(
      without.filter(
        (o) => o.metadata.namespace !== undefined && /ServiceMonitor|PrometheusRule/.test(o.kind),
      ),
      [],
    );
    const sm = find('ServiceMonitor') as unknown as {
      spec: { endpoints: { port: string; scheme: string }[] };
    };
    // It scrapes the secure port of the metrics Service.
    const svc = objects.find((o) => o.kind === 'Service') as unknown as {
      spec: { ports: { name: string }[] };
    };
    assert.equal(sm.spec.endpoints[0]!.port, svc.spec.ports[0]!.name);
    assert.equal(sm.spec.endpoints[0]!.scheme, 'https');
  });

  it('dashboard: a ConfigMap for the Grafana sidecar whose queries use only scraped metrics', () => {
    const cm =
      find('ConfigMap') &&
      (objects.find((o) => o.metadata.name === 'inv-dashboard') as unknown as {
        metadata: { labels: Record<string, string> };
        data: Record<string, string>;
      });
    assert.ok(cm, 'the dashboard ConfigMap');
    assert.equal(cm.metadata.labels.grafana_dashboard, '1');
    const dashboard = JSON.parse(cm.data['inv.json']!) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const used = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr)));
    assert.ok(used.length >= 10);
    const missing = [...new Set(used)].filter((n) => !scraped.has(n));
    assert.deepEqual(missing, [], `dashboard metrics the daemon does not export: ${missing.join(', ')}`);
  });

  it('PrometheusRule: promtool check rules accepts the groups, whose metrics are all scraped', async () => {
    const rule = find('PrometheusRule') as unknown as {
      spec: { groups: { rules: { alert: string; expr: string }[] }[] };
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-rules-'));
    try {
      const file = path.join(dir, 'rules.yaml');
      fs.writeFileSync(file, stringify(rule.spec));
      const r = await runTool('promtool', ['check', 'rules', file]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const rules = rule.spec.groups.flatMap((g) => g.rules);
      assert.match(r.stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
      for (const alert of [
        'InvNoLeader',
        'InvRebuildsFailing',
        'InvEraseJobFailed',
        OVERDUE,
        'InvScannerFailing',
        'InvNamespaceUnreadable',
        'InvInventoryStale',
      ])
        assert.ok(
          rules.some((x) => x.alert === alert),
          alert,
        );
      const docs = fs.readFileSync(path.join(chartDir, '..', '..', 'docs', 'alerts.md'), 'utf8');
      for (const x of rules) {
        assert.match(docs, new RegExp(`^## ${x.alert}$`, 'm'), `docs/alerts.md has a runbook for ${x.alert}`);
        const missing = metricNames(x.expr).filter((n) => !scraped.has(n));
        assert.deepEqual(missing, [], `${x.alert} uses metrics the daemon does not export`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  type AlertRule = { alert: string; expr: string; annotations: Record<string, string> };
  /** The chart's alert `name`, and the selector its expression puts on `metric`. */
  const alertRule = (name: string, metric: string) => {
    const rule = find('PrometheusRule') as unknown as { spec: { groups: { rules: AlertRule[] }[] } };
    const alert = rule.spec.groups.flatMap((g) => g.rules).find((x) => x.alert === name)!;
    // The daemon's series as the rule selects them (job and namespace of the metrics Service).
    const sel = new RegExp(`${metric}\\{([^}]*)\\}`).exec(alert.expr)![1]!;
    return { spec: rule.spec, alert, sel };
  };
  /** The alert firing for `labels`, its summary's `{{ $labels.<label> }}` filled in. */
  const firing = (alert: AlertRule, label: string, value: string) => ({
    exp_labels: { severity: 'warning', [label]: value },
    exp_annotations: {
      summary: alert.annotations.summary!.replace(`{{ $labels.${label} }}`, value),
      runbook_url: alert.annotations.runbook_url!,
    },
  });
  /** `promtool test rules` on the chart's rules and one test group; it must pass. */
  const promtoolTest = async (spec: unknown, test: Record<string, unknown>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-rules-'));
    try {
      fs.writeFileSync(path.join(dir, 'rules.yaml'), stringify(spec));
      const tests = {
        rule_files: ['rules.yaml'],
        evaluation_interval: '1m',
        tests: [{ interval: '1m', ...test }],
      };
      fs.writeFileSync(path.join(dir, 'tests.yaml'), stringify(tests));
      const r = await runTool('promtool', ['test', 'rules', path.join(dir, 'tests.yaml')]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /SUCCESS/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it(`${OVERDUE}: promtool test rules fires it for a tick long past, not for one to come`, async () => {
    const metric = 'inv_erase_schedule_next_run_timestamp_seconds';
    const { spec, alert, sel } = alertRule(OVERDUE, metric);
    const series = (list: string) => `${metric}{${sel},imagelist="${list}"}`;
    await promtoolTest(spec, {
      // "nightly" was due at 60 s and stays so (nobody ran it); "weekly" is due in a day.
      input_series: [
        { series: series('nightly'), values: '60x90' },
        { series: series('weekly'), values: '86400x90' },
      ],
      alert_rule_test: [
        // 10 minutes after the tick: not yet (15 minutes of grace).
        { eval_time: '11m', alertname: OVERDUE, exp_alerts: [] },
        // Overdue since 16 min, held for the rule's 15m: firing, for nightly only.
        { eval_time: '35m', alertname: OVERDUE, exp_alerts: [firing(alert, 'imagelist', 'nightly')] },
      ],
    });
  });

  it('InvNamespaceUnreadable: promtool test rules fires it naming the kind and the namespace', async () => {
    const metric = 'inv_unreadable_namespace';
    const { spec, alert, sel } = alertRule('InvNamespaceUnreadable', metric);
    const labels = { kind: 'Rollout.argoproj.io', source_namespace: 'tenant' };
    const summary = alert.annotations
      .summary!.replace('{{ $labels.kind }}', labels.kind)
      .replace('{{ $labels.source_namespace }}', labels.source_namespace);
    await promtoolTest(spec, {
      input_series: [
        {
          series: `${metric}{${sel},kind="${labels.kind}",source_namespace="tenant",pod="p1"}`,
          values: '1x40',
        },
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'InvNamespaceUnreadable', exp_alerts: [] },
        {
          eval_time: '20m',
          alertname: 'InvNamespaceUnreadable',
          exp_alerts: [
            {
              exp_labels: { severity: 'warning', ...labels },
              exp_annotations: { summary, runbook_url: alert.annotations.runbook_url! },
            },
          ],
        },
      ],
    });
  });

  it('InvScannerFailing: promtool test rules fires it per reason of a failed scan, not for reasons at 0', async () => {
    const metric = 'inv_erase_scan_failures_total';
    const { spec, alert, sel } = alertRule('InvScannerFailing', metric);
    const series = (reason: string) => `${metric}{${sel},reason="${reason}",pod="p1"}`;
    await promtoolTest(spec, {
      // Every reason is exported at 0 from the start; a job's 9 images fail on the DB at 10m.
      input_series: [
        { series: series('db'), values: '0x9 9x30' },
        { series: series('timeout'), values: '0x40' },
      ],
      alert_rule_test: [
        { eval_time: '5m', alertname: 'InvScannerFailing', exp_alerts: [] },
        { eval_time: '15m', alertname: 'InvScannerFailing', exp_alerts: [firing(alert, 'reason', 'db')] },
      ],
    });
  });
});
