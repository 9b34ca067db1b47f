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
    it('prints exactly the documented JSON shape for the examples directory', () => {
      const r = runCli(['scan', '-f', 'examples', '-o', 'json']);
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as {
        images: Record<string, string>[];
        invalid: Record<string, string>[];
        skipped: unknown[];
        ignored: Record<string, number>;
      };
      assert.deepEqual(Object.keys(out), ['images', 'invalid', 'skipped', 'ignored']);
      assert.deepEqual(out.skipped, []);
      assert.deepEqual(out.ignored, { Namespace: 1, ReplicaSet: 1 });
      for (const i of out.images) assert.deepEqual(Object.keys(i), ['namespace', 'image', 'kinds', 'name']);
      for (const i of out.invalid)
        assert.deepEqual(Object.keys(i), ['namespace', 'source', 'container', 'image', 'reason']);
      const byImage = Object.fromEntries(out.images.map((i) => [i.image, i.kinds]));
      assert.deepEqual(byImage, {
        'cr.fluentbit.io/fluent/fluent-bit:3.0': 'DaemonSet',
        'docker.io/library/alpine:3.20': 'Pod',
        'docker.io/library/busybox:1.36': 'DaemonSet,Deployment,Pod',
        'docker.io/library/nginx:1.25': 'Deployment',
        'docker.io/library/postgres:16': 'CronJob',
        'docker.io/library/redis:7.2': 'StatefulSet',
        'ghcr.io/acme/migrate:v2@sha256:4c1e6a1b0d6ec2d58e74b1e8f4a8d07b7dd4e1b5e1a7f66a2f4c8b9e0d3a2f11':
          'Job',
        'quay.io/prometheus/nginx-exporter:v1.1.0': 'Deployment',
        'registry.example.com:5000/team/legacy-api:2.3.1': 'Deployment',
      });
      const key = (i: Record<string, string>) => `${i.namespace}\0${i.image}`;
      const sorted = [...out.images].sort((a, b) => (key(a) < key(b) ? -1 : 1));
      assert.deepEqual(out.images, sorted, 'sorted by namespace, then image');
      for (const i of out.images) assert.equal(i.name, imageResourceName(i.image!));
      assert.deepEqual(out.invalid, [
        {
          namespace: 'inv-demo',
          source: 'Pod/typo',
          container: 'app',
          image: 'docker.io/Acme/App:1.0',
          reason: out.invalid[0]!.reason,
        },
      ]);
      assert.match(out.invalid[0]!.reason!, /uppercase/);
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
      const out = JSON.parse(r.stdout) as { images: { namespace: string; kinds: string }[] };
      assert.deepEqual(
        out.images.map((i) => [i.namespace, i.kinds]),
        [
          ['other', 'Deployment'],
          ['team', 'Pod'],
        ],
      );
    });

    it('renders a table by default and YAML on request', () => {
      const t = runCli(['scan', '-f', 'examples']);
      assert.equal(t.status, 0);
      assert.match(t.stdout, /Namespace inv-demo/);
      assert.match(t.stdout, /IMAGE.*KINDS/);
      assert.match(t.stdout, /warning: Pod\/typo container app: invalid image/);
      const y = runCli(['scan', '-f', 'examples', '-o', 'yaml']);
      assert.match(y.stdout, /^images:\n/);
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
        namespaces: { images: { image: string; change: string }[] }[];
      };
      assert.deepEqual(
        data.namespaces[0]!.images.map((i) => [i.image, i.change]),
        [['docker.io/library/nginx:1.25', 'create']],
      );
      const second = runCli(['scan', '-n', ns, '--kubeconfig', kubeconfigPath()]);
      assert.equal(second.status, 0);
      assert.match(second.stdout, /0 created, 0 updated, 0 deleted, 1 unchanged/);
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

    it('exits 1 and names the namespace that failed', () => {
      const r = runCli(['scan', '-n', ns, '-n', 'does-not-exist', '--kubeconfig', kubeconfigPath()]);
      assert.equal(r.status, 1);
      assert.match(r.stdout, /error: namespace does-not-exist: namespace "does-not-exist" not found/);
      assert.match(r.stdout, new RegExp(`Namespace ${ns}`));
    });

    it('exits 2 on bad input, naming the value and the rule', () => {
      const bad = runCli(['scan', '-n', 'Bad_NS', '--kubeconfig', kubeconfigPath()]);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /invalid namespace "Bad_NS": must consist of lowercase/);
      const none = runCli(['scan', '--kubeconfig', kubeconfigPath()]);
      assert.equal(none.status, 2);
      assert.match(none.stderr, /nothing to scan/);
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
      const warning = r.stdout.split('\n').find((l) => l.startsWith('warning: Pod/huge'));
      assert.ok(warning, r.stdout.slice(0, 2000));
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
      assert.match(r.stdout, /0 created, 0 updated, 0 deleted, 0 unchanged/);
      assert.match(r.stdout, /skipped: namespace is being deleted/);
      assert.doesNotMatch(r.stdout, /\bcreated\b(?!,)/);
    });

    it('has --help with examples', () => {
      const r = runCli(['scan', '--help']);
      assert.equal(r.status, 0);
      assert.match(r.stdout, /EXAMPLES/);
      assert.match(r.stdout, /--dry-run/);
    });
  });
});
