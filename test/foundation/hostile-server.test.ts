// KubeRest and the CLI against hostile local servers: a server that trickles one byte at a
// time, one that streams forever, a TLS handshake that never completes, a closed port and a
// reset after the headers. Each ends within its deadline, with a KubeTransportError (retryable,
// never taken for a verdict on the request) and, for the CLI, exit 2 and a one-line message.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isTransient, KubeApiError, KubeRest, KubeTransportError } from '../../src/core/kube/rest.js';
import { repoRoot } from '../support/paths.js';

interface Hostile {
  url: string;
  close(): Promise<void>;
}

/** An HTTP server whose handler misbehaves; every socket is destroyed on close. */
async function httpServer(handler: http.RequestListener): Promise<Hostile> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

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

const kubeConfig = (server: string): k8s.KubeConfig => {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
};

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
