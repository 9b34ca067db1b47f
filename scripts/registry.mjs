#!/usr/bin/env node
// A real image registry that requires credentials, for the tests of the workers' pull secrets and
// of `npm run image`: the CNCF Distribution registry (`registry`, built from Go modules by
// tools.mjs and cached), on 127.0.0.1 only at a free port, with htpasswd (HTTP Basic) auth and its
// storage in a private temporary folder that stop() removes. Plain HTTP by default; with
// start({ tls: true }) it serves HTTPS with a certificate of a CA made for it (scripts/test-ca.mjs),
// whose certificate `caFile` names, as a private registry does. start({ token }) replaces htpasswd
// with the Bearer token flow of ghcr.io, Docker Hub and Harbor: 401 with
// `WWW-Authenticate: Bearer realm=...`, tokens from that realm signed by a key whose certificate
// is in token.rootCertBundle.
//
// Credentials: the registry itself provisions a missing htpasswd file with the user `docker` and
// a random password, which it prints once (its documented behaviour); we read it from its JSON
// log, so no bcrypt tool is needed and every run has a password of its own.
//
//   node scripts/registry.mjs [--tls]   starts one, prints {host, user, password, pid, caFile},
//                                       stops on ^C
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, isMain, stopPid } from './process.mjs';
import { makeCa } from './test-ca.mjs';
import { build } from './tools.mjs';

const log = (msg) => process.stderr.write(`registry: ${msg}\n`);

function config(dir, tls, token) {
  // JSON is YAML: the registry reads this as its configuration file.
  return JSON.stringify({
    version: 0.1,
    log: { level: 'info', formatter: 'json', accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: path.join(dir, 'data') }, delete: { enabled: true } },
    http: {
      addr: '127.0.0.1:0',
      ...(tls ? { tls: { certificate: tls.certFile, key: tls.keyFile } } : {}),
    },
    auth: token
      ? {
          token: {
            realm: token.realm,
            service: token.service,
            issuer: token.issuer,
            rootcertbundle: token.rootCertBundle,
          },
        }
      : { htpasswd: { realm: 'inv-test-registry', path: path.join(dir, 'htpasswd') } },
  });
}

/**
 * Starts a registry; resolves { host: '127.0.0.1:PORT', user, password, pid, dir, logFile,
 * caFile, stop } once it listens (caFile only with tls: true; user and password only without
 * token). stop() kills it and removes its folder (safe to call twice).
 * token: { realm, service, issuer, rootCertBundle } (Distribution's token auth options).
 */
export async function start({ timeoutMs = 30_000, tls = false, token } = {}) {
  const bin = build('registry');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-registry-')); // mode 0700
  const certs = tls ? makeCa(dir, 'registry') : undefined;
  fs.writeFileSync(path.join(dir, 'config.yml'), config(dir, certs, token));
  const logFile = path.join(dir, 'registry.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(bin, ['serve', path.join(dir, 'config.yml')], {
    stdio: ['ignore', out, out],
    // No trace exporter: nothing may dial out (it would try an OTLP collector on localhost).
    env: { PATH: process.env.PATH, HOME: dir, OTEL_TRACES_EXPORTER: 'none', OTEL_SDK_DISABLED: 'true' },
  });
  fs.closeSync(out);
  const pid = child.pid;
  let stopped = false;
  const stop = async () => {
    if (!stopped && pid && alive(pid)) await stopPid(pid, 2000);
    stopped = true;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // Even if the caller forgets, or dies on an exception: never outlive this process.
  const onExit = () => {
    try {
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  };
  process.once('exit', onExit);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const found = readLog(logFile);
      if (found.host && (found.password || token)) {
        return {
          host: found.host,
          ...(token ? {} : { user: 'docker', password: found.password }),
          pid,
          dir,
          logFile,
          ...(certs ? { caFile: certs.caFile } : {}),
          stop: async () => {
            process.removeListener('exit', onExit);
            await stop();
          },
        };
      }
      if (!pid || !alive(pid) || child.exitCode !== null)
        throw new Error(`registry exited during start-up: ${tail(logFile)}`);
      if (Date.now() > deadline)
        throw new Error(`registry not listening after ${timeoutMs} ms: ${tail(logFile)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    await stop();
    process.removeListener('exit', onExit);
    throw err;
  }
}

/** The address it listens on and the password it provisioned, from its JSON log lines. */
function readLog(file) {
  const found = {};
  // Its start-up log is a few KB; a bounded read.
  const text = readHead(file, 1 << 20);
  for (const line of text.split('\n')) {
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    const m = /^listening on (127\.0\.0\.1:\d+)(, tls)?$/.exec(e.msg ?? '');
    if (m) found.host = m[1];
    if (e.user === 'docker' && typeof e.password === 'string') found.password = e.password;
  }
  return found;
}

function readHead(file, max) {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(max);
    return buf.subarray(0, fs.readSync(fd, buf, 0, max, 0)).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

const tail = (file) =>
  readHead(file, 1 << 20)
    .trim()
    .split('\n')
    .slice(-3)
    .join(' ');

/**
 * Pushes the image `local` from a containerd's k8s.io namespace to `remote` on a registry over
 * plain HTTP with `ctr images push` (no local image record is made for `remote`).
 */
export function push({ ctr = 'ctr', address, local, remote, user, password, timeoutMs = 120_000 }) {
  const r = spawnSync(
    ctr,
    [
      '--address',
      address,
      '-n',
      'k8s.io',
      'images',
      'push',
      '--plain-http',
      '--user',
      `${user}:${password}`,
      remote,
      local,
    ],
    { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 << 20 },
  );
  if (r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || '').trim().split('\n').slice(-3).join(' ');
    throw new Error(`ctr images push ${remote} failed (exit ${r.status ?? r.signal}): ${why}`);
  }
}

if (isMain(import.meta.url)) {
  try {
    const r = await start({ tls: process.argv.includes('--tls') });
    const { host, user, password, pid, caFile } = r;
    process.stdout.write(`${JSON.stringify({ host, user, password, pid, caFile })}\n`);
    log(`listening on ${r.host}; ^C stops it`);
    const done = () => r.stop().then(() => process.exit(0));
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}
