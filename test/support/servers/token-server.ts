// A token service of the Docker token protocol, as ghcr.io, Docker Hub and Harbor run one beside
// their registry: GET <realm>?service=&scope=repository:NAME:pull,push with HTTP Basic
// credentials answers {"token": JWT}, a JWT the registry (Distribution's token auth, started with
// scripts/registry.mjs start({token})) verifies through the certificate in its x5c header, signed
// by the CA of rootCertBundle. HTTPS with a CA of its own (scripts/test-ca.mjs).
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type net from 'node:net';
import path from 'node:path';
import { repoRoot } from '../paths.js';

export interface TokenServer {
  /** https://127.0.0.1:PORT/token */
  realm: string;
  issuer: string;
  service: string;
  /** The CA that signed both the server's certificate and the tokens' (PEM file). */
  caFile: string;
  /** Tokens handed out, by account. */
  issued: string[];
  close(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export async function tokenServer(dir: string, user: string, password: string): Promise<TokenServer> {
  const ca = (await import(path.join(repoRoot, 'scripts', 'test-ca.mjs'))) as {
    makeCa(dir: string, name: string): { caFile: string; certFile: string; keyFile: string };
  };
  const { caFile, certFile, keyFile } = ca.makeCa(dir, 'token');
  const cert = fs.readFileSync(certFile, 'utf8');
  const key = crypto.createPrivateKey(fs.readFileSync(keyFile));
  const der = new crypto.X509Certificate(cert).raw.toString('base64');
  const issuer = 'inv-test-token';
  const service = 'inv-test-registry';
  const issued: string[] = [];
  const jwt = (claims: object) => {
    const head = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT', x5c: [der] }));
    const body = b64url(JSON.stringify(claims));
    const sig = crypto.sign('sha256', Buffer.from(`${head}.${body}`), { key, dsaEncoding: 'ieee-p1363' });
    return `${head}.${body}.${b64url(sig)}`;
  };
  const server = https.createServer({ cert, key: fs.readFileSync(keyFile) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://x');
    const [scheme, cred] = (req.headers.authorization ?? '').split(' ');
    const [u, p] = Buffer.from(cred ?? '', 'base64')
      .toString()
      .split(/:(.*)/s);
    if (url.pathname !== '/token') return void res.writeHead(404).end();
    if (scheme !== 'Basic' || u !== user || p !== password) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      return void res.end('{"details":"incorrect username or password"}');
    }
    const access = url.searchParams.getAll('scope').map((s) => {
      const [type, name, actions] = s.split(':');
      return { type, name, actions: (actions ?? '').split(',') };
    });
    const now = Math.floor(Date.now() / 1000);
    const token = jwt({
      iss: issuer,
      sub: u,
      aud: url.searchParams.get('service'),
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: crypto.randomUUID(),
      access,
    });
    issued.push(u);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ token, expires_in: 300 }));
  });
  const sockets = new Set<{ destroy(): void }>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    realm: `https://127.0.0.1:${port}/token`,
    issuer,
    service,
    caFile,
    issued,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
