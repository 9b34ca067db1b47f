// The mocha hooks a suite uses to get its piece of a cluster, so each file says what it needs in
// one line instead of copying the same before/after preamble: a fresh namespace on the run's test
// API server (useNamespace), or the run's whole cluster of real kubelets (useWholeCluster).
// Call them at the top of a describe, before the suite's own hooks: mocha runs before-hooks in
// the order they are registered, so the suite's own hooks see what these set.
import { KubeRest } from '../../src/core/kube/rest.js';
import { adminConfig, newNamespace } from './kube.js';
import { wholeCluster, type WholeCluster } from './nodes.js';

/**
 * Makes a fresh namespace `<prefix>-<random>` before the suite's tests and hands its name to
 * `set`. With `remove`, deletes it after them (best effort: the test API server has no namespace
 * controller, so what is left in it stays; the suites that asked for this did so before).
 */
export function useNamespace(
  prefix: string,
  set: (name: string) => void,
  opts: { remove?: boolean } = {},
): void {
  let name: string | undefined;
  before(async () => {
    name = await newNamespace(prefix);
    set(name);
  });
  if (opts.remove) {
    after(async () => {
      if (!name) return;
      const rest = new KubeRest(adminConfig());
      try {
        await rest.request('DELETE', `/api/v1/namespaces/${name}`).catch(() => undefined);
      } finally {
        rest.close();
      }
    });
  }
}

/**
 * Hands the run's whole cluster of real kubelets to `set` before the suite's tests. The first
 * suite to ask starts it (up to ten minutes); the global teardown stops it.
 */
export function useWholeCluster(set: (c: WholeCluster) => void): void {
  before(async function () {
    this.timeout(600_000);
    set(await wholeCluster());
  });
}
