// Every printer column of every CRD in crds/, as `kubectl get` (the same release as the API
// server) shows it for real objects: an Image written by `inv scan`, and an ImageList and
// ImageJob from a real erase. A column must render its field's value, never `<invalid>`, and
// a date column must render an age.
import assert from 'node:assert/strict';
import { readCrds } from '../../src/core/kube/crd-install.js';
import { runCli } from '../cli/run-cli.js';
import { kubectl, until, type WholeCluster } from '../support/nodes.js';
import { NodeEraseEnv } from './helpers.js';
import { useWholeCluster } from '../support/suite-hooks.js';

interface Column {
  name: string;
  type: string;
  jsonPath: string;
}

/** The value at a simple `.a.b.c` JSONPath. */
function at(obj: unknown, jsonPath: string): unknown {
  let cur: unknown = obj;
  for (const key of jsonPath.split('.').filter(Boolean)) {
    cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[key] : undefined;
  }
  return cur;
}

describe('CRD printer columns under kubectl get (real API server)', function () {
  this.timeout(180_000);
  let c: WholeCluster;
  let env: NodeEraseEnv;
  useWholeCluster((x) => (c = x));
  before(async function () {
    this.timeout(600_000);
    env = await new NodeEraseEnv(c).setup();
    env.startControllers();
  });
  after(async () => {
    await env?.teardown();
  });

  it('shows every column of Image, ImageList and ImageJob with its value; dates as ages', async () => {
    // An Image: a Deployment in the namespace, scanned by `inv scan`.
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: env.namespace },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: `docker.io/library/printer-${env.tag}:1` }] },
        },
      },
    };
    await env.rest.request('POST', `/apis/apps/v1/namespaces/${env.namespace}/deployments`, { body: dep });
    const scan = runCli(['scan', '-n', env.namespace, '--kubeconfig', c.kubeconfig]);
    assert.equal(scan.status, 0, scan.stderr);
    // An ImageList and its ImageJob: a real erase, finished.
    await env.wait(await env.erase({ images: [`nothing-${env.tag}:1`] }));
    // A scheduled ImageList whose next run is years away (29 February).
    await env.erase({ images: [`nothing-${env.tag}:1`], schedule: '0 3 29 2 *' });
    await until('the scheduled list has its next run', async () => {
      const lists = await env.rest.list<{ status?: { nextScheduleTime?: string } }>(
        '/apis/erase.imageinventory.dev/v1alpha1/imagelists',
      );
      return lists.items.some((l) => l.status?.nextScheduleTime);
    });

    const checked: string[] = [];
    for (const crd of readCrds()) {
      const spec = (crd as unknown as { spec: unknown }).spec as {
        names: { plural: string };
        scope: string;
        group: string;
        versions: { name: string; additionalPrinterColumns?: Column[] }[];
      };
      const columns = spec.versions[0]!.additionalPrinterColumns ?? [];
      const resource = `${spec.names.plural}.${spec.group}`;
      const scope = spec.scope === 'Namespaced' ? ['-n', env.namespace] : [];
      const json = await kubectl(c, ['get', resource, ...scope, '-o', 'json']);
      assert.equal(json.code, 0, json.stderr);
      const items = (JSON.parse(json.stdout) as { items: { metadata: { name: string } }[] }).items;
      const mine = items.filter((o) => o.metadata.name.includes(env.tag) || spec.scope === 'Namespaced');
      assert.ok(mine.length > 0, `an object of ${resource} to show`);
      const table = await until(`${resource} with every column filled`, async () => {
        // -o wide: priority columns (Protected) are shown too.
        const t = await kubectl(c, ['get', resource, ...scope, '-o', 'wide']);
        return t.code === 0 && !/<invalid>/.test(t.stdout) ? t : undefined;
      });
      const lines = table.stdout.trim().split('\n');
      const header = lines[0]!.split(/\s{2,}/);
      assert.deepEqual(header, ['NAME', ...columns.map((col) => col.name.toUpperCase())], resource);
      // kubectl leaves a column without a value blank: cut rows at the header's offsets.
      const starts: number[] = [];
      for (const h of header) starts.push(lines[0]!.indexOf(h, starts.length ? starts.at(-1)! + 1 : 0));
      const cut = (l: string) => starts.map((at, i) => l.slice(at, starts[i + 1]).trim());
      for (const obj of mine) {
        const row = lines.find((l) => cut(l)[0] === obj.metadata.name);
        assert.ok(row, `a row for ${obj.metadata.name}`);
        const cells = cut(row);
        columns.forEach((col, i) => {
          const cell = cells[i + 1]!;
          const value = at(obj, col.jsonPath);
          assert.notEqual(cell, '<invalid>', `${resource} ${col.name}`);
          if (value === undefined) return;
          if (col.type === 'date') assert.match(cell, /^\d+(s|m|h|d)(\d+(s|m|h))?$/, `${col.name} is an age`);
          else if (Array.isArray(value)) assert.equal(cell, JSON.stringify(value), col.name);
          else assert.equal(cell, String(value), `${resource} ${col.name}`);
          checked.push(`${resource}/${col.name}`);
        });
      }
    }
    for (const must of [
      'images.imageinventory.dev/Image',
      'images.imageinventory.dev/Kinds',
      'imagelists.erase.imageinventory.dev/Images',
      'imagelists.erase.imageinventory.dev/Last Result',
      'imagelists.erase.imageinventory.dev/Schedule',
      'imagelists.erase.imageinventory.dev/Next Run',
      'imagejobs.erase.imageinventory.dev/DeleteAfter',
      'imagejobs.erase.imageinventory.dev/Succeeded',
    ]) {
      assert.ok(checked.includes(must), `${must} was checked against a value`);
    }
  });
});
