// KubeRest and the CLI against hostile local servers: a server that trickles one byte at a
// time, one that streams forever, a TLS handshake that never completes, a closed port and a
// reset after the headers. Each ends within its deadline, with a KubeTransportError (retryable,
// never taken for a verdict on the request) and, for the CLI, exit 2 and a one-line message.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isTransient, KubeApiError, KubeRest, KubeTransportError } from '../../src/core/kube/rest.js';
import { Informer, type CachedObject } from '../../src/core/controller/informer.js';
import { repoRoot } from '../support/paths.js';
import { httpServer, kubeConfig, type Hostile } from '../support/servers/hostile-http.js';

/** A TCP server that accepts and never says anything: a TLS handshake stalls on it. */
async function silentServer(): Promise<Hostile> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

async function timed(p: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const t0 = Date.now();
  try {
    await p;
    return { ms: Date.now() - t0, error: undefined };
  } catch (e) {
    return { ms: Date.now() - t0, error: e };
  }
}

const trickle: http.RequestListener = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{');
  const t = setInterval(() => res.write(' '), 200);
  res.on('close', () => clearInterval(t));
};

describe('KubeRest against hostile servers', function () {
  this.timeout(60_000);

  it('a trickling server: the overall deadline ends the request, not the inactivity timer', async () => {
    const s = await httpServer(trickle);
    const rest = new KubeRest(kubeConfig(s.url), { timeoutMs: 1500 });
    const r = await timed(rest.get('/api/v1/namespaces'));
    rest.close();
    await s.close();
    assert.ok(r.error instanceof KubeTransportError, String(r.error));
    assert.equal(r.error.kind, 'deadline');
    assert.match(r.error.message, /GET \/api\/v1\/namespaces: no complete response within 1500 ms/);
    assert.ok(r.ms >= 1400 && r.ms < 4000, `${r.ms} ms`);
    assert.ok(isTransient(r.error));
  });

  it('an endless stream at full speed: the size cap ends it, memory stays bounded', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const s = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const pump = () => {
        while (res.write(chunk)) {
          /* keep writing until the socket pushes back */
        }
      };
      res.on('drain', pump);
      pump();
    });
    const rest = new KubeRest(kubeConfig(s.url), { timeoutMs: 20_000, maxResponseBytes: 8 * 1024 * 1024 });
    const before = process.memoryUsage().rss;
    const r = await timed(rest.get('/api/v1/pods'));
    const grew = process.memoryUsage().rss - before;
    rest.close();
    await s.close();
    assert.ok(r.error instanceof KubeTransportError, String(r.error));
    assert.equal(r.error.kind, 'too-large');
    assert.match(r.error.message, /response larger than 8388608 bytes, the limit for one response/);
    assert.ok(grew < 200 * 1024 * 1024, `RSS grew ${grew} bytes`);
  });

  it('a TLS handshake that never completes ends at the deadline, not at twice it', async () => {
    const s = await silentServer();
    const rest = new KubeRest(kubeConfig(s.url), { timeoutMs: 1500 });
    const r = await timed(rest.get('/version'));
    rest.close();
    await s.close();
    assert.ok(r.error instanceof KubeTransportError, String(r.error));
    assert.ok(r.ms < 2500, `${r.ms} ms`);
  });

  it('a closed port and a reset after the headers are transport errors, never API verdicts', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    let rest = new KubeRest(kubeConfig(`http://127.0.0.1:${port}`), { timeoutMs: 5000 });
    const refused = await timed(rest.get('/version'));
    rest.close();
    assert.ok(refused.error instanceof KubeTransportError);
    assert.equal(refused.error.kind, 'ECONNREFUSED');
    assert.ok(!(refused.error instanceof KubeApiError));

    const s = await httpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
      setTimeout(() => req.socket.resetAndDestroy(), 50);
    });
    rest = new KubeRest(kubeConfig(s.url), { timeoutMs: 5000 });
    const reset = await timed(rest.get('/api/v1/pods'));
    rest.close();
    await s.close();
    assert.ok(reset.error instanceof KubeTransportError, String(reset.error));
    assert.ok(reset.ms < 2000, `${reset.ms} ms`);
  });

  it('an AbortSignal ends a request at once', async () => {
    const s = await httpServer(trickle);
    const rest = new KubeRest(kubeConfig(s.url), { timeoutMs: 30_000 });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 200);
    const r = await timed(rest.request('GET', '/api/v1/pods', { signal: ctl.signal }));
    rest.close();
    await s.close();
    assert.ok(r.error instanceof KubeTransportError);
    assert.equal(r.error.kind, 'aborted');
    assert.ok(r.ms < 1500, `${r.ms} ms`);
  });

  it('inv scan against a trickling server exits 2 within --request-timeout, with one line', async () => {
    const s = await httpServer(trickle);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-hostile-'));
    const cfg = path.join(dir, 'config');
    fs.writeFileSync(cfg, kubeConfig(s.url).exportConfig());
    const t0 = Date.now();
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [path.join(repoRoot, 'bin', 'run.js'), 'scan', '-A', '--kubeconfig', cfg, '--request-timeout', '2s'],
        { env: { ...process.env, NO_COLOR: '1' } },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    const ms = Date.now() - t0;
    await s.close();
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr.replace(/\s*\n\s*›\s+/g, ' '), /no complete response within 2000 ms/);
    assert.ok(ms < 15_000, `${ms} ms`);
    const bad = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [
        path.join(repoRoot, 'bin', 'run.js'),
        'scan',
        '-n',
        'x',
        '--kubeconfig',
        cfg,
        '--request-timeout',
        'soon',
      ]);
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--request-timeout: must be a duration/);
  });
});

/** A port nobody listens on right now (for a child's --health-probe-bind-address). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Resident memory of a process in bytes (Linux /proc), or 0 once it is gone. */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const readyz = (port: number): Promise<number> =>
  new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/readyz', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });

describe('inv watch against an endless stream at full speed', function () {
  this.timeout(90_000);

  it('stays not ready, keeps retrying, and its RSS stays under 300 MB', async () => {
    // Every request (discovery, LISTs, watches) gets 200 and an endless body of spaces inside a
    // JSON value that never closes, as fast as the socket takes it.
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let requests = 0;
    const s = await httpServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
      const pump = () => {
        while (res.write(chunk)) {
          /* until the socket pushes back */
        }
      };
      res.on('drain', pump);
      pump();
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-hostile-watch-'));
    const cfg = path.join(dir, 'config');
    fs.writeFileSync(cfg, kubeConfig(s.url).exportConfig());
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, 'bin', 'run.js'),
        'watch',
        '--kubeconfig',
        cfg,
        '--request-timeout',
        '5s',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        `127.0.0.1:${port}`,
        '--log-level',
        'error',
      ],
      // The daemon as it ships (the bundle of `npm run build`, which the Deployment's image and
      // the npm package run), not the checkout's tsc output: the 300 MB limit is the shipped one.
      { env: { ...process.env, NO_COLOR: '1', INV_BUNDLE: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    let maxRss = 0;
    const statuses = new Set<number>();
    let probes = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssOf(child.pid!))), 100);
    try {
      // 30 s under the stream: long enough for several rounds of the informers' retries.
      const until = Date.now() + 30_000;
      while (Date.now() < until && child.exitCode === null) {
        const code = await readyz(port);
        if (code) {
          statuses.add(code);
          probes++;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      assert.equal(child.exitCode, null, `inv watch exited: ${stderr}`);
    } finally {
      clearInterval(sampler);
      child.kill('SIGTERM');
      await exited;
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    process.stderr.write(
      `      (30 s of endless streams: ${requests} requests served, peak RSS ${Math.round(maxRss / 1048576)} MB, /readyz ${[...statuses].join(',')} x${probes})\n`,
    );
    assert.ok(probes > 10, `only ${probes} /readyz answers`);
    assert.deepEqual([...statuses], [503], 'never ready');
    assert.ok(requests > 10, `retried only ${requests} times`);
    assert.ok(maxRss > 0 && maxRss < 300 * 1024 * 1024, `peak RSS ${maxRss} bytes`);
  });
});

describe('a watch that goes silent', function () {
  this.timeout(30_000);

  it('is restarted when no event or bookmark arrives within its window, even while bytes trickle', async () => {
    // LISTs answer an empty list; watches send headers, then one space every 100 ms: the socket
    // is never idle, but no event ever completes.
    const watches: number[] = [];
    const s = await httpServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!req.url?.includes('watch=1')) {
        res.end(JSON.stringify({ kind: 'PodList', metadata: { resourceVersion: '7' }, items: [] }));
        return;
      }
      watches.push(Date.now());
      const t = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(t));
    });
    const rest = new KubeRest(kubeConfig(s.url));
    const informer = new Informer({
      name: 'pods',
      rest,
      path: '/api/v1/pods',
      strip: (o) => o as CachedObject,
      idleTimeoutMs: 1000,
      backoffInitialMs: 50,
      backoffMaxMs: 100,
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    const t0 = Date.now();
    while (watches.length < 3 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    await running;
    rest.close();
    await s.close();
    assert.ok(watches.length >= 3, `${watches.length} watches in 10 s`);
    const gap = watches[2]! - watches[1]!;
    assert.ok(gap >= 900 && gap < 3000, `restarted after ${gap} ms (window 1000 ms)`);
    assert.ok(informer.stats.watchErrors >= 2);
  });
});
