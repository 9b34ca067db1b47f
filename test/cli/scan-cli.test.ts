// `inv scan` as a user runs it: offline on files and stdin, and online against the real
// API server, checking output shapes and exit codes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { imageResourceName } from '../../src/core/inventory/naming.js';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, kubeconfigPath, newNamespace } from '../support/kube.js';
import { runCli } from './run-cli.js';

describe('inv scan (CLI)', () => {
  describe('offline (-f)', () => {
    it('prints the ScanReport document for the examples directory', () => {
      const r = runCli(['scan', '-f', 'examples', '-o', 'json']);
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as {
        apiVersion: string;
        kind: string;
        source: string;
        namespaces: {
          namespace: string;
          images: { image: string; kinds: string[]; name: string; status: string }[];
          invalid: Record<string, string>[];
        }[];
        skipped: unknown[];
        ignored: Record<string, number>;
        totals: Record<string, number>;
      };
      assert.equal(out.apiVersion, 'cli.imageinventory.dev/v1');
      assert.equal(out.kind, 'ScanReport');
      assert.equal(out.source, 'files');
      assert.deepEqual(out.skipped, []);
      assert.deepEqual(out.ignored, { Namespace: 1 });
      const images = out.namespaces.flatMap((n) => n.images);
      for (const i of images) assert.deepEqual(Object.keys(i), ['image', 'name', 'kinds', 'status']);
      const byImage = Object.fromEntries(images.map((i) => [i.image, i.kinds]));
      assert.deepEqual(byImage, {
        'cr.fluentbit.io/fluent/fluent-bit:3.0': ['DaemonSet'],
        'docker.io/library/alpine:3.20': ['Pod'],
        'docker.io/library/busybox:1.36': ['DaemonSet', 'Deployment', 'Pod'],
        'docker.io/library/nginx:1.25': ['Deployment'],
        'docker.io/library/postgres:16': ['CronJob'],
        'docker.io/library/redis:7.2': ['StatefulSet'],
        'ghcr.io/acme/migrate:v2@sha256:4c1e6a1b0d6ec2d58e74b1e8f4a8d07b7dd4e1b5e1a7f66a2f4c8b9e0d3a2f11': [
          'Job',
        ],
        'quay.io/prometheus/nginx-exporter:v1.1.0': ['Deployment'],
        'registry.example.com:5000/team/legacy-api:2.3.1': ['Deployment'],
      });
      assert.deepEqual(
        images.map((i) => i.image),
        images.map((i) => i.image).sort(),
        'sorted by image within a namespace',
      );
      for (const i of images) {
        assert.equal(i.name, imageResourceName(i.image));
        assert.equal(i.status, 'found');
      }
      assert.equal(out.totals.found, images.length);
      const invalid = out.namespaces.flatMap((n) =>
        n.invalid.map((i): Record<string, string> => ({ ns: n.namespace, ...i })),
      );
      assert.deepEqual(invalid, [
        {
          ns: 'inv-demo',
          source: 'Pod/typo',
          container: 'app',
          image: 'docker.io/Acme/App:1.0',
          reason: invalid[0]!.reason,
        },
      ]);
      assert.match(invalid[0]!.reason!, /uppercase/);
      assert.match(r.stderr, /warning: namespace inv-demo: Pod\/typo container app: invalid image/);
    });

    it('reads a List from stdin and applies --namespace to objects without one', () => {
      const list = {
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'a' },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'd', namespace: 'other' },
            spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
          },
        ],
      };
      const r = runCli(['scan', '-f', '-', '--namespace', 'team', '-o', 'json'], {
        input: JSON.stringify(list),
      });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as {
        namespaces: { namespace: string; images: { kinds: string[] }[] }[];
      };
      assert.deepEqual(
        out.namespaces.map((n) => [n.namespace, n.images.map((i) => i.kinds)]),
        [
          ['other', [['Deployment']]],
          ['team', [['Pod']]],
        ],
      );
    });

    it('renders a borderless table with a totals line by default, and YAML, names, wide on request', () => {
      const t = runCli(['scan', '-f', 'examples']);
      assert.equal(t.status, 0);
      const lines = t.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^IMAGE {3,}KINDS {3,}STATUS$/);
      assert.match(lines[1]!, /^cr\.fluentbit\.io\/fluent\/fluent-bit:3\.0 {3,}DaemonSet {3,}found$/);
      assert.doesNotMatch(t.stdout, /[│┌└─]/, 'no borders, even piped');
      assert.equal(
        lines.at(-1),
        'namespace inv-demo: 9 images: 9 found; 1 invalid ref (offline: nothing written)',
      );
      assert.match(t.stderr, /warning: namespace inv-demo: Pod\/typo container app: invalid image/);
      const y = runCli(['scan', '-f', 'examples', '-o', 'yaml']);
      assert.match(y.stdout, /^apiVersion: cli\.imageinventory\.dev\/v1\nkind: ScanReport\n/);
      const n = runCli(['scan', '-f', 'examples', '-o', 'name']);
      assert.equal(
        n.stdout.split('\n')[0],
        'cr.fluentbit.io/fluent/fluent-bit:3.0',
        'offline: refs, no objects',
      );
      assert.equal(n.stdout.trimEnd().split('\n').length, 9);
      const nh = runCli(['scan', '-f', 'examples', '--no-headers']);
      assert.equal(nh.stdout.trimEnd().split('\n').length, 9, 'rows only: no header, no totals');
      const w = runCli(['scan', '-f', 'examples', '-o', 'wide']);
      assert.match(w.stdout.split('\n')[0]!, /STATUS {3}NAME$/);
    });

    it('rejects stray arguments, naming the word, with exit 2 and one error line', () => {
      const r = runCli(['scan', '-f', 'examples', '-n', 'team', 'extra']);
      assert.equal(r.status, 2);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, 'error: Unexpected argument: extra (see --help)\n');
      const i = runCli(['images', '--offline', '-f', 'examples', '-n', 'inv-demo', 'extra']);
      assert.equal(i.status, 2);
      assert.equal(i.stderr, 'error: Unexpected argument: extra (see --help)\n');
    });

    it("prints oclif's own errors in the one style, unwrapped when piped", () => {
      const r = runCli(['scan', '--output', `${'x'.repeat(120)}`]);
      assert.equal(r.status, 2);
      assert.match(
        r.stderr,
        /^error: unable to match a printer suitable for the output format "x{120}", allowed formats are: table, wide, name, json, yaml, [^\n]*\n$/,
      );
      assert.doesNotMatch(r.stderr, /›|Error:/);
    });

    it('rejects unreadable input with exit code 2 and names it', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bad-'));
      fs.writeFileSync(path.join(dir, 'bad.yaml'), 'kind: Pod\n  bad: [indent\n');
      const r = runCli(['scan', '-f', path.join(dir, 'bad.yaml')]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /bad\.yaml: line \d+: not valid YAML or JSON/);
      const missing = runCli(['scan', '-f', path.join(dir, 'nope.yaml')]);
      assert.equal(missing.status, 2);
      assert.match(missing.stderr, /nope\.yaml: no such file/);
      fs.rmSync(dir, { recursive: true });
    });
  });

  describe('online', () => {
    let ns: string;
    before(async () => {
      const rest = new KubeRest(adminConfig());
      await installCrds(rest);
      rest.close();
      ns = await newNamespace('cli');
      const r = runCli(['scan', '-f', 'examples', '-o', 'json']);
      assert.equal(r.status, 0);
    });

    it('rebuilds a namespace, then reports it unchanged; exit 0', async () => {
      const apps = (await import('@kubernetes/client-node')).AppsV1Api;
      await adminConfig()
        .makeApiClient(apps)
        .createNamespacedDeployment({
          namespace: ns,
          body: {
            metadata: { name: 'web' },
            spec: {
              selector: { matchLabels: { a: 'b' } },
              template: {
                metadata: { labels: { a: 'b' } },
                spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] },
              },
            },
          },
        });
      const first = runCli(['scan', '-n', ns, '--kubeconfig', kubeconfigPath(), '-o', 'json']);
      assert.equal(first.status, 0, first.stderr);
      const data = JSON.parse(first.stdout) as {
        namespaces: { images: { image: string; status: string }[] }[];
      };
      assert.deepEqual(
        data.namespaces[0]!.images.map((i) => [i.image, i.status]),
        [['docker.io/library/nginx:1.25', 'created']],
      );
      const second = runCli(['scan', '-n', ns, '--kubeconfig', kubeconfigPath()]);
      assert.equal(second.status, 0);
      // The table says what the JSON says: "unchanged", in the STATUS column and the totals.
      assert.deepEqual(second.stdout.split('\n'), [
        'IMAGE                          KINDS        STATUS',
        'docker.io/library/nginx:1.25   Deployment   unchanged',
        '',
        `namespace ${ns}: 1 image: 0 created, 0 updated, 0 deleted, 1 unchanged`,
        '',
      ]);
      const json = JSON.parse(
        runCli(['scan', '-n', ns, '--kubeconfig', kubeconfigPath(), '-o', 'json']).stdout,
      ) as { namespaces: { images: { status: string }[] }[] };
      assert.equal(json.namespaces[0]!.images[0]!.status, 'unchanged');
      const name = runCli(['scan', '-n', ns, '--kubeconfig', kubeconfigPath(), '-o', 'name']);
      assert.equal(
        name.stdout,
        `image.imageinventory.dev/${imageResourceName('docker.io/library/nginx:1.25')}\n`,
      );
    });

    it('scans every namespace with -A (dry run: writes nothing)', () => {
      const r = runCli(['scan', '-A', '--dry-run', '--kubeconfig', kubeconfigPath(), '-o', 'json']);
      assert.equal(r.status, 0, r.stderr + r.stdout);
      const data = JSON.parse(r.stdout) as { dryRun: boolean; namespaces: { namespace: string }[] };
      assert.equal(data.dryRun, true);
      const names = data.namespaces.map((n) => n.namespace);
      assert.ok(names.includes(ns) && names.includes('kube-system') && names.includes('default'));
      assert.deepEqual(names, [...names].sort());
    });

    it('prints one table with a NAMESPACE column and a totals line for -A', () => {
      const r = runCli(['scan', '-A', '--dry-run', '--kubeconfig', kubeconfigPath()]);
      assert.equal(r.status, 0, r.stderr);
      const lines = r.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^NAMESPACE {3,}IMAGE {3,}KINDS {3,}STATUS/);
      assert.equal(lines.filter((l) => l.startsWith('NAMESPACE')).length, 1, 'one table');
      assert.ok(lines.some((l) => l.startsWith(ns) && l.includes('docker.io/library/nginx:1.25')));
      assert.match(
        lines.at(-1)!,
        /^\d+ namespaces: \d+ images?: \d+ would-create, \d+ would-update, \d+ would-delete, \d+ unchanged.*\(dry run: nothing written\)$/,
      );
    });

    it('exits 1 when some namespaces failed, naming them on stderr; 2 when nothing was scanned', () => {
      const r = runCli(['scan', '-n', ns, '-n', 'does-not-exist', '--kubeconfig', kubeconfigPath()]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /error: namespace does-not-exist: namespace "does-not-exist" not found/);
      assert.match(r.stdout, new RegExp(`^${ns} {3,}docker\\.io/library/nginx:1\\.25`, 'm'));
      const alone = runCli(['scan', '-n', 'does-not-exist', '--kubeconfig', kubeconfigPath()]);
      assert.equal(alone.status, 2, alone.stderr);
      assert.match(alone.stderr, /^error: namespace does-not-exist: namespace "does-not-exist" not found$/m);
    });

    it("scans the kubeconfig context's namespace without -n, and says which", () => {
      const kc = adminConfig();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-ctx-'));
      const file = path.join(dir, 'config');
      kc.contexts = kc.contexts.map((c) => (c.name === kc.currentContext ? { ...c, namespace: ns } : c));
      fs.writeFileSync(file, kc.exportConfig());
      const r = runCli(['scan', '--kubeconfig', file, '-o', 'json']);
      fs.rmSync(dir, { recursive: true });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`Scanning namespace ${ns} \\(the namespace of context "`));
      const data = JSON.parse(r.stdout) as { namespaces: { namespace: string }[] };
      assert.deepEqual(
        data.namespaces.map((n) => n.namespace),
        [ns],
      );
      const dflt = runCli(['scan', '--dry-run', '--kubeconfig', kubeconfigPath()]);
      assert.equal(dflt.status, 0, dflt.stderr);
      // The test kubeconfig's context names "default" (or none, which means "default" too).
      assert.match(dflt.stderr, /^Scanning namespace default \(/);
    });

    it('with -l reads only the selected workloads and writes nothing', async () => {
      const core = adminConfig().makeApiClient((await import('@kubernetes/client-node')).CoreV1Api);
      const lns = await newNamespace('sel');
      for (const [name, app, image] of [
        ['a', 'web', 'nginx:1.27'],
        ['b', 'db', 'postgres:16'],
      ] as const) {
        await core.createNamespacedPod({
          namespace: lns,
          body: { metadata: { name, labels: { app } }, spec: { containers: [{ name: 'c', image }] } },
        });
      }
      const r = runCli(['scan', '-n', lns, '-l', 'app=web', '--kubeconfig', kubeconfigPath(), '-o', 'json']);
      assert.equal(r.status, 0, r.stderr);
      const data = JSON.parse(r.stdout) as {
        readOnly: boolean;
        selector: string;
        namespaces: { images: { image: string; status: string }[]; writes: number }[];
      };
      assert.equal(data.readOnly, true);
      assert.equal(data.selector, 'app=web');
      assert.deepEqual(
        data.namespaces[0]!.images.map((i) => [i.image, i.status]),
        [['docker.io/library/nginx:1.27', 'found']],
      );
      const rest = new KubeRest(adminConfig());
      const imgs = await rest.get<{ items: unknown[] }>(
        `/apis/imageinventory.dev/v1alpha1/namespaces/${lns}/images`,
      );
      rest.close();
      assert.equal(imgs.items.length, 0, 'a selector scan writes no Image');
      const t = runCli(['scan', '-n', lns, '-l', 'app=web', '--kubeconfig', kubeconfigPath()]);
      assert.match(t.stdout, /\(selector app=web: read-only, the inventory was not written\)\n$/);
      const bad = runCli(['scan', '-n', lns, '-l', 'app in (x', '--kubeconfig', kubeconfigPath()]);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /^error: --selector "app in \(x": cannot parse selector requirement/);
    });

    it('exits 2 on bad input, naming the value and the rule', () => {
      const bad = runCli(['scan', '-n', 'Bad_NS', '--kubeconfig', kubeconfigPath()]);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /invalid namespace "Bad_NS": must consist of lowercase/);
      const ctx = runCli(['scan', '-n', ns, '--kubeconfig', kubeconfigPath(), '--context', 'nope']);
      assert.equal(ctx.status, 2);
      assert.match(ctx.stderr, /context "nope" is not in the kubeconfig/);
      const noCfg = runCli(['scan', '-n', ns, '--kubeconfig', '/nonexistent/config']);
      assert.equal(noCfg.status, 2);
      assert.match(noCfg.stderr, /kubeconfig \/nonexistent\/config does not exist/);
    });

    it('keeps Events and warnings short for a 200,000-character image, with its start and a hash', async () => {
      const core = adminConfig().makeApiClient((await import('@kubernetes/client-node')).CoreV1Api);
      const huge = `example.com/${'A'.repeat(200_000)}:1`;
      const hns = await newNamespace('huge');
      await core.createNamespacedPod({
        namespace: hns,
        body: { metadata: { name: 'huge' }, spec: { containers: [{ name: 'c', image: huge }] } },
      });
      const r = runCli(['scan', '-n', hns, '--kubeconfig', kubeconfigPath()]);
      assert.equal(r.status, 0, r.stderr);
      const warning = r.stderr.split('\n').find((l) => l.startsWith(`warning: namespace ${hns}: Pod/huge`));
      assert.ok(warning, r.stderr.slice(0, 2000));
      assert.ok(warning.length < 400, `warning line is ${warning.length} characters`);
      assert.match(warning, /example\.com\/AAAA.*200014 characters, sha256 [0-9a-f]{12}/);
      const events = await core.listNamespacedEvent({ namespace: hns });
      const ev = events.items.find((e) => e.reason === 'InvalidImageRef');
      assert.ok(ev?.message);
      assert.ok(ev.message.length <= 1024, `Event message is ${ev.message.length} characters`);
      assert.match(
        ev.message,
        /^container c: image "example\.com\/AAAA.*sha256 [0-9a-f]{12}\)" is not a valid reference/,
      );
    });

    it('shows skipped work as skipped in the table (a namespace being deleted), as the JSON does', async () => {
      const core = adminConfig().makeApiClient((await import('@kubernetes/client-node')).CoreV1Api);
      const tns = await newNamespace('term');
      await core.createNamespacedPod({
        namespace: tns,
        body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
      });
      // No namespace controller runs against this API server: the namespace stays Terminating.
      await core.deleteNamespace({ name: tns });
      const r = runCli(['scan', '-n', tns, '--kubeconfig', kubeconfigPath()]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /0 created, 0 updated, 0 deleted, 0 unchanged, 1 skipped/);
      assert.match(
        r.stdout,
        /^docker\.io\/library\/nginx:1\.25 {3,}Pod {3,}skipped {3,}namespace is being deleted$/m,
      );
      assert.doesNotMatch(r.stdout, /\bcreated\b(?!,)/);
    });

    it('has --help, -h and `inv help scan`, with examples', () => {
      for (const args of [
        ['scan', '--help'],
        ['scan', '-h'],
        ['help', 'scan'],
      ]) {
        const r = runCli(args);
        assert.equal(r.status, 0, args.join(' '));
        assert.match(r.stdout, /EXAMPLES/);
        assert.match(r.stdout, /--dry-run/);
        assert.match(r.stdout, /-l, --selector/);
      }
      const unknown = runCli(['help', 'nosuch']);
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /^error: unknown command "nosuch"/);
    });
  });
});
