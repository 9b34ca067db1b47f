// A new user on a cluster where nothing of inv is installed: a fresh API server with no CRDs.
// The commands that need a CRD say which one and what to do (exit 2; scan --dry-run and images
// read the workloads instead, saying so); `inv watch` reports it once, stays not ready, and is
// ready once `inv install` has run. Then install → check passes (the daemon's part provided by
// `inv watch --leader-elect` running here as a process: a Deployment cannot run Pods on an API
// server without nodes), and uninstall --crds --yes → check fails with the missing-CRD line.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { install } from '../../src/core/install/install.js';
import { readBundle } from '../../src/core/install/bundle.js';
import { bundlePath as objectPath, type KubeObject } from '../../src/core/kube/apply.js';
import { NO_INVENTORY_NOTE, OUR_CRDS } from '../../src/core/kube/crds.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { createLogger } from '../../src/core/observability/logger.js';
import { CrdGuard } from '../../src/core/watch/crd-guard.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { killDaemon, spawnDaemon, until, type ChildDaemon } from '../watch/helpers.js';

const IMAGE_LINE =
  'the Image CRD (images.imageinventory.dev) is not installed in this cluster; run `inv install`';
const IMAGELIST_LINE =
  'the ImageList CRD (imagelists.erase.imageinventory.dev) is not installed in this cluster; run `inv install`';
const IMAGEJOB_LINE =
  'the ImageJob CRD (imagejobs.erase.imageinventory.dev) is not installed in this cluster; run `inv install`';

describe('first run on a cluster without inv', function () {
  this.timeout(180_000);
  let server: FreshApiServer;
  let rest: KubeRest;
  let daemon: ChildDaemon | undefined;
  const inv = (args: string[], input?: string): CliResult =>
    runCli([...args, '--kubeconfig', server.kubeconfig], { input });

  before(async () => {
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
  });
  after(async () => {
    if (daemon) await killDaemon(daemon);
    rest?.close();
    await server?.stop();
  });
  const healthUrl = async (d: ChildDaemon) =>
    String((await d.waitForLog('health server', (r) => r.msg === 'serving health')).url);
  const readyz = async (d: ChildDaemon) => (await fetch(`${await healthUrl(d)}/readyz`)).status;
  describe('missing CRDs', () => {
    it('starts with no CRD of ours', async () => {
      const crds = await rest.get<{ items: { metadata: { name: string } }[] }>(
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      );
      assert.deepEqual(
        crds.items.map((c) => c.metadata.name).filter((n) => n.includes('imageinventory')),
        [],
      );
    });

    const noted = `${NO_INVENTORY_NOTE}\n`;
    for (const [args, status, stderr] of [
      [['scan', '-n', 'default'], 2, `error: ${IMAGE_LINE}\n`],
      [['scan', '-A'], 2, `error: ${IMAGE_LINE}\n`],
      [['scan', '-n', 'default', '--dry-run'], 0, noted],
      [['images', '-A'], 3, `${noted}no image matched\n`],
      [['images', '-n', 'default', '--image', 'nginx'], 3, `${noted}no image matched\n`],
    ] as const) {
      it(`inv ${args.join(' ')}: exit ${status}, ${status === 2 ? 'the Image CRD line' : 'a note'}`, () => {
        const r = inv([...args]);
        assert.equal(r.status, status, r.stderr);
        assert.equal(r.stderr, stderr);
      });
    }

    it('inv erase: exit 2 with the ImageList CRD line', () => {
      const r = inv(['erase', '--images', 'nginx:1.25', '--no-wait']);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr, `error: ${IMAGELIST_LINE}\n`);
    });

    it('inv check: exit 1, one line per missing CRD', () => {
      const r = inv(['check']);
      assert.equal(r.status, 1, r.stdout);
      for (const line of [IMAGE_LINE, IMAGELIST_LINE, IMAGEJOB_LINE])
        assert.ok(r.stdout.includes(line), `missing "${line}" in\n${r.stdout}`);
      assert.match(r.stdout, /^√ can reach the API server: 127\.0\.0\.1:\d+, v1\.\d+\.\d+/m);
      assert.match(r.stdout, /Status check results are ×\n$/);
    });

    it('inv version: the server version, and the CRDs as not installed', () => {
      const r = inv(['version']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^Server: v1\.\d+\.\d+ \(https:\/\/127\.0\.0\.1:\d+\)$/m);
      assert.match(r.stdout, /^CRD images\.imageinventory\.dev: not installed$/m);
    });

    it('the CRD guard repeats its report once per interval, however often it polls', async () => {
      const reports: number[] = [];
      let polls = 0;
      const logger = createLogger({
        level: 'debug',
        stream: {
          write: (line: string) => {
            const rec = JSON.parse(line) as { level: string; msg: string };
            if (rec.level === 'error') reports.push(Date.now());
            if (rec.msg === 'CRDs missing') polls++;
          },
        },
      });
      // A one-second interval stands in for the daemon's minute.
      const guard = new CrdGuard({ rest, crds: OUR_CRDS, logger, pollMs: 50, reportEveryMs: 1000 });
      const stop = new AbortController();
      const running = guard.start(stop.signal);
      await until('three reports', () => reports.length >= 3, 20_000, 50);
      stop.abort();
      await running;
      assert.equal(guard.ready(), false);
      assert.ok(polls > 3 * reports.length, `${polls} polls, ${reports.length} reports`);
      for (let i = 1; i < reports.length; i++)
        assert.ok(reports[i]! - reports[i - 1]! >= 990, `reports ${reports[i]! - reports[i - 1]!} ms apart`);
    });

    it('inv watch reports the missing CRDs once, stays not ready, and is ready after inv install', async () => {
      daemon = spawnDaemon(['--kubeconfig', server.kubeconfig]);
      const d = daemon;
      const isReport = (r: Record<string, unknown>) =>
        r.level === 'error' && String(r.msg).includes(IMAGE_LINE);
      const report = await d.waitForLog('the missing-CRD report', isReport);
      for (const line of [IMAGELIST_LINE, IMAGEJOB_LINE]) assert.ok(String(report.msg).includes(line));
      // Several retries later (the guard polls every 2 s, the informers back off up to 5 s)...
      await until(
        'three CRD polls and three informer retries',
        () =>
          d.records().filter((r) => r.msg === 'CRDs missing').length >= 3 &&
          d.records().filter((r) => r.msg === 'list/watch failed; retrying').length >= 3,
        30_000,
        100,
      );
      assert.equal(await readyz(d), 503);
      // ...still one report, and no warning per retry: an informer that cannot keep a watch open
      // says so once (its /readyz part), however often it retries.
      assert.equal(d.records().filter(isReport).length, 1);
      const warnings = d
        .records()
        .filter((r) => r.level === 'warn' || r.level === 'error')
        .map((r) => String(r.msg));
      const unheld = 'cannot keep a watch open; not ready until one holds';
      // The namespace of its heartbeat Lease does not exist yet either: said once too.
      const heartbeat = 'heartbeat failing: erase requests cannot see this controller';
      assert.deepEqual(
        warnings.filter((m) => m !== unheld && m !== heartbeat),
        [report.msg],
      );
      assert.equal(warnings.filter((m) => m === heartbeat).length, 1, warnings.join('\n'));
      assert.ok(warnings.filter((m) => m === unheld).length <= 3, warnings.join('\n'));

      const r = inv(['install']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(
        r.stdout,
        [
          'namespace/image-inventory-system created',
          'customresourcedefinition.apiextensions.k8s.io/images.imageinventory.dev created',
          'customresourcedefinition.apiextensions.k8s.io/imagelists.erase.imageinventory.dev created',
          'customresourcedefinition.apiextensions.k8s.io/imagejobs.erase.imageinventory.dev created',
          'customresourcedefinition.apiextensions.k8s.io/imagejobrecords.erase.imageinventory.dev created',
          'clusterrole.rbac.authorization.k8s.io/image-inventory-view created',
          'configmap/inv-erase-config created',
          'CRDs Established. Next: inv check',
          '',
        ].join('\n'),
      );
      await d.waitForLog('CRDs installed', (x) => x.msg === 'CRDs installed', 30_000);
      await until('readyz 200', async () => (await readyz(d)) === 200, 30_000, 200);
      await killDaemon(d, 'SIGTERM');
      daemon = undefined;
    });
  });

  describe('install, check, uninstall', () => {
    it('inv install again changes nothing, and the CRDs belong to the field manager "inv"', async () => {
      const r = inv(['install']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal((r.stdout.match(/ unchanged$/gm) ?? []).length, 7, r.stdout);
      const crd = await rest.get<{
        metadata: { managedFields: { manager: string; operation: string }[] };
      }>('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/images.imageinventory.dev');
      assert.ok(crd.metadata.managedFields.some((f) => f.manager === 'inv' && f.operation === 'Apply'));
    });

    // What install prints as the next step must pass: after a plain install (CRDs and the erase
    // configuration, no workers' namespace) with a daemon running, the part that was not asked
    // for is reported as not installed, not as a failure.
    it('inv install, then the command it prints next, passes with a running daemon (no --daemon)', async () => {
      daemon = spawnDaemon(['--kubeconfig', server.kubeconfig]);
      await daemon.waitForLog('heartbeat', (r) => r.msg === 'heartbeat Lease renewed', 30_000);
      const r = inv(['install']);
      assert.equal(r.status, 0, r.stderr);
      const next = /^CRDs Established\. Next: inv (.+)$/m.exec(r.stdout)?.[1];
      assert.equal(next, 'check', r.stdout);
      const c = inv(next.split(' '));
      assert.equal(c.status, 0, c.stdout);
      assert.match(
        c.stdout,
        /^- namespace image-inventory-workers exists at the privileged Pod Security level: not installed\n {4}hint: erase runs its workers there; `inv install --daemon` creates it$/m,
      );
      assert.match(c.stdout, /Status check results are √\n$/);
      const json = JSON.parse(inv(['check', '-o', 'json']).stdout) as {
        passed: boolean;
        checks: { name: string; status: string }[];
      };
      assert.equal(json.passed, true);
      assert.deepEqual(
        json.checks.filter((x) => x.status !== 'pass').map((x) => x.status),
        ['skip'],
      );
      await killDaemon(daemon, 'SIGTERM');
      daemon = undefined;
    });

    it('install --daemon applies the bundle with server-side apply and deletes nothing', async () => {
      const methods: string[] = [];
      rest.onRequest = (m) => methods.push(m);
      const applied = await install(rest, { daemon: true, image: 'registry.example.com/inv:7' });
      rest.onRequest = undefined;
      // Server-side apply; the erase configuration (from the plain install above) is never overwritten
      // but for its worker image, which follows the daemon's (one PUT); the declared-kinds ConfigMap
      // and ClusterRole (create-only too) are created by this first daemon install: POST, once.
      assert.deepEqual([...new Set(methods)].sort(), ['GET', 'PATCH', 'POST', 'PUT']);
      assert.equal(methods.filter((m) => m === 'POST').length, 2);
      const expected = readBundle({ image: 'registry.example.com/inv:7' });
      assert.equal(applied.length, expected.length);
      for (const o of expected) {
        const cur = await rest.get<KubeObject>(objectPath(o));
        assert.equal(cur.metadata.labels?.['app.kubernetes.io/part-of'], 'image-inventory', objectPath(o));
      }
      const dep = await rest.get<k8s.V1Deployment>(
        '/apis/apps/v1/namespaces/image-inventory-system/deployments/image-inventory-controller',
      );
      assert.equal(dep.spec!.template.spec!.containers[0]!.image, 'registry.example.com/inv:7');
      // The CLI: the same objects again, all unchanged; --image changes only the Deployment.
      const again = inv(['install', '--daemon', '--image', 'registry.example.com/inv:7']);
      assert.equal(again.status, 0, again.stderr);
      assert.doesNotMatch(again.stdout, / (created|configured)$/m);
      assert.match(again.stdout, /^configmap\/inv-erase-config unchanged$/m);
      // An upgrade to another image moves the daemon and the workers (whose image followed it).
      const upgrade = inv(['install', '--daemon', '--image', 'registry.example.com/inv:8']);
      assert.deepEqual(upgrade.stdout.match(/^.* configured(: .*)?$/gm), [
        'deployment.apps/image-inventory-controller configured',
        "configmap/inv-erase-config configured: worker settings follow the daemon's (registry.example.com/inv:8)",
      ]);
    });

    it('inv install --daemon, then the command it prints next, passes with a daemon holding the Lease', async () => {
      const installed = inv(['install', '--daemon', '--image', 'registry.example.com/inv:8']);
      assert.equal(installed.status, 0, installed.stderr);
      const next = /^CRDs Established\. Next: inv (.+)$/m.exec(installed.stdout)?.[1];
      assert.equal(next, 'check', installed.stdout);
      const before = inv(next.split(' '));
      assert.equal(before.status, 1);
      assert.match(
        before.stdout,
        /^× the daemon runs and holds its Lease: no Lease image-inventory-system\/image-inventory-controller$/m,
      );
      daemon = spawnDaemon(['--kubeconfig', server.kubeconfig, '--leader-elect']);
      await daemon.waitForLog('leadership', (r) => r.msg === 'acquired leader lease', 30_000);
      const r = inv(next.split(' '));
      assert.equal(r.status, 0, r.stdout);
      assert.match(
        r.stdout,
        /^√ the daemon runs and holds its Lease: Lease image-inventory-system\/image-inventory-controller held by \S+, renewed \d+s ago$/m,
      );
      assert.match(
        r.stdout,
        /^√ namespace image-inventory-workers exists at the privileged Pod Security level$/m,
      );
      assert.match(r.stdout, /Status check results are √\n$/);
      const json = JSON.parse(inv(['check', '-o', 'json']).stdout) as {
        passed: boolean;
        checks: { status: string }[];
      };
      assert.equal(json.passed, true);
      assert.equal(json.checks.length, 13); // the version, the 4 CRDs, the daemon's rights (check/daemon-access.ts)
      const v = inv(['version']);
      assert.match(v.stdout, /^CRD images\.imageinventory\.dev: v1alpha1 \(storage\)$/m);
      await killDaemon(daemon, 'SIGTERM');
      daemon = undefined;
    });

    it('inv check names a bad inv-erase-config key, and warns of one left in the workers namespace', async () => {
      // A configuration where earlier versions read it: ignored, with a warning. Written as
      // kubectl would (inv's own client would record the field manager "inv", from its User-Agent).
      await rest.request('POST', '/api/v1/namespaces/image-inventory-workers/configmaps', {
        body: { metadata: { name: 'inv-erase-config' }, data: { 'config.yaml': 'skipCordoned: false\n' } },
        query: { fieldManager: 'kubectl-create' },
      });
      let r = inv(['check']);
      assert.match(
        r.stdout,
        /^‼ ConfigMap image-inventory-system\/inv-erase-config parses: .*image-inventory-workers\/inv-erase-config is ignored/m,
      );
      // Your edits of the installed configuration stay across an install.
      await rest.request('PATCH', '/api/v1/namespaces/image-inventory-system/configmaps/inv-erase-config', {
        body: { data: { 'config.yaml': 'successRatio: 2\n' } },
        contentType: 'application/merge-patch+json',
        query: { fieldManager: 'kubectl-patch' },
      });
      assert.equal(inv(['install']).status, 0);
      r = inv(['check']);
      assert.equal(r.status, 1);
      assert.match(r.stdout, /^× ConfigMap image-inventory-system\/inv-erase-config parses: .*successRatio/m);
    });

    it('inv uninstall removes the daemon, keeps the CRDs and the namespaces holding your ConfigMaps', async () => {
      const r = inv(['uninstall']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^deployment\.apps\/image-inventory-controller deleted$/m);
      // The configuration you edited is kept, and so is the namespace it lives in (the daemon's
      // Images there are inv's own and do not count).
      assert.match(r.stdout, /^configmap\/inv-erase-config kept: edited since inv install wrote it/m);
      assert.match(
        r.stdout,
        /^namespace\/image-inventory-system kept: holds 1 object inv did not create \(configmap\/inv-erase-config\)/m,
      );
      assert.match(
        r.stdout,
        /^namespace\/image-inventory-workers kept: holds 1 object inv did not create \(configmap\/inv-erase-config\)/m,
      );
      await rest.get('/api/v1/namespaces/image-inventory-system/configmaps/inv-erase-config');
      assert.doesNotMatch(r.stdout, /customresourcedefinition/);
      await rest.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/images.imageinventory.dev');
      await assert.rejects(
        rest.get('/apis/rbac.authorization.k8s.io/v1/clusterroles/image-inventory-controller'),
        /404/,
      );
      const again = inv(['uninstall']);
      assert.equal(again.status, 0);
      assert.match(
        again.stdout,
        /^clusterrole\.rbac\.authorization\.k8s\.io\/image-inventory-controller not found$/m,
      );
    });

    it('leaves a same-named object it did not install', async () => {
      await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        body: { metadata: { name: 'image-inventory-controller' }, rules: [] },
        query: { fieldManager: 'kubectl-create' },
      });
      const r = inv(['uninstall']);
      assert.match(
        r.stdout,
        /^clusterrole\.rbac\.authorization\.k8s\.io\/image-inventory-controller kept: not installed by inv/m,
      );
      await rest.get('/apis/rbac.authorization.k8s.io/v1/clusterroles/image-inventory-controller');
    });

    it('uninstall --crds counts what would go and refuses without a terminal or --yes', async () => {
      await rest.request('POST', '/apis/imageinventory.dev/v1alpha1/namespaces/default/images', {
        body: {
          apiVersion: 'imageinventory.dev/v1alpha1',
          kind: 'Image',
          metadata: { name: 'nginx-test' },
          spec: { image: 'docker.io/library/nginx:1.25' },
        },
      });
      // The daemon of the check above may have inventoried the bundle's Deployment too.
      const images = (await rest.list('/apis/imageinventory.dev/v1alpha1/images')).items.length;
      assert.ok(images >= 1);
      const r = inv(['uninstall', '--crds'], '');
      assert.equal(r.status, 2);
      assert.equal(
        r.stderr,
        `Deleting the CRDs also deletes ${images} Image${images === 1 ? '' : 's'}, 0 ImageLists and 0 ImageJobs.\n` +
          'error: refusing to delete the CRDs without confirmation: no terminal to ask on; pass --yes\n',
      );
      assert.equal(r.stdout, '');
      await rest.get('/apis/imageinventory.dev/v1alpha1/namespaces/default/images/nginx-test');
    });

    it('after uninstall --crds --yes, inv check fails with the missing-CRD line', () => {
      const r = inv(['uninstall', '--crds', '--yes']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(
        r.stdout,
        /^customresourcedefinition\.apiextensions\.k8s\.io\/images\.imageinventory\.dev deleted$/m,
      );
      const check = inv(['check']);
      assert.equal(check.status, 1);
      assert.match(
        check.stdout,
        new RegExp(
          `^× CRD images\\.imageinventory\\.dev is installed at v1alpha1: ${IMAGE_LINE.replace(/[().`]/g, '\\$&')}$`,
          'm',
        ),
      );
      const scan = inv(['scan', '-n', 'default']);
      assert.equal(scan.stderr, `error: ${IMAGE_LINE}\n`);
    });
  });
});
