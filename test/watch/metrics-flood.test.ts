// The secure metrics endpoint under hostile clients, with `inv watch --metrics-secure` as a child
// process on the shipped ClusterRole's token, its reviews made by the real API server
// (TokenReview, SubjectAccessReview): silent connections past the cap are closed at once and the
// rest by the handshake deadline, with the daemon's memory bounded; a flood of bad tokens from
// several addresses slows no Image write (against a baseline measured here) and a new legitimate
// token is served within 5 s. The lanes' logic alone: test/unit/kube/metrics-auth.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CONNECTION_LIMITS } from '../../src/core/observability/connection-guard.js';
import { setupEnv, type Env } from '../inventory/helpers.js';
import { adminConfig, newNamespace } from '../support/kube.js';
import { deployment, images, killDaemon, metric, spawnDaemon, until, type ChildDaemon } from './helpers.js';
import { get, metricsAccounts } from './metrics-helpers.js';
import { writeTokenKubeconfig } from '../support/service-account.js';
import { useNamespace } from '../support/suite-hooks.js';

/** The resident memory of a process, in MB. */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

describe('secure metrics under hostile clients (child daemon, shipped RBAC, real reviews)', function () {
  this.timeout(180_000);
  let env: Env;
  let ns: string;
  let accounts: Awaited<ReturnType<typeof metricsAccounts>>;
  let d: ChildDaemon | undefined;
  let url: string;
  const watched: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-metrics-flood-'));

  useNamespace('metrics-flood', (n) => (ns = n));
  before(async () => {
    env = await setupEnv();
    accounts = await metricsAccounts(env.rest, ns);
    for (const p of ['writes-base', 'writes-flood']) watched.push(await newNamespace(p));
    const kubeconfig = writeTokenKubeconfig(
      adminConfig(),
      accounts.tokens.controller!,
      path.join(dir, 'kubeconfig'),
    );
    d = spawnDaemon([
      '--kubeconfig',
      kubeconfig,
      '--metrics-secure',
      '--namespaces',
      watched.join(','),
      '--no-erase-controllers',
      // A write budget small enough that a share of it taken by reviews shows in 20 writes.
      '--kube-api-qps',
      '10',
      '--kube-api-burst',
      '10',
    ]);
    url = `${await d.metricsUrl}/metrics`;
    assert.equal((await get(url, accounts.tokens.reader)).status, 200);
  });
  after(async () => {
    if (d) await killDaemon(d);
    await accounts?.cleanup();
    env?.rest.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('closes silent connections past the cap at once and the rest by the handshake deadline; memory stays bounded', async () => {
    const pid = d!.proc.pid!;
    const before = rssMb(pid);
    // 20 addresses, 60 connections each, that never start a TLS handshake; an address' batch is
    // connected before the next starts, so no connection is lost to the listen backlog.
    const sockets: net.Socket[] = [];
    let closed = 0;
    const errors = new Map<string, number>();
    for (let a = 0; a < 20; a++) {
      const batch = Array.from({ length: 60 }, () => {
        const s = net.connect({
          port: Number(new URL(url).port),
          host: '127.0.0.1',
          localAddress: `127.0.1.${a + 1}`,
        });
        s.on('error', (e: NodeJS.ErrnoException) =>
          errors.set(e.code ?? '?', (errors.get(e.code ?? '?') ?? 0) + 1),
        );
        s.on('close', () => closed++);
        sockets.push(s);
        return new Promise((r) => (s.once('connect', r), s.once('close', r)));
      });
      await Promise.all(batch);
    }
    const over = sockets.length - CONNECTION_LIMITS.maxConnections;
    try {
      await until('connections past the cap closed', () => closed >= over, 10_000).catch((e: Error) => {
        throw new Error(
          `${e.message}: ${closed} closed, errors ${JSON.stringify(Object.fromEntries(errors))}`,
        );
      });
      const held = sockets.length - closed;
      assert.ok(held <= CONNECTION_LIMITS.maxConnections, `${held} connections held`);
      const during = rssMb(pid);
      process.stderr.write(
        `      (RSS ${before.toFixed(0)} MB -> ${during.toFixed(0)} MB with ${held} connections held)\n`,
      );
      assert.ok(during - before < 64, `RSS grew ${during - before} MB`);
      await until(
        'silent connections closed by the handshake deadline',
        () => closed === sockets.length,
        CONNECTION_LIMITS.handshakeTimeoutMs + 5_000,
      );
    } finally {
      for (const s of sockets) s.destroy();
    }
    // Then a scraper is served again, and sees the refusals counted.
    let text = '';
    await until(
      'a scrape after the silent connections',
      async () => {
        const a = await get(url, accounts.tokens.reader, undefined, '127.0.0.2').catch(() => undefined);
        text = a?.body ?? '';
        return a?.status === 200;
      },
      5_000,
    );
    const refused = metric(text, 'inv_http_connections_refused_total', { server: 'metrics' }) ?? 0;
    assert.ok(
      refused >= over,
      `inv_http_connections_refused_total ${refused}, ${over} expected at least (client errors ${JSON.stringify(Object.fromEntries(errors))})`,
    );
  });

  it('a flood of bad tokens slows no Image write, and a new legitimate token is served within 5 s', async () => {
    /** How long the daemon takes to write the Images of a new Deployment of 20 images. */
    const writeTime = async (namespace: string, name: string) => {
      const imgs = Array.from({ length: 20 }, (_, i) => `${name}-${i}:1`);
      const start = Date.now();
      await env.apps.createNamespacedDeployment({ namespace, body: deployment(name, imgs) });
      await until(
        `20 Images in ${namespace}`,
        async () => (await images(env.rest, namespace)).length >= 20,
        60_000,
      );
      return Date.now() - start;
    };
    /** Requests that went through the daemon's write rate limiter (--kube-api-qps), from its metrics. */
    const limited = async () => {
      const text = (await get(url, accounts.tokens.reader, undefined, '127.0.0.2')).body;
      return metric(text, 'inv_rest_client_rate_limiter_duration_seconds_count') ?? NaN;
    };
    const c0 = await limited();
    const base = await writeTime(watched[0]!, 'base');
    const baseWrites = (await limited()) - c0;
    const fresh = await accounts.token('reader');
    const c1 = await limited();

    // The flood: 4 addresses, each with 32 kept-alive connections (its share), distinct bad tokens.
    let flooding = true;
    const answers = new Map<number | string, number>();
    const agents = Array.from(
      { length: 4 },
      () =>
        new https.Agent({
          keepAlive: true,
          maxSockets: CONNECTION_LIMITS.maxPerAddress,
          rejectUnauthorized: false,
        }),
    );
    const flood = async (a: number, i: number) => {
      for (let n = 0; flooding; n++) {
        const r = await get(url, `garbage-${a}-${i}-${n}`, undefined, `127.0.2.${a + 1}`, agents[a]).then(
          (x) => x.status,
          () => 'error',
        );
        answers.set(r, (answers.get(r) ?? 0) + 1);
      }
    };
    const flooders = agents.flatMap((_, a) =>
      Array.from({ length: CONNECTION_LIMITS.maxPerAddress }, (_x, i) => flood(a, i)),
    );
    let served: number | undefined;
    let underFlood = 0;
    let floodWrites = NaN;
    try {
      await until(
        'the flood under way',
        () => [...answers.values()].reduce((x, y) => x + y, 0) > 500,
        20_000,
      );
      // A new scraper's token, from its own address, retried as a client would.
      served = await until(
        'the new token served',
        async () => (await get(url, fresh, undefined, '127.0.0.3').catch(() => undefined))?.status === 200,
        5_000,
      );
      underFlood = await writeTime(watched[1]!, 'flood');
      floodWrites = (await limited()) - c1;
    } finally {
      flooding = false;
      await Promise.all(flooders);
      for (const a of agents) a.destroy();
    }
    process.stderr.write(
      `      (20 Image writes: ${base} ms and ${baseWrites} limited requests; under the flood ${underFlood} ms and ` +
        `${floodWrites}; new token served in ${served} ms; ` +
        `bad tokens answered: ${JSON.stringify(Object.fromEntries(answers))})\n`,
    );
    assert.ok(served! < 5_000);
    // The reviews never took the writes' budget: the same work took as many limited requests
    // (a few heartbeats more, as the flood lasts longer); before, every review took one.
    assert.ok(floodWrites <= 2 * baseWrites + 10, `${floodWrites} limited requests vs ${baseWrites}`);
    // A generous ratio: the flood costs CPU on a shared machine, but never the writes' budget.
    assert.ok(underFlood <= 4 * Math.max(base, 1_000), `${underFlood} ms under the flood vs ${base} ms`);
    assert.equal(answers.get(200), undefined, 'no bad token served');
    const text = (await get(url, accounts.tokens.reader, undefined, '127.0.0.2')).body;
    const refusedReviews = ['client_share', 'suspect_budget', 'busy'].reduce(
      (n, reason) => n + (metric(text, 'inv_metrics_reviews_refused_total', { reason }) ?? 0),
      0,
    );
    assert.ok(
      refusedReviews >= (answers.get(429) ?? 0),
      `inv_metrics_reviews_refused_total ${refusedReviews} counts every 429 (${answers.get(429)})`,
    );
    assert.ok((answers.get(401) ?? 0) > 0, 'bad tokens are reviewed and refused');
  });
});
