// Secure metrics (`inv watch --metrics-secure`) against the real API server: HTTPS; no token 401,
// a token without the role 403, a token of a ServiceAccount bound to the shipped ClusterRole
// inv-metrics-reader 200 with the inv_ families; reviews are cached; the daemon does the reviews
// with the shipped controller ClusterRole only; a certificate from a folder is served and
// replaced when the folder changes.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { installCrds } from '../../src/core/kube/crd-install.js';
import { KubeRest } from '../../src/core/kube/rest.js';
import { CONNECTION_LIMITS } from '../../src/core/observability/connection-guard.js';
import { selfSignedCertificate } from '../../src/core/observability/self-signed.js';
import { adminConfig } from '../support/kube.js';
import { startDaemon, until, type InProcessDaemon } from './helpers.js';
import { get, metricsAccounts } from './metrics-helpers.js';
import { writeTokenKubeconfig } from '../support/service-account.js';
import { useNamespace } from '../support/suite-hooks.js';

describe('secure metrics (--metrics-secure) against the real API server', function () {
  this.timeout(120_000);
  let admin: KubeRest;
  let ns: string;
  let daemon: InProcessDaemon | undefined;
  let tokens: Record<string, string> = {};
  let accounts: Awaited<ReturnType<typeof metricsAccounts>> | undefined;
  const token = (sa: string) => accounts!.token(sa);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-secure-metrics-'));

  useNamespace('secure-metrics', (n) => (ns = n));
  before(async () => {
    admin = new KubeRest(adminConfig());
    await installCrds(admin);
    accounts = await metricsAccounts(admin, ns);
    tokens = accounts.tokens;
  });
  after(async () => {
    await daemon?.stop();
    await accounts?.cleanup();
    admin?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The daemon with the controller ServiceAccount's token: the shipped RBAC must allow the reviews. */
  const start = async (secure: { certDir?: string; certPollMs?: number; reviewTtlMs?: number }) => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(writeTokenKubeconfig(adminConfig(), tokens.controller!, path.join(dir, 'kubeconfig')));
    return startDaemon(kc, { namespaces: [ns], metricsSecure: secure, logLevel: 'info' });
  };

  it('answers 401 without a token, 403 without the role, 200 with inv_ families with it', async () => {
    daemon = await start({});
    const url = `${daemon.daemon.manager.metricsUrl}/metrics`;
    assert.match(url, /^https:/);
    const none = await get(url);
    assert.equal(none.status, 401, none.body);
    assert.equal((await get(url, 'not-a-token')).status, 401);
    const denied = await get(url, tokens.nobody);
    assert.equal(denied.status, 403, denied.body);
    const ok = await get(url, tokens.reader);
    assert.equal(ok.status, 200, ok.body);
    assert.match(ok.body, /^# TYPE inv_\w+/m);
    // A self-signed certificate made at start, for TLS server use, naming localhost.
    assert.equal(ok.cert.issuer, ok.cert.subject);
    assert.ok(ok.cert.checkHost('localhost'));
  });

  it('caches recent reviews: a second scrape with the same token asks the API server nothing', async () => {
    assert.ok(daemon);
    const auth = daemon.daemon.manager.metricsAuthorizer!;
    const url = `${daemon.daemon.manager.metricsUrl}/metrics`;
    const before = auth.reviews;
    for (let i = 0; i < 5; i++) assert.equal((await get(url, tokens.reader)).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await get(url, tokens.nobody)).status, 403);
    assert.equal(auth.reviews, before, 'no new TokenReview or SubjectAccessReview');
    await daemon.stop();
    daemon = undefined;
  });

  it('a flood of distinct bad tokens from one client: every authorized scrape from another answers 200', async () => {
    // Every scrape is reviewed again (a 1 ms cache), so each one competes with the flood.
    daemon = await start({ reviewTtlMs: 1 });
    const url = `${daemon.daemon.manager.metricsUrl}/metrics`;
    const fresh = await token('reader');
    let flooding = true;
    const bad = new Map<number, number>();
    const flood = async (i: number) => {
      for (let n = 0; flooding; n++) {
        const a = await get(url, `garbage-${i}-${n}`, undefined, undefined, agent).catch(() => undefined);
        if (a) bad.set(a.status, (bad.get(a.status) ?? 0) + 1);
      }
    };
    // Kept-alive connections, as many as one address may hold: the flood costs no TLS handshake
    // per request, so it keeps many reviews in flight at once.
    const sockets = CONNECTION_LIMITS.maxPerAddress;
    const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, rejectUnauthorized: false });
    const flooders = Array.from({ length: sockets }, (_, i) => flood(i));
    const statuses: number[] = [];
    const running = daemon;
    daemon = undefined;
    try {
      await until('the flood under way', () => (bad.get(401) ?? 0) + (bad.get(429) ?? 0) > 50, 20_000);
      // The scraper comes from another loopback address, as Prometheus comes from its own Pod.
      for (let i = 0; i < 27; i++) statuses.push((await get(url, fresh, undefined, '127.0.0.2')).status);
    } finally {
      flooding = false;
      await Promise.all(flooders);
      agent.destroy();
      await running.stop();
    }
    process.stderr.write(`      (bad tokens answered: ${JSON.stringify(Object.fromEntries(bad))})\n`);
    assert.deepEqual(statuses, Array(27).fill(200), 'every authorized scrape served');
    // Bad tokens are refused: 401 once reviewed, 429 past the client's share; never served.
    assert.deepEqual(
      [...bad.keys()].filter((c) => c !== 401 && c !== 429),
      [],
    );
    assert.ok((bad.get(401) ?? 0) > 0, 'reviewed bad tokens are answered 401');
  });

  it('serves the certificate of a folder (a mounted Secret) and the new one when it changes', async () => {
    const certDir = path.join(dir, 'tls');
    fs.mkdirSync(certDir);
    const write = (p: { cert: string; key: string }) => {
      fs.writeFileSync(path.join(certDir, 'tls.crt'), p.cert);
      fs.writeFileSync(path.join(certDir, 'tls.key'), p.key);
    };
    const first = selfSignedCertificate(['inv-metrics.example', 'localhost']);
    write(first);
    daemon = await start({ certDir, certPollMs: 100 });
    const url = `${daemon.daemon.manager.metricsUrl}/metrics`;
    const a = await get(url, tokens.reader, first.cert);
    assert.equal(a.status, 200);
    assert.equal(a.cert.fingerprint256, new X509Certificate(first.cert).fingerprint256);
    const second = selfSignedCertificate(['inv-metrics.example', 'localhost']);
    write(second);
    const want = new X509Certificate(second.cert).fingerprint256;
    await until(
      'the new certificate is served',
      async () =>
        (await get(url, undefined, second.cert).catch(() => undefined))?.cert.fingerprint256 === want,
      10_000,
    );
  });
});
