// The net under every "no warning" check of the Helm tests (warnings() in test/support/helm.ts):
// an API server's warning during an install reaches Helm's stderr, with Helm 4 and with Helm 3,
// and warnings() finds it. A throwaway chart, written here, draws two on a real API server: a Pod
// that a namespace's Pod Security `warn` level reports, and a field its kind does not have (Helm 3
// applies it with a warning; Helm 4 validates strictly and refuses it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { KubeRest } from '../../src/core/kube/rest.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';
import { helm, helm3, warnings } from '../support/helm.js';

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: privileged
spec:
  containers:
    - name: c
      image: registry.example/app:1
      securityContext:
        privileged: true
`;
const UNKNOWN_FIELD = `apiVersion: v1
kind: ConfigMap
metadata:
  name: odd
notAField: 1
data:
  a: b
`;

describe("Helm's warnings reach the tests: an API server warning fails them", function () {
  this.timeout(120_000);
  let server: FreshApiServer;
  let dir: string;
  const chart = (name: string, manifest: string) => {
    const d = path.join(dir, name);
    fs.mkdirSync(path.join(d, 'templates'), { recursive: true });
    fs.writeFileSync(path.join(d, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
    fs.writeFileSync(path.join(d, 'templates', 'objects.yaml'), manifest);
    return d;
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-warnings-'));
    server = await freshApiServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const rest = new KubeRest(kc);
    for (const ns of ['four', 'three'])
      await rest.request('POST', '/api/v1/namespaces', {
        body: {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns, labels: { 'pod-security.kubernetes.io/warn': 'restricted' } },
        },
      });
    rest.close();
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const install = (run: typeof helm, ns: string, chartDir: string) =>
    run(['install', path.basename(chartDir), chartDir, '--namespace', ns, '--kubeconfig', server.kubeconfig]);

  for (const [name, run, ns] of [
    ['Helm 4', helm, 'four'],
    ['Helm 3', helm3, 'three'],
  ] as const)
    it(`${name}: a Pod Security warning is installed, and found`, async () => {
      const r = await install(run, ns, chart(`pod-${ns}`, POD));
      assert.equal(r.code, 0, r.stderr);
      const found = warnings(r);
      assert.equal(found.length, 1, r.stderr);
      assert.match(found[0]!, /would violate PodSecurity \\"restricted:latest\\": privileged/);
    });

  it('Helm 3: a field its kind does not have is applied with a warning, found', async () => {
    const r = await install(helm3, 'three', chart('odd-three', UNKNOWN_FIELD));
    assert.equal(r.code, 0, r.stderr);
    assert.match(warnings(r).join('\n'), /unknown field \\"notAField\\"/);
  });

  it('Helm 4: the same field is refused (server-side apply validates strictly)', async () => {
    const r = await install(helm, 'four', chart('odd-four', UNKNOWN_FIELD));
    assert.notEqual(r.code, 0, 'helm install should fail');
    assert.match(r.stderr, /\.notAField: field not declared in schema/);
  });
});
