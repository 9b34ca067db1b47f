// The credentials `docker login` (or podman, crane, skopeo with the same file) left for a registry,
// for `npm run image` when no --username is given: ~/.docker/config.json ($DOCKER_CONFIG/config.json
// when set), its `auths` entry for the registry ("user:password" in base64), or the credential
// helper it names for the registry (`credHelpers`) or for all (`credsStore`), run as the Docker
// credential helper protocol says: `docker-credential-NAME get`, the registry on stdin, JSON
// {"Username", "Secret"} on stdout. The file and the helper's output are read with a size bound
// and the helper with a deadline, so a broken configuration is one line of error, not a hang.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAX_CONFIG = 4 * 2 ** 20;
const MAX_HELPER_OUTPUT = 64 * 1024;
const HELPER_TIMEOUT_MS = 20_000;
// Docker Hub's key in the file, as `docker login` writes it.
const HUB_KEY = 'https://index.docker.io/v1/';

export class DockerConfigError extends Error {}

/** The file `docker login` writes: $DOCKER_CONFIG/config.json, else ~/.docker/config.json. */
export function dockerConfigPath(env = process.env, home = os.homedir()) {
  return path.join(env.DOCKER_CONFIG || path.join(home, '.docker'), 'config.json');
}

/** The host[:port] a key of `auths` names: a bare host, or a URL (https://host/v1/). PURE */
export function authKeyHost(key) {
  const bare = key.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  return bare === 'index.docker.io' || bare === 'registry-1.docker.io' ? 'docker.io' : bare;
}

/**
 * What the configuration says for `host` (the registry as the image reference names it):
 * { username, password } from `auths`, { helper } when a credential helper holds them, or
 * undefined. PURE
 */
export function lookupCredentials(config, host, file = 'config.json') {
  const want = authKeyHost(host);
  const helper = config.credHelpers?.[host] ?? config.credHelpers?.[want] ?? undefined;
  if (helper) return { helper: String(helper) };
  const entry = Object.entries(config.auths ?? {}).find(([k]) => authKeyHost(k) === want)?.[1];
  if (entry?.identitytoken)
    throw new DockerConfigError(
      `${file}: the entry for ${host} is an identity token, which npm run image does not use; give --username USER --password-stdin`,
    );
  if (entry?.auth) {
    const text = Buffer.from(String(entry.auth), 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon <= 0)
      throw new DockerConfigError(`${file}: the auth of ${host} is not base64 of "user:password"`);
    return { username: text.slice(0, colon), password: text.slice(colon + 1) };
  }
  if (entry?.username && entry?.password) return { username: entry.username, password: entry.password };
  if (config.credsStore) return { helper: String(config.credsStore) };
  return undefined;
}

/** Runs `docker-credential-NAME get` for `host`: { username, password }, or undefined if it has none. */
export function helperCredentials(name, host, { timeoutMs = HELPER_TIMEOUT_MS, env = process.env } = {}) {
  if (!/^[A-Za-z0-9._-]+$/.test(name))
    throw new DockerConfigError(`credential helper ${JSON.stringify(name)}: not a helper name`);
  const program = `docker-credential-${name}`;
  const server = host === 'docker.io' ? HUB_KEY : host;
  return new Promise((resolve, reject) => {
    const child = spawn(program, ['get'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    let size = 0;
    let err = '';
    const fail = (msg) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new DockerConfigError(`${program} get (${host}): ${msg}`));
    };
    const timer = setTimeout(() => fail(`no answer in ${timeoutMs / 1000} s`), timeoutMs);
    child.on('error', (e) => fail(e.code === 'ENOENT' ? 'not found on PATH' : e.message));
    child.stdout.on('data', (d) => {
      size += d.length;
      if (size > MAX_HELPER_OUTPUT) fail(`answered more than ${MAX_HELPER_OUTPUT / 1024} KiB`);
      else out.push(d);
    });
    child.stderr.on('data', (d) => (err = (err + d.toString()).slice(-500)));
    child.stdin.on('error', () => {}); // a helper that exits without reading
    child.stdin.end(server);
    child.on('close', (code) => {
      clearTimeout(timer);
      const text = Buffer.concat(out).toString('utf8').trim();
      // The protocol's answer when it holds nothing for the server.
      if (code !== 0 && /credentials not found/i.test(text + err)) return resolve(undefined);
      if (code !== 0)
        return reject(
          new DockerConfigError(`${program} get (${host}): exit ${code}: ${(err || text).trim()}`),
        );
      try {
        const j = JSON.parse(text);
        if (typeof j.Username !== 'string' || typeof j.Secret !== 'string')
          throw new Error('no Username and Secret');
        if (j.Username === '<token>')
          return reject(
            new DockerConfigError(
              `${program} get (${host}): an identity token, which npm run image does not use; give --username USER --password-stdin`,
            ),
          );
        resolve({ username: j.Username, password: j.Secret });
      } catch (e) {
        reject(
          new DockerConfigError(`${program} get (${host}): not the helper protocol's JSON (${e.message})`),
        );
      }
    });
  });
}

/**
 * The credentials for `host` from the Docker configuration, with where they came from
 * ({ username, password, from }), or undefined when the file is absent or names none.
 */
export async function dockerCredentials(host, { env = process.env, home = os.homedir(), timeoutMs } = {}) {
  const file = dockerConfigPath(env, home);
  let text;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(MAX_CONFIG + 1);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      if (n > MAX_CONFIG) throw new DockerConfigError(`${file}: larger than ${MAX_CONFIG / 2 ** 20} MiB`);
      text = buf.subarray(0, n).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if (e.code === 'ENOENT') return undefined;
    if (e instanceof DockerConfigError) throw e;
    throw new DockerConfigError(`${file}: ${e.message}`);
  }
  let config;
  try {
    config = JSON.parse(text);
  } catch (e) {
    throw new DockerConfigError(`${file}: not JSON (${e.message})`);
  }
  const found = lookupCredentials(config ?? {}, host, file);
  if (!found) return undefined;
  if (!found.helper) return { ...found, from: file };
  const creds = await helperCredentials(found.helper, host, { env, timeoutMs });
  return creds && { ...creds, from: `docker-credential-${found.helper}` };
}
