// `inv watch` names every bad flag at once (kubectl's Options shape: complete, then validate
// all), exit 2, before it reads a kubeconfig or starts anything; it used to stop at the first.
import assert from 'node:assert/strict';
import { completeWatchOptions, type WatchFlags } from '../../src/cli/watch/watch-options.js';
import { runCli } from './run-cli.js';

const good: WatchFlags = {
  'metrics-bind-address': '127.0.0.1:8080',
  'health-probe-bind-address': '0',
  'leader-elect': true,
  'leader-elect-namespace': 'image-inventory-system',
  'leader-elect-lease-duration': '15s',
  'leader-elect-renew-deadline': '10s',
  'leader-elect-retry-period': '2s',
  'erase-controllers': true,
  'erase-namespace': 'image-inventory-workers',
  'erase-config-namespace': 'image-inventory-system',
  'resync-period': '1h',
  'shutdown-grace-period': '25s',
  'kube-api-qps': '50',
};

describe('inv watch: every bad flag at once', () => {
  it('completes good flags into options', () => {
    const r = completeWatchOptions({ ...good, namespaces: 'shop, web' });
    assert.ok('options' in r);
    assert.deepEqual(r.options.namespaces, ['shop', 'web']);
    assert.equal(r.options.leaseDurationMs, 15_000);
    assert.equal(r.options.qps, 50);
  });

  it('names each bad flag, in one error, exit 2', () => {
    const args = [
      'watch',
      '--namespaces',
      'Bad_NS',
      '--resync-period',
      'soon',
      '--kube-api-qps',
      'fast',
      '--metrics-bind-address',
      'nowhere:port',
      '--kubeconfig',
      '/nonexistent/config',
    ];
    const r = runCli(args);
    assert.equal(r.status, 2, r.stderr);
    for (const flag of ['--namespaces', '--resync-period', '--kube-api-qps', '--metrics-bind-address'])
      assert.ok(r.stderr.includes(flag), `${flag} named:\n${r.stderr}`);
    // Flags first: the missing kubeconfig is not what it complains about.
    assert.ok(!r.stderr.includes('/nonexistent/config'), r.stderr);
  });
});
