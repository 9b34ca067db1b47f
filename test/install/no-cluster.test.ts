// A new user with no cluster configured at all: no --kubeconfig, no $KUBECONFIG, no
// ~/.kube/config, not in a Pod. Every command that needs a cluster fails with exit 2 and one
// line naming what was tried; `inv version` still prints the client version (exit 0).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../cli/run-cli.js';
import { OUR_CRDS } from '../../src/core/kube/crds.js';

describe('no cluster configured', function () {
  this.timeout(120_000);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-nohome-'));
  const env = {
    HOME: home,
    KUBECONFIG: undefined,
    KUBERNETES_SERVICE_HOST: undefined,
    KUBERNETES_SERVICE_PORT: undefined,
  };
  after(() => fs.rmSync(home, { recursive: true, force: true }));

  const commands: string[][] = [
    ['scan', '-n', 'default'],
    ['scan', '-A', '--dry-run'],
    ['erase', '--images', 'nginx:1.25', '--no-wait'],
    ['images'],
    ['watch', '--health-probe-bind-address', '0', '--metrics-bind-address', '0'],
    ['install'],
    ['install', '--daemon'],
    ['uninstall'],
    ['check'],
  ];
  for (const args of commands) {
    it(`inv ${args.join(' ')}: exit 2, one line naming --kubeconfig, $KUBECONFIG, ~/.kube/config and in-cluster`, () => {
      const r = runCli(args, { env });
      assert.equal(r.status, 2, r.stderr);
      assert.equal(
        r.stderr,
        `error: no cluster configured: tried --kubeconfig (not given), $KUBECONFIG (not set), ~/.kube/config (${home}/.kube/config does not exist), in-cluster (not in a Pod: KUBERNETES_SERVICE_HOST is not set)\n`,
      );
      assert.equal(r.stdout, '');
    });
  }

  it('names a $KUBECONFIG that points nowhere', () => {
    const r = runCli(['scan', '-n', 'default'], { env: { ...env, KUBECONFIG: '/nonexistent/kc' } });
    assert.equal(r.status, 2);
    assert.equal(
      r.stderr,
      'error: no cluster configured: $KUBECONFIG names /nonexistent/kc, which does not exist\n',
    );
  });

  it('inv version prints the client version and says the server is unreachable (exit 0)', () => {
    const r = runCli(['version'], { env });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^Client: inv 0\.1\.0 \(node v\d+\.\d+\.\d+, linux-x64\)$/);
    assert.match(lines[1]!, /^Server: unreachable: no cluster configured: tried --kubeconfig/);
    assert.equal(lines.length, 2);
    const json = JSON.parse(runCli(['version', '-o', 'json'], { env }).stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['apiVersion', 'kind', 'client', 'serverError']);
  });

  it('inv --version and inv version --client never look for a cluster', () => {
    assert.match(runCli(['--version'], { env }).stdout, /^inv\/0\.1\.0 /);
    const r = runCli(['version', '--client'], { env });
    assert.equal(r.status, 0);
    assert.doesNotMatch(r.stdout, /Server/);
  });

  it('bad flag values are named before any cluster is looked for (exit 2)', () => {
    const cases: [string[], RegExp][] = [
      [['check', '--nodes', '--nodes-timeout', 'soon'], /--nodes-timeout/],
      [['install', '--timeout', 'soon'], /--timeout/],
      [['install', '--daemon', '--image', 'not an image'], /--image "not an image": not an image reference/],
      [['uninstall', '--yes'], /--crds/],
    ];
    for (const [args, re] of cases) {
      const r = runCli(args, { env });
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.doesNotMatch(r.stderr, /no cluster configured/);
    }
  });

  it('every bad flag of a command line is named at once, before any cluster is looked for', () => {
    const cases: [string[], RegExp[]][] = [
      [
        ['install', '--daemon', '--image', 'not an image', '--timeout', '60'],
        [/--timeout/, /--image "not an image"/],
      ],
      [
        ['check', '--nodes', '--nodes-timeout', 'soon', '--erase-namespace', 'Bad_NS'],
        [/--nodes-timeout/, /--erase-namespace "Bad_NS"/],
      ],
      [
        ['scan', '-n', 'Bad_NS', '-n', 'ok', '-l', 'app in ('],
        [/Bad_NS/, /--selector/],
      ],
      [
        ['images', '--registry', 'not a host', '--image', 'two words'],
        [/--registry/, /--image "two words"/],
      ],
      [
        ['erase', 'status', '--timeout', '0s', '--standalone'],
        [/--timeout/, /add --follow/],
      ],
    ];
    for (const [args, res] of cases) {
      const r = runCli(args, { env });
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^error: ${res.length} problems with the flags:\n`));
      for (const re of res) assert.match(r.stderr, re);
      assert.doesNotMatch(r.stderr, /no cluster configured/);
    }
  });

  it('inv install --dry-run prints the objects without a cluster', () => {
    const r = runCli(['install', '--daemon', '--dry-run', '--image', 'example.com/inv:2'], { env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^---\napiVersion: v1\nkind: Namespace\n/);
    assert.match(r.stdout, /image: example\.com\/inv:2\n/);
    assert.equal((r.stdout.match(/^kind: CustomResourceDefinition$/gm) ?? []).length, OUR_CRDS.length);
    // Without --image: the same objects, and on stderr the warning a real install refuses with.
    const noImage = runCli(['install', '--daemon', '--dry-run'], { env });
    assert.equal(noImage.status, 0, noImage.stderr);
    assert.match(noImage.stdout, /^---\napiVersion: v1\nkind: Namespace\n/);
    assert.equal(
      noImage.stderr,
      'warning: no image for the daemon and the erase workers: no registry publishes one, so build it from a checkout of inv and push it to a registry your nodes pull from (npm run image -- --push REGISTRY/inv:TAG), then: inv install --daemon --image REGISTRY/inv:TAG (add --image-pull-secret NAME if the registry needs credentials)\n',
    );
    const crdsOnly = runCli(['install', '--dry-run'], { env });
    assert.equal(crdsOnly.stderr, '', 'no image needed without --daemon');
    assert.deepEqual(crdsOnly.stdout.match(/^kind: .*$/gm), [
      'kind: Namespace',
      ...OUR_CRDS.map(() => 'kind: CustomResourceDefinition'),
      'kind: ClusterRole', // image-inventory-view: the built-in view role reads Images
      'kind: ConfigMap',
    ]);
  });
});
