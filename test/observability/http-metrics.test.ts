// The operational HTTP endpoints, over real HTTP on 127.0.0.1: /metrics from the daemon's
// registry (fed by a real work queue), /healthz and /readyz, bind-address parsing and errors.
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { ItemExponentialFailureRateLimiter } from '../../src/core/controller/rate-limiter.js';
import { WorkQueue } from '../../src/core/controller/workqueue.js';
import {
  bindAddressDisabled,
  healthHandler,
  metricsHandler,
  parseBindAddress,
  startHttpServer,
  type RunningHttpServer,
} from '../../src/core/observability/http-server.js';
import { createMetrics } from '../../src/core/observability/metrics.js';
import { selfSignedCertificate } from '../../src/core/observability/self-signed.js';

/** The value of an unlabelled (or exactly labelled) sample in Prometheus text output. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics and health endpoints (real HTTP)', () => {
  const servers: RunningHttpServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it('serves the daemon metrics, fed by a work queue, on /metrics', async () => {
    const m = createMetrics();
    // A long backoff, so the retried key stays delayed (not re-added) while we scrape.
    const q = new WorkQueue({
      hooks: m.workqueueHooks(),
      rateLimiter: new ItemExponentialFailureRateLimiter(60_000, 60_000),
    });
    q.add('a/_');
    q.add('b/_');
    q.add('a/_'); // coalesced: not an add
    await q.get();
    q.addRateLimited('a/_');
    m.observeRebuild('success', 0.12);
    m.observeRebuild('error', 2);
    m.imagesCreated.inc(3);
    m.imagesUpdated.inc();
    m.imagesDeleted.inc(2);
    m.invalidRefs.inc();
    m.leader.set(1);

    const srv = await startHttpServer({
      bindAddress: '127.0.0.1:0',
      routes: { '/metrics': metricsHandler(m.registry) },
    });
    servers.push(srv);
    assert.equal(srv.address.host, '127.0.0.1');
    assert.ok(srv.address.port > 0);
    const res = await fetch(`${srv.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.equal(sample(text, 'inv_workqueue_depth'), 1);
    assert.equal(sample(text, 'inv_workqueue_adds_total'), 2);
    assert.equal(sample(text, 'inv_workqueue_retries_total'), 1);
    assert.equal(sample(text, 'inv_rebuilds_total{result="success"}'), 1);
    assert.equal(sample(text, 'inv_rebuilds_total{result="error"}'), 1);
    assert.equal(sample(text, 'inv_rebuild_duration_seconds_count'), 2);
    assert.equal(sample(text, 'inv_rebuild_duration_seconds_bucket{le="0.25"}'), 1);
    assert.equal(sample(text, 'inv_images_created_total'), 3);
    assert.equal(sample(text, 'inv_images_updated_total'), 1);
    assert.equal(sample(text, 'inv_images_deleted_total'), 2);
    assert.equal(sample(text, 'inv_invalid_refs_total'), 1);
    assert.equal(sample(text, 'inv_leader'), 1);
    assert.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined, 'default process metrics');
    assert.ok(sample(text, 'nodejs_heap_size_used_bytes') !== undefined, 'default Node.js metrics');
    // Only the result label: no per-namespace series.
    assert.doesNotMatch(text, /namespace=/);
    q.shutDown();
  });

  it('starts with zeroed series and keeps registries of two instances apart', async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.imagesCreated.inc();
    const textB = await b.registry.metrics();
    assert.equal(sample(textB, 'inv_images_created_total'), 0);
    assert.equal(sample(textB, 'inv_rebuilds_total{result="error"}'), 0);
    assert.equal(sample(textB, 'inv_leader'), 0);
    assert.equal(sample(await a.registry.metrics(), 'inv_images_created_total'), 1);
    assert.doesNotMatch(textB, /process_cpu/);
  });

  it('answers /healthz always, and /readyz from its checks', async () => {
    let synced = false;
    const srv = await startHttpServer({
      bindAddress: '127.0.0.1:0',
      routes: {
        '/healthz': healthHandler(),
        '/readyz': healthHandler({ 'informers-synced': () => synced, leader: async () => true }),
      },
    });
    servers.push(srv);
    const get = async (path: string) => {
      const res = await fetch(srv.url + path);
      return { status: res.status, body: await res.text() };
    };
    assert.deepEqual(await get('/healthz'), { status: 200, body: 'ok\n' });
    assert.deepEqual(await get('/readyz'), {
      status: 503,
      body: '[-]informers-synced failed\ncheck failed\n',
    });
    synced = true;
    assert.deepEqual(await get('/readyz'), { status: 200, body: 'ok\n' });
    assert.deepEqual(await get('/readyz?verbose'), {
      status: 200,
      body: '[+]informers-synced ok\n[+]leader ok\nok\n',
    });
    assert.equal((await get('/nope')).status, 404);
    const post = await fetch(srv.url + '/healthz', { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  it('treats a throwing check as failed and a throwing handler as a 500', async () => {
    const srv = await startHttpServer({
      bindAddress: '127.0.0.1:0',
      routes: {
        '/readyz': healthHandler({
          cache: () => {
            throw new Error('boom');
          },
        }),
        '/broken': () => {
          throw new Error('boom');
        },
      },
    });
    servers.push(srv);
    assert.equal((await fetch(srv.url + '/readyz')).status, 503);
    assert.equal((await fetch(srv.url + '/broken')).status, 500);
  });

  it('closes promptly even with a keep-alive client connected', async () => {
    const srv = await startHttpServer({
      bindAddress: '127.0.0.1:0',
      routes: { '/healthz': healthHandler() },
    });
    await (await fetch(srv.url + '/healthz')).text(); // leaves an idle keep-alive socket
    const started = Date.now();
    await srv.close();
    assert.ok(Date.now() - started < 500, `close took ${Date.now() - started} ms`);
    await assert.rejects(fetch(srv.url + '/healthz'));
  });

  it('reports an address in use with the bind address in the error', async () => {
    const first = await startHttpServer({ bindAddress: '127.0.0.1:0', routes: {} });
    servers.push(first);
    const taken = `127.0.0.1:${first.address.port}`;
    await assert.rejects(startHttpServer({ bindAddress: taken, routes: {} }), (err: Error) => {
      assert.match(err.message, new RegExp(`cannot listen on bind address "${taken}": EADDRINUSE`));
      return true;
    });
  });

  it('parses bind addresses and rejects bad ones naming the value', () => {
    assert.deepEqual(parseBindAddress('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 });
    assert.deepEqual(parseBindAddress(':8081'), { host: '', port: 8081 });
    assert.deepEqual(parseBindAddress('localhost:0'), { host: 'localhost', port: 0 });
    assert.deepEqual(parseBindAddress('[::1]:9090'), { host: '::1', port: 9090 });
    assert.deepEqual(parseBindAddress('0.0.0.0:65535'), { host: '0.0.0.0', port: 65535 });
    const bad: [string, RegExp][] = [
      ['8080', /invalid bind address "8080": missing port/],
      ['0', /invalid bind address "0": missing port/],
      ['127.0.0.1:', /invalid bind address "127.0.0.1:": missing port/],
      ['127.0.0.1:http', /"http" is not a port number/],
      ['127.0.0.1:65536', /port 65536 is out of range/],
      ['127.0.0.1:-1', /"-1" is not a port number/],
      ['::1:8080', /IPv6 addresses need brackets/],
      ['[::1:8080', /missing "\]"/],
      ['[::1]8080', /invalid bind address "\[::1\]8080": missing port/],
      ['bad host:80', /"bad host" is not a valid host/],
      ['', /invalid bind address "": missing port/],
    ];
    for (const [value, re] of bad) assert.throws(() => parseBindAddress(value), re, value);
    assert.equal(bindAddressDisabled('0'), true);
    assert.equal(bindAddressDisabled(':0'), false);
  });

  it('bounds connections: past the per-address cap closed at once, a silent handshake and a silent connection closed by their deadlines', async () => {
    const srv = await startHttpServer({
      bindAddress: '127.0.0.1:0',
      routes: { '/healthz': healthHandler() },
      tls: selfSignedCertificate(['localhost']),
      limits: { maxConnections: 8, maxPerAddress: 3, handshakeTimeoutMs: 300, firstRequestMs: 600 },
    });
    servers.push(srv);
    const port = srv.address.port;
    const closedAt: Record<string, number> = {};
    const t0 = Date.now();
    const watch = (name: string, s: net.Socket) => {
      s.on('error', () => undefined);
      s.on('close', () => (closedAt[name] = Date.now() - t0));
      return s;
    };
    // Five silent connections from one address: two past its share are closed on arrival.
    const raw = Array.from({ length: 5 }, (_, i) =>
      watch(`raw${i}`, net.connect({ port, host: '127.0.0.1', localAddress: '127.0.3.1' })),
    );
    // A handshake, then nothing: closed by the first-request deadline.
    const idle = watch('tls', tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }));
    await new Promise((r) => idle.once('secureConnect', r));
    const deadline = Date.now() + 5000;
    while (Object.keys(closedAt).length < 6 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    raw.forEach((s) => s.destroy());
    const early = Object.entries(closedAt).filter(([n, ms]) => n.startsWith('raw') && ms < 250);
    assert.equal(early.length, 2, `two closed on arrival: ${JSON.stringify(closedAt)}`);
    const silent = Object.entries(closedAt).filter(([n, ms]) => n.startsWith('raw') && ms >= 250);
    assert.equal(silent.length, 3, `three closed by the handshake deadline: ${JSON.stringify(closedAt)}`);
    assert.equal(Object.keys(closedAt).length, 6, `all closed: ${JSON.stringify(closedAt)}`);
    assert.ok(
      closedAt.tls! >= 550,
      `the idle TLS connection lived its first-request deadline: ${closedAt.tls}`,
    );
    assert.equal(srv.connections.refused, 2);
    assert.equal(srv.connections.open, 0);
  });

  it("at the overall cap, a newcomer from a less busy address (the kubelet, Prometheus) takes the busiest address's oldest place", async () => {
    const srv = await startHttpServer({
      bindAddress: '127.0.0.1:0',
      routes: { '/healthz': healthHandler() },
      limits: { maxConnections: 4, maxPerAddress: 4, handshakeTimeoutMs: 5000, firstRequestMs: 5000 },
    });
    servers.push(srv);
    const port = srv.address.port;
    // One address fills every place with silent connections.
    const flood = await Promise.all(
      Array.from({ length: 4 }, () => {
        const s = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.4.1' });
        s.on('error', () => undefined);
        return new Promise<net.Socket>((r) => s.once('connect', () => r(s)));
      }),
    );
    const firstClosed = new Promise((r) => flood[0]!.once('close', r));
    // A probe from another address is served, and the flood's oldest connection made way for it.
    const probe = await new Promise<string>((resolve, reject) => {
      const s = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.4.2' }, () =>
        s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      s.on('data', (d) => (text += d.toString()));
      s.on('end', () => resolve(text));
      s.on('error', reject);
    });
    assert.match(probe, /^HTTP\/1\.1 200/);
    await firstClosed;
    // One connection closed at the cap: the evicted one.
    flood.forEach((s) => s.destroy());
    assert.equal(srv.connections.refused, 1);
  });

  it('binds every interface for :port', async () => {
    const srv = await startHttpServer({ bindAddress: ':0', routes: { '/healthz': healthHandler() } });
    servers.push(srv);
    assert.equal(srv.address.host, '');
    assert.equal((await fetch(`http://127.0.0.1:${srv.address.port}/healthz`)).status, 200);
  });
});
