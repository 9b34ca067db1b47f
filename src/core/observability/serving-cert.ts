// The secure metrics listener's key and certificate: tls.crt and tls.key from a folder (a mounted
// kubernetes.io/tls Secret, like kubebuilder's --metrics-cert-path), re-read when they change, or
// a self-signed pair made at start. The kubelet updates a mounted Secret by swapping a symlink,
// which file watchers miss, so the folder is polled (two small reads every 10 s by default).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TlsPair } from './http-server.js';
import { noopLogger, type Logger } from './logger.js';
import { selfSignedCertificate } from './self-signed.js';

const MAX_PEM_BYTES = 1024 * 1024;

function readPem(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(MAX_PEM_BYTES + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    if (n > MAX_PEM_BYTES) throw new Error(`${file}: larger than ${MAX_PEM_BYTES} bytes`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads and checks the pair in `dir`: the key must be the certificate's. */
export function readCertDir(dir: string): TlsPair {
  const cert = readPem(path.join(dir, 'tls.crt'));
  const key = readPem(path.join(dir, 'tls.key'));
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (e) {
    throw new Error(`${path.join(dir, 'tls.crt')}: not a PEM certificate (${(e as Error).message})`);
  }
  if (!x509.checkPrivateKey(createPrivateKey(key)))
    throw new Error(`${dir}: tls.key is not the key of tls.crt`);
  return { cert, key };
}

export interface ServingCertOptions {
  /** Folder with tls.crt and tls.key; undefined: self-signed. */
  certDir?: string;
  /** Names in a self-signed certificate besides the host name, localhost and 127.0.0.1. */
  hosts?: string[];
  pollMs?: number;
  logger?: Logger;
}

export interface ServingCert {
  readonly current: TlsPair;
  readonly selfSigned: boolean;
  /** Calls onChange with each new valid pair from the folder until `signal` aborts. */
  watch(onChange: (pair: TlsPair) => void, signal: AbortSignal): void;
}

export function servingCert(opts: ServingCertOptions): ServingCert {
  const log = opts.logger ?? noopLogger;
  if (!opts.certDir) {
    const hosts = [...new Set([os.hostname(), ...(opts.hosts ?? []), 'localhost', '127.0.0.1'])];
    const pair = selfSignedCertificate(hosts);
    return { current: pair, selfSigned: true, watch: () => undefined };
  }
  const dir = opts.certDir;
  let current = readCertDir(dir);
  return {
    get current() {
      return current;
    },
    selfSigned: false,
    watch(onChange, signal) {
      const timer = setInterval(() => {
        let next: TlsPair;
        try {
          next = readCertDir(dir);
        } catch (err) {
          // Half-updated or bad: keep serving the last good pair, say so, try again next time.
          log.warn('metrics certificate not reloaded; keeping the current one', { dir, err });
          return;
        }
        if (next.cert === current.cert && next.key === current.key) return;
        current = next;
        log.info('metrics certificate reloaded', { dir });
        onChange(next);
      }, opts.pollMs ?? 10_000);
      timer.unref();
      signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    },
  };
}
