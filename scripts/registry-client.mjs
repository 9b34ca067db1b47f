// One registry's HTTP API (the OCI distribution API) as `npm run image` speaks it, with Node's own
// http/https and nothing else: HTTPS by default, trusting the system's CAs plus the one the user
// gives (never turning verification off); plain HTTP only when asked. Authentication as real
// registries do it: after a 401, HTTP Basic with the user's credentials, or the Bearer token flow
// of ghcr.io, Docker Hub and Harbor (`WWW-Authenticate: Bearer realm=...,service=...`: a token for
// the repository's pull and push, from the realm, with the credentials when there are any).
//
// A registry is someone else's server: every request has a deadline (and an idle limit), every
// response body is read up to a bound, and every failure becomes one line that says what to do
// (a 401 names the credentials, an unknown certificate the CA, a plain-HTTP server --plain-http).
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

/** A failure to report as it is: one line, no stack. */
export class RegistryError extends Error {}

const MiB = 2 ** 20;
/** Bytes an answer other than a blob may have (JSON errors, tokens, manifests). */
export const MAX_BODY = 4 * MiB;

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** One line for a failure of the connection itself (no HTTP answer). */
export function connectionProblem(origin, err, plainHttp) {
  const code = err.code ?? '';
  const x509 = `${origin}: x509: the registry's certificate`;
  if (UNTRUSTED.has(code))
    return `${x509} is not signed by a CA this machine trusts (${code}): give the CA that signed it with --ca-file CA.pem`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return `${x509} is not valid now (${code}): the registry must renew it`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `${x509} is not issued for this host (${err.reason ?? code}): use the name the certificate names`;
  if (code === 'EPROTO' || /wrong version number|packet length too long|unknown protocol/i.test(err.message))
    return `${origin} does not speak TLS on this port${plainHttp ? '' : ' (a registry serving plain HTTP needs --plain-http)'}`;
  if (code === 'ECONNREFUSED')
    return `${origin}: connection refused: is the registry running at that address?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${origin}: no such host (${code})`;
  if (code === 'ECONNRESET' || /socket hang up/.test(err.message))
    return `${origin} closed the connection${plainHttp ? ' (an HTTPS registry is asked without --plain-http)' : ''}`;
  return `${origin}: ${err.message}`;
}

/** The first error of a registry's JSON error body ({"errors":[{code,message}]}), as text. */
function registrySays(body) {
  try {
    const e = JSON.parse(body.toString('utf8')).errors?.[0];
    if (e?.code) return `${e.code}${e.message ? `: ${e.message}` : ''}`;
  } catch {
    // not JSON
  }
  const text = body.toString('utf8').replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/** Parameters of a WWW-Authenticate challenge: { scheme, realm, service, scope, ... }. */
export function parseChallenge(header) {
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header ?? '');
  if (!m) return undefined;
  const out = { scheme: m[1].toLowerCase() };
  for (const p of m[2].matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g))
    out[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  return out;
}

/**
 * A session with one registry for one repository. opts: { registry (host[:port]), repository,
 * username?, password?, ca? (PEM text added to the system's CAs), plainHttp?, timeoutMs }.
 */
export class RegistryClient {
  constructor({ registry, repository, username, password, ca, plainHttp = false, timeoutMs = 60_000 }) {
    this.origin = `${plainHttp ? 'http' : 'https'}://${registry}`;
    this.registry = registry;
    this.repository = repository;
    this.username = username;
    this.password = password;
    this.plainHttp = plainHttp;
    this.timeoutMs = timeoutMs;
    // `ca` replaces Node's trust store: the system's roots go in first, the user's CA beside them.
    this.ca = ca ? [...tls.rootCertificates, ca] : undefined;
    this.authorization = undefined;
  }

  /**
   * One request. opts: { method, url (absolute, or a path on the registry), headers, body,
   * maxBody, deadlineMs }. Resolves { status, headers, body } for any HTTP answer; rejects with
   * a RegistryError when there is none in time.
   */
  raw({ method, url, headers = {}, body, maxBody = MAX_BODY, deadlineMs = this.timeoutMs }) {
    const target = new URL(url, this.origin);
    const mod = target.protocol === 'https:' ? https : http;
    const where = `${target.host}`;
    const what = `${method} ${target.pathname}`;
    return new Promise((resolve, reject) => {
      let done = false;
      const fail = (msg) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        req.destroy();
        reject(new RegistryError(msg));
      };
      const req = mod.request(target, {
        method,
        headers: {
          'User-Agent': 'inv-image',
          ...headers,
          ...(body ? { 'Content-Length': body.length } : {}),
        },
        ...(this.ca && target.protocol === 'https:' ? { ca: this.ca } : {}),
        agent: false,
      });
      const seconds = (ms) => `${Math.round(ms / 100) / 10}s`;
      const timer = setTimeout(
        () => fail(`${where} did not answer ${what} within ${seconds(deadlineMs)} (--timeout)`),
        deadlineMs,
      );
      // No byte either way for the whole deadline of a small request: the server hangs.
      req.setTimeout(Math.min(deadlineMs, this.timeoutMs), () =>
        fail(
          `${where} stalled on ${what}: nothing sent or received for ${seconds(this.timeoutMs)} (--timeout)`,
        ),
      );
      req.on('error', (err) => fail(connectionProblem(where, err, this.plainHttp)));
      req.on('response', (res) => {
        const chunks = [];
        let size = 0;
        res.on('data', (c) => {
          size += c.length;
          if (size > maxBody)
            return fail(`${where} answered ${what} with more than ${maxBody} bytes: not a registry's answer`);
          chunks.push(c);
        });
        res.on('error', (err) => fail(connectionProblem(where, err, this.plainHttp)));
        res.on('end', () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) });
        });
      });
      req.end(body);
    });
  }

  /**
   * A request with this session's credentials: after a 401 it authenticates as the challenge
   * says and asks once more. A 401 then is the credentials' fault, and said so.
   */
  async send(opts) {
    const withAuth = () => ({
      ...opts,
      headers: { ...opts.headers, ...(this.authorization ? { Authorization: this.authorization } : {}) },
    });
    let res = await this.raw(withAuth());
    if (res.status !== 401) return res;
    const hadAuth = Boolean(this.authorization);
    await this.authenticate(res.headers['www-authenticate'], hadAuth);
    res = await this.raw(withAuth());
    if (res.status === 401)
      throw new RegistryError(
        `${this.registry}: 401 Unauthorized for ${opts.method} ${new URL(opts.url, this.origin).pathname}: ${this.credentialsHint()}`,
      );
    return res;
  }

  credentialsHint() {
    return this.username
      ? `the credentials of ${this.username} are wrong or may not push to ${this.repository} (check --username and the password given on stdin)`
      : 'the registry requires credentials: --username USER --password-stdin';
  }

  async authenticate(header, hadAuth) {
    const c = parseChallenge(header);
    if (hadAuth && c?.scheme === 'basic')
      throw new RegistryError(`${this.registry}: 401 Unauthorized: ${this.credentialsHint()}`);
    if (c?.scheme === 'basic') {
      if (!this.username)
        throw new RegistryError(`${this.registry}: 401 Unauthorized: ${this.credentialsHint()}`);
      this.authorization = this.basic();
      return;
    }
    if (c?.scheme !== 'bearer' || !c.realm)
      throw new RegistryError(
        `${this.registry}: 401 Unauthorized without a challenge this client knows (WWW-Authenticate: ${header ?? 'none'})`,
      );
    this.authorization = `Bearer ${await this.token(c)}`;
  }

  basic() {
    return `Basic ${Buffer.from(`${this.username}:${this.password ?? ''}`).toString('base64')}`;
  }

  /** A token from the realm, for pull and push on this repository (the Docker token protocol). */
  async token(c) {
    let realm;
    try {
      realm = new URL(c.realm);
    } catch {
      throw new RegistryError(`${this.registry}: the token realm ${JSON.stringify(c.realm)} is not a URL`);
    }
    // Credentials never travel in clear unless the user chose plain HTTP.
    if (realm.protocol !== 'https:' && !(this.plainHttp && realm.protocol === 'http:'))
      throw new RegistryError(
        `${this.registry}: the token realm ${realm.href} is not HTTPS (--plain-http allows plain HTTP)`,
      );
    if (c.service) realm.searchParams.set('service', c.service);
    realm.searchParams.set('scope', `repository:${this.repository}:pull,push`);
    if (this.username) realm.searchParams.set('account', this.username);
    const res = await this.raw({
      method: 'GET',
      url: realm.href,
      headers: this.username ? { Authorization: this.basic() } : {},
    });
    if (res.status === 401 || res.status === 403)
      throw new RegistryError(
        `${realm.host}: the token service refused (${res.status}) for ${this.registry}: ${this.credentialsHint()}`,
      );
    if (res.status !== 200)
      throw new RegistryError(
        `${realm.host}: the token service answered ${res.status}: ${registrySays(res.body)}`,
      );
    let token;
    try {
      const j = JSON.parse(res.body.toString('utf8'));
      token = j.token ?? j.access_token;
    } catch {
      // below
    }
    if (typeof token !== 'string' || !token)
      throw new RegistryError(`${realm.host}: the token service's answer holds no token`);
    return token;
  }

  /** A RegistryError for an answer that is not the expected one. */
  unexpected(res, what) {
    const says = registrySays(res.body);
    if (res.status === 400 && this.plainHttp && /HTTPS server/i.test(says))
      return new RegistryError(
        `${this.registry} serves HTTPS: drop --plain-http (and give --ca-file if it needs one)`,
      );
    if (res.status === 403)
      return new RegistryError(
        `${this.registry}: 403 Forbidden: ${what} is denied${this.username ? ` to ${this.username}` : ''}${says ? ` (${says})` : ''}`,
      );
    return new RegistryError(`${this.registry}: ${what} answered ${res.status}${says ? `: ${says}` : ''}`);
  }
}
