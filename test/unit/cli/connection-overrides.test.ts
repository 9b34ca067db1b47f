// kubectl's connection flags over a kubeconfig (core/kube/connection.ts): which entries are
// picked, which fields each flag replaces, and what is refused, as clientcmd merges them.
import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import type https from 'node:https';
import {
  applyOverrides,
  hasOverrides,
  mergeCluster,
  overrideProblems,
  serverUrl,
} from '../../../src/core/kube/connection.js';
import { lineTarget } from '../../../src/cli/completion/complete.js';

function base(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'prod',
        server: 'https://prod:6443',
        caData: 'UFJPRA==',
        tlsServerName: 'prod.internal',
        skipTLSVerify: false,
      },
      { name: 'dev', server: 'https://dev:6443', skipTLSVerify: false },
    ],
    users: [
      { name: 'admin', certData: 'Q0VSVA==', keyData: 'S0VZ' },
      { name: 'exec', exec: { command: 'get-token' } },
      { name: 'reader', token: 'reader-token' },
    ],
    contexts: [{ name: 'prod', cluster: 'prod', user: 'admin', namespace: 'shop' }],
    currentContext: 'prod',
  });
  return kc;
}

const merged = (o: Parameters<typeof applyOverrides>[1]) => {
  const r = applyOverrides(base(), o);
  if (r.problem !== undefined) throw new Error(r.problem);
  return r.kc;
};

describe('connection flags over a kubeconfig', () => {
  it('changes nothing when no flag is given', () => {
    const kc = base();
    assert.equal(hasOverrides({ asGroups: [], insecureSkipTlsVerify: false }), false);
    assert.equal((applyOverrides(kc, {}) as { kc: KubeConfig }).kc, kc);
  });

  it('--user and --cluster pick entries by name; the context keeps its name and namespace', () => {
    const kc = merged({ user: 'reader', cluster: 'dev' });
    assert.equal(kc.getCurrentContext(), 'prod');
    assert.equal(kc.getContextObject('prod')?.namespace, 'shop');
    assert.equal(kc.getCurrentCluster()?.server, 'https://dev:6443');
    assert.equal(kc.getCurrentUser()?.token, 'reader-token');
  });

  it('names the entry that is not there, with the known ones', () => {
    assert.deepEqual(applyOverrides(base(), { user: 'nobody' }), {
      problem: 'user "nobody" is not in the kubeconfig (--user; known: admin, exec, reader)',
    });
    assert.deepEqual(applyOverrides(base(), { cluster: 'x' }), {
      problem: 'cluster "x" is not in the kubeconfig (--cluster; known: prod, dev)',
    });
  });

  it('--server keeps the CA but drops the kubeconfig tls-server-name; --tls-server-name sets it', () => {
    const kc = merged({ server: '10.0.0.1:6443' });
    assert.equal(kc.getCurrentCluster()?.server, 'https://10.0.0.1:6443');
    assert.equal(kc.getCurrentCluster()?.caData, 'UFJPRA==');
    assert.equal(kc.getCurrentCluster()?.tlsServerName, undefined);
    assert.equal(merged({ tlsServerName: 'api' }).getCurrentCluster()?.tlsServerName, 'api');
    assert.equal(merged({ tlsServerName: 'api' }).getCurrentCluster()?.server, 'https://prod:6443');
  });

  it('--certificate-authority or --insecure-skip-tls-verify replace all of the CA settings', () => {
    const ca = mergeCluster(base().getCluster('prod'), { certificateAuthority: '/ca.crt' }, 'prod');
    assert.deepEqual([ca?.caFile, ca?.caData, ca?.skipTLSVerify], ['/ca.crt', undefined, false]);
    const insecure = mergeCluster(base().getCluster('prod'), { insecureSkipTlsVerify: true }, 'prod');
    assert.deepEqual(
      [insecure?.caFile, insecure?.caData, insecure?.skipTLSVerify],
      [undefined, undefined, true],
    );
  });

  it('--server alone needs no kubeconfig entry', () => {
    const kc = applyOverrides(new KubeConfig(), { server: 'https://x:6443', token: 't' });
    assert.ok(!('problem' in kc && kc.problem));
    const out = (kc as { kc: KubeConfig }).kc;
    assert.equal(out.getCurrentCluster()?.server, 'https://x:6443');
    assert.equal(out.getCurrentUser()?.token, 't');
  });

  it('--token replaces the token, exec plugin and password; a client certificate stays', () => {
    const withToken = merged({ token: 'T' }).getCurrentUser();
    assert.deepEqual([withToken?.token, withToken?.certData], ['T', 'Q0VSVA==']);
    const exec = merged({ user: 'exec', token: 'T' }).getCurrentUser();
    assert.equal(exec?.exec, undefined);
  });

  it('--as, --as-group and --as-uid become the Impersonate-* headers, groups one line each', async () => {
    const kc = merged({ as: 'jane', asGroups: ['dev', 'ops'], asUid: '42' });
    const opts: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const h = opts.headers as Record<string, unknown>;
    assert.equal(h['Impersonate-User'], 'jane');
    assert.deepEqual(h['Impersonate-Group'], ['dev', 'ops']);
    assert.equal(h['Impersonate-Uid'], '42');
  });

  it('refuses groups or a UID without --as, and a --server that is no http(s) address', () => {
    assert.equal(overrideProblems({ asGroups: ['g'] }).length, 1);
    assert.equal(overrideProblems({ asUid: 'u' }).length, 1);
    assert.deepEqual(overrideProblems({ as: 'u', asGroups: ['g'] }), []);
    assert.deepEqual(overrideProblems({ server: 'ftp://x' }), ['--server "ftp://x": not an http(s) address']);
    assert.equal(serverUrl('http://h:8080/'), 'http://h:8080');
  });
});

describe('completion reads the connection flags typed on the line', () => {
  it('both spellings, -s, repeated --as-group, the boolean; never the word under the cursor', () => {
    const words = [
      'scan',
      '--kubeconfig=/k',
      '-s',
      'h:6443',
      '--as',
      'jane',
      '--as-group',
      'a',
      '--as-group=b',
    ];
    assert.deepEqual(lineTarget([...words, '--insecure-skip-tls-verify', '--token', 'T', '-n', '']), {
      kubeconfig: '/k',
      server: 'h:6443',
      as: 'jane',
      'as-group': ['a', 'b'],
      'insecure-skip-tls-verify': true,
      token: 'T',
    });
    assert.deepEqual(lineTarget(['scan', '--user', '']), {});
  });
});
