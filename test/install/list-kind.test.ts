// The Image CRD's listKind is ImageInventoryList, not ImageList (the erase kind's name, in
// erase.imageinventory.dev). On a real API server: a CRD installed with the old listKind takes
// the new one in place (names are not part of stored objects), its Images stay (with the status
// written through the old CRD's status subresource, which the new one has not), lists of Images
// say ImageInventoryList, and `kubectl get images -A` fits 120 columns on a typical cluster.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { installCrds, readCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { imageResourceName } from '../../src/core/inventory/naming.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { repoRoot } from '../support/paths.js';
import { until } from '../watch/helpers.js';
import { decodeNodes, encodeNodes } from '../../src/core/erase/api/node-status.js';
import { buildReport } from '../../src/core/erase-request/report.js';
import { IMAGEJOBS_PATH, type ImageJob } from '../../src/core/erase/api/types.js';

interface CrdDoc {
  metadata: { name: string };
  spec: { names: { listKind: string }; versions: { subresources?: unknown }[] };
  status?: { acceptedNames?: { listKind?: string } };
}

const IMAGES = '/apis/imageinventory.dev/v1alpha1';

describe('Image CRD listKind and kubectl get images (real API server)', function () {
  this.timeout(120_000);
  let server: FreshApiServer;
  let rest: KubeRest;
  before(async function () {
    this.timeout(120_000);
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    rest = new KubeRest(kc);
  });
  after(async () => {
    await server?.stop();
  });

  it('an Image CRD installed with listKind ImageList takes ImageInventoryList in place; Images stay', async () => {
    const crds = readCrds() as unknown as CrdDoc[];
    const image = crds.find((c) => c.metadata.name === 'images.imageinventory.dev')!;
    assert.equal(image.spec.names.listKind, 'ImageInventoryList');
    const old = structuredClone(image);
    old.spec.names.listKind = 'ImageList';
    // That CRD also had a status subresource (status written through /status).
    for (const v of old.spec.versions) v.subresources = { status: {} };
    await installCrds(rest, [old] as never);
    const refs = [
      ['ingress-nginx', 'registry.k8s.io/ingress-nginx/controller:v1.11.2', 'Deployment'],
      ['monitoring', 'quay.io/prometheus/node-exporter:v1.8.2', 'DaemonSet'],
      ['kube-system', 'registry.k8s.io/coredns/coredns:v1.11.3', 'Deployment'],
      ['shop', 'docker.io/library/nginx:1.25', 'CronJob,Deployment,Pod'],
    ];
    for (const [ns, ref, kinds] of refs) {
      await rest
        .request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })
        .catch(() => undefined);
      const created = await rest.request<{ metadata: { name: string } }>(
        'POST',
        `${IMAGES}/namespaces/${ns}/images`,
        {
          body: {
            apiVersion: 'imageinventory.dev/v1alpha1',
            kind: 'Image',
            metadata: { name: imageResourceName(ref!) },
            spec: { image: ref },
          },
        },
      );
      await rest.request('PUT', `${IMAGES}/namespaces/${ns}/images/${created.metadata.name}/status`, {
        body: { ...created, status: { kinds, users: [`Deployment/x`], userCount: 3 } },
      });
    }
    assert.equal((await rest.get<{ kind: string }>(`${IMAGES}/images`)).kind, 'ImageList');
    // Then the new definition over it, as `inv install` or a chart upgrade applies it.
    await installCrds(rest, [image] as never);
    await until(
      'the new listKind accepted',
      async () =>
        (
          await rest.get<CrdDoc>(
            `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${image.metadata.name}`,
          )
        ).status?.acceptedNames?.listKind === 'ImageInventoryList',
      30_000,
      200,
    );
    // The server answers 429 while it swaps the resource's storage for the new names.
    let list: { kind: string; items: unknown[] } | undefined;
    await until(
      'Images listed under the new kind',
      async () => {
        list = await rest.get<{ kind: string; items: unknown[] }>(`${IMAGES}/images`).catch(() => undefined);
        return list?.kind === 'ImageInventoryList';
      },
      30_000,
      200,
    );
    assert.equal(list!.kind, 'ImageInventoryList');
    assert.equal(list!.items.length, refs.length, 'every Image is still there');
    // The erase kinds install beside it with their own list kinds.
    await installCrds(
      rest,
      readCrds().filter((c) => c.metadata.name.endsWith('erase.imageinventory.dev')),
    );
    let lists: { kind: string } | undefined;
    await until(
      'ImageLists served',
      async () =>
        (lists = await rest
          .get<{ kind: string }>('/apis/erase.imageinventory.dev/v1alpha1/imagelists')
          .catch(() => undefined)),
      30_000,
      200,
    );
    assert.equal(lists!.kind, 'ImageListList');

    // kubectl get images -A: the default columns fit 120 (the full ref is a -o wide column).
    const { binaries } = (await import(`${repoRoot}/scripts/cluster.mjs`)) as {
      binaries: { kubectl: string };
    };
    const run = (args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(binaries.kubectl, ['--kubeconfig', server.kubeconfig, ...args], (err, out, e) =>
          err ? reject(new Error(e)) : resolve(out),
        ),
      );
    const table = await run(['get', 'images', '-A']);
    const width = Math.max(
      ...table
        .trimEnd()
        .split('\n')
        .map((l) => l.trimEnd().length),
    );
    process.stderr.write(`      (kubectl get images -A: ${width} columns)\n`);
    assert.ok(width <= 120, `${width} columns:\n${table}`);
    assert.match(table.split('\n')[0]!, /^NAMESPACE\s+NAME\s+KINDS\s+USERS\s+AGE$/);
    // The status written through the old CRD's /status is where the new one reads it.
    assert.match(table, /\sCronJob,Deployment,Pod\s+3\s/);
    const wide = await run(['get', 'images', '-A', '-o', 'wide']);
    assert.ok(wide.includes('registry.k8s.io/ingress-nginx/controller:v1.11.2'), wide);
  });

  it('an ImageJob written by inv 0.1 (pipe-encoded node lines) is read after the CRD upgrade, and rewritten as objects', async () => {
    type Schema = { properties: Record<string, Schema>; items?: unknown; [k: string]: unknown };
    const crds = readCrds() as unknown as {
      metadata: { name: string };
      spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
    }[];
    const jobCrd = crds.find((c) => c.metadata.name === 'imagejobs.erase.imageinventory.dev')!;
    // The 0.1 definition: status.nodes a list of strings.
    const old = structuredClone(jobCrd);
    old.spec.versions[0]!.schema.openAPIV3Schema.properties.status!.properties.nodes = {
      type: 'array',
      items: { type: 'string' },
    } as unknown as Schema;
    await installCrds(rest, [old] as never);
    const created = await rest.request<ImageJob>('POST', IMAGEJOBS_PATH, {
      body: {
        apiVersion: 'erase.imageinventory.dev/v1alpha1',
        kind: 'ImageJob',
        metadata: { name: 'old-1-abcde' },
        spec: {
          imageList: { name: 'old', uid: 'u', generation: 1 },
          namespace: 'w',
          images: ['busybox:1'],
          config: {},
        },
      },
    });
    // The API server applies a changed CRD schema a moment after the update is accepted: a
    // status write waits until the schema it is meant for serves (a 422 until then).
    const putStatus = (body: unknown) =>
      until(
        'status written under the installed schema',
        async () => {
          try {
            await rest.request('PUT', `${IMAGEJOBS_PATH}/old-1-abcde/status`, { body });
            return true;
          } catch (e) {
            if (/\b422\b/.test(String(e))) return false;
            throw e;
          }
        },
        30_000,
        100,
      );
    await putStatus({
      ...created,
      status: {
        phase: 'Running',
        desired: 2,
        nodes: ['n1|Succeeded|2|1|0|0|0|4000|', 'n2|Pending|0|0|0|0|0|0|'],
      },
    });
    // The new definition over it: the stored lines still come back, and read.
    await installCrds(rest, [jobCrd] as never);
    const job = await rest.get<ImageJob>(`${IMAGEJOBS_PATH}/old-1-abcde`);
    const nodes = decodeNodes(job.status?.nodes);
    assert.deepEqual(
      nodes.map((n) => [n.node, n.outcome, n.removed, n.bytes]),
      [
        ['n1', 'Succeeded', 2, 4000],
        ['n2', 'Pending', 0, 0],
      ],
    );
    const report = buildReport({ metadata: { name: 'old' }, spec: { images: ['busybox:1'] } }, { job });
    assert.deepEqual(
      report.results.map((r) => r.node),
      ['n1', 'n2'],
    );
    // The controller's next status write (objects) is accepted by the new schema.
    await putStatus({ ...job, status: { ...job.status, nodes: encodeNodes(nodes) } });
    const after = await rest.get<ImageJob>(`${IMAGEJOBS_PATH}/old-1-abcde`);
    assert.deepEqual(after.status?.nodes?.[0], {
      node: 'n1',
      outcome: 'Succeeded',
      removed: 2,
      inUse: 1,
      bytes: 4000,
    });
  });
});
