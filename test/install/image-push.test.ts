// `npm run image` (scripts/image.mjs) against the real Distribution registry (scripts/registry.mjs)
// over TLS with a CA of its own, as a private registry is: pushed with HTTP Basic auth, then with
// the Bearer token flow of a token service (test/support/servers/token-server.ts), the manifest read back
// and compared with the archive the same run wrote, and the image ID with the worker image the
// tests deploy (one definition, scripts/inv-image.mjs). Wrong credentials, an unknown CA and
// hostile servers (one that hangs, one with an endless body) fail in bounded time with one line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpServer } from '../support/servers/hostile-http.js';
import { repoRoot } from '../support/paths.js';
import { registryScript, type Registry } from '../support/servers/registry.js';
import { tokenServer, type TokenServer } from '../support/servers/token-server.js';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * scripts/image.mjs (what `npm run image` runs after the build), the password on stdin. The Docker
 * configuration is none unless `env` names one: the developer's `docker login` stays out of it.
 */
function image(args: string[], stdin = '', env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'image.mjs'), ...args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DOCKER_CONFIG: path.join(os.tmpdir(), `inv-no-docker-config-${process.pid}`),
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr, ms: Date.now() - started })),
  );
}

/** The lines of stderr that are not progress. */
const errorLines = (r: Run) =>
  r.stderr.split('\n').filter((l) => l && !/^image: (built|wrote|uploading|pushed|usage)/.test(l));

interface PushModule {
  parseImageRef(ref: string, tag: string): unknown;
  getManifest(
    ref: unknown,
    opts: object,
  ): Promise<{ digest: string; reportedDigest?: string; manifest: { config: { digest: string } } }>;
}

describe('npm run image (push to a registry)', function () {
  this.timeout(180_000);
  let dir: string;
  let reg: Registry;
  let push: PushModule;
  let workerId: string;

  before(async function () {
    this.timeout(300_000);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-image-push-'));
    reg = await (await registryScript()).start({ tls: true });
    push = (await import(path.join(repoRoot, 'scripts', 'oci-push.mjs'))) as PushModule;
    const worker = (await import(path.join(repoRoot, 'scripts', 'worker-image.mjs'))) as {
      buildWorkerImage(): Promise<{ id: string }>;
    };
    workerId = (await worker.buildWorkerImage()).id;
  });

  after(async () => {
    await reg?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('pushes with Basic auth over TLS and the CA; the registry holds what the archive holds', async () => {
    const ref = `${reg.host}/team/inv:t1`;
    const archive = path.join(dir, 'inv.tar');
    const args = ['--push', ref, '--username', reg.user, '--password-stdin', '--ca-file', reg.caFile!];
    const r = await image([...args, '--output', archive], `${reg.password}\n`);
    assert.equal(r.status, 0, r.stderr);
    const m = /^(\S+)@(sha256:[0-9a-f]{64})\n$/.exec(r.stdout);
    assert.ok(m, `stdout names the pushed reference with its digest: ${r.stdout}`);
    assert.equal(m[1], ref);
    assert.match(r.stderr, new RegExp(`wrote ${ref} to ${archive}`));

    // The archive's manifest is the one the registry serves under the tag.
    const index = JSON.parse(tarMember(archive, 'index.json').toString()) as {
      manifests: { digest: string; annotations: Record<string, string> }[];
    };
    assert.equal(index.manifests[0]!.digest, m[2]);
    assert.equal(index.manifests[0]!.annotations['io.containerd.image.name'], ref);
    const opts = { username: reg.user, password: reg.password, ca: fs.readFileSync(reg.caFile!, 'utf8') };
    const got = await push.getManifest(push.parseImageRef(ref, 'x'), opts);
    assert.equal(got.digest, m[2]);
    assert.equal(got.reportedDigest, m[2]);
    // The same image as the worker image every test deploys: the same config, so the same ID.
    assert.equal(got.manifest.config.digest, workerId);

    // Pushed again: nothing to upload, the same digest.
    const again = await image(args, reg.password);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, r.stdout);
    assert.match(again.stderr, /0 blobs uploaded, 2 already there/);
  });

  it('a wrong password: one line naming the credentials, exit 1, before any build', async () => {
    const r = await image(
      [
        '--push',
        `${reg.host}/team/inv`,
        '--username',
        reg.user,
        '--password-stdin',
        '--ca-file',
        reg.caFile!,
      ],
      'not-the-password\n',
    );
    assert.equal(r.status, 1);
    assert.deepEqual(errorLines(r), [
      `image: ${reg.host}: 401 Unauthorized for GET /v2/: the credentials of ${reg.user} are wrong or may not push to team/inv (check --username and the password given on stdin)`,
    ]);
    assert.doesNotMatch(r.stderr, /built/);
  });

  it('an unknown CA: one line naming --ca-file; no credentials: one line naming them', async () => {
    const r = await image(
      ['--push', `${reg.host}/team/inv`, '--username', reg.user, '--password-stdin'],
      'x',
    );
    assert.equal(r.status, 1);
    assert.equal(errorLines(r).length, 1, r.stderr);
    assert.match(r.stderr, /x509: .*not signed by a CA this machine trusts.*--ca-file CA\.pem/);
    const anon = await image(['--push', `${reg.host}/team/inv`, '--ca-file', reg.caFile!]);
    assert.equal(anon.status, 1);
    assert.match(
      anon.stderr,
      /401 Unauthorized: the registry requires credentials: --username USER --password-stdin/,
    );
  });

  it('without --username: what `docker login` left (auths, or a credential helper); a broken one is one line', async function () {
    this.timeout(240_000);
    const ref = `${reg.host}/team/inv:dc`;
    const args = ['--push', ref, '--ca-file', reg.caFile!, '--timeout', '3s'];
    const config = (name: string, content: string) => {
      const d = path.join(dir, name);
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, 'config.json'), content);
      return d;
    };
    // auths, as `docker login` writes them: base64 of user:password under the registry's host.
    const auth = Buffer.from(`${reg.user}:${reg.password}`).toString('base64');
    const plain = config('docker-auths', JSON.stringify({ auths: { [reg.host]: { auth } } }));
    const r = await image(args, '', { DOCKER_CONFIG: plain });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`using the credentials for ${reg.host} from ${path.join(plain, 'config.json')}`),
    );
    assert.match(r.stdout, new RegExp(`^${ref}@sha256:[0-9a-f]{64}\\n$`));

    // A credential helper, by the Docker credential helper protocol: the server on stdin, JSON out.
    const bin = path.join(dir, 'helpers');
    fs.mkdirSync(bin, { recursive: true });
    const helper = (name: string, body: string) =>
      fs.writeFileSync(path.join(bin, `docker-credential-${name}`), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    helper(
      'invtest',
      `read server; [ "$1" = get ] && [ "$server" = "${reg.host}" ] || exit 1; printf '{"ServerURL":"%s","Username":"${reg.user}","Secret":"${reg.password}"}' "$server"`,
    );
    helper('invhang', 'exec sleep 600');
    const PATH = `${bin}:${process.env.PATH}`;
    const helped = config('docker-helper', JSON.stringify({ credHelpers: { [reg.host]: 'invtest' } }));
    const h = await image(args, '', { DOCKER_CONFIG: helped, PATH });
    assert.equal(h.status, 0, h.stderr);
    assert.match(
      h.stderr,
      new RegExp(`using the credentials for ${reg.host} from docker-credential-invtest`),
    );

    // A helper that never answers, a file that is not JSON: one line each, in bounded time.
    const hung = config('docker-hang', JSON.stringify({ credsStore: 'invhang' }));
    const slow = await image(args, '', { DOCKER_CONFIG: hung, PATH });
    assert.equal(slow.status, 1, slow.stderr);
    assert.deepEqual(errorLines(slow), [
      `image: docker-credential-invhang get (${reg.host}): no answer in 3 s`,
    ]);
    assert.ok(slow.ms < 30_000, `${slow.ms} ms`);
    const broken = config('docker-broken', '{"auths": ');
    const bad = await image(args, '', { DOCKER_CONFIG: broken });
    assert.equal(bad.status, 1, bad.stderr);
    assert.equal(errorLines(bad).length, 1, bad.stderr);
    assert.match(bad.stderr, /config\.json: not JSON/);
  });

  it('bad arguments exit 2 naming the argument', async () => {
    for (const [args, why] of [
      [['--push', 'inv:1'], /name the registry first, as REGISTRY\/REPOSITORY\[:TAG\]/],
      [['--push', 'r.example/Inv'], /not a repository name/],
      [['--push', 'r.example/inv', '--username', 'u'], /--username needs --password-stdin/],
      [['--push', 'r.example/inv', '--ca-file', path.join(dir, 'none.pem')], /--ca-file .*: no such file/],
      [[], /give --push REGISTRY\/REPO\[:TAG\] .* or --output FILE/],
    ] as const) {
      const r = await image([...args]);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, why);
    }
  });

  it('a registry that hangs, or answers without end: a bounded-time error', async () => {
    const hang = await httpServer(() => {});
    const endless = await httpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (res.write(chunk));
      };
      res.on('drain', more);
      more();
    });
    try {
      const host = (u: string) => new URL(u).host;
      const h = await image(['--push', `${host(hang.url)}/inv`, '--plain-http', '--timeout', '1s']);
      assert.equal(h.status, 1);
      assert.ok(h.ms < 15_000, `${h.ms} ms`);
      assert.match(h.stderr, /did not answer GET \/v2\/ within 1s \(--timeout\)|stalled on GET \/v2\//);
      const e = await image(['--push', `${host(endless.url)}/inv`, '--plain-http', '--timeout', '5s']);
      assert.equal(e.status, 1);
      assert.ok(e.ms < 15_000, `${e.ms} ms`);
      assert.match(e.stderr, /answered GET \/v2\/ with more than 4194304 bytes/);
    } finally {
      await hang.close();
      await endless.close();
    }
  });

  describe('the Bearer token flow (ghcr.io, Docker Hub, Harbor)', () => {
    let tokens: TokenServer;
    let treg: Registry;
    let caBoth: string;
    before(async function () {
      this.timeout(60_000);
      tokens = await tokenServer(dir, 'robot', 'robot-secret');
      treg = await (
        await registryScript()
      ).start({
        tls: true,
        token: {
          realm: tokens.realm,
          service: tokens.service,
          issuer: tokens.issuer,
          rootCertBundle: tokens.caFile,
        },
      });
      // One file with both CAs: the registry's and the token service's.
      caBoth = path.join(dir, 'both-ca.pem');
      fs.writeFileSync(
        caBoth,
        fs.readFileSync(treg.caFile!, 'utf8') + fs.readFileSync(tokens.caFile, 'utf8'),
      );
    });
    after(async () => {
      await treg?.stop();
      await tokens?.close();
    });

    it('gets a token from the realm and pushes the image and the scanner image', async function () {
      this.timeout(300_000);
      const args = ['--username', 'robot', '--password-stdin', '--ca-file', caBoth];
      const r = await image(
        [
          '--push',
          `${treg.host}/org/inv:1`,
          '--scanner-push',
          `${treg.host}/org/inv-trivy-scanner:1`,
          ...args,
        ],
        'robot-secret',
      );
      assert.equal(r.status, 0, r.stderr);
      const lines = r.stdout.trim().split('\n');
      assert.equal(lines.length, 2, r.stdout);
      assert.match(lines[0]!, new RegExp(`^${treg.host}/org/inv:1@sha256:`));
      assert.match(lines[1]!, new RegExp(`^${treg.host}/org/inv-trivy-scanner:1@sha256:`));
      assert.ok(tokens.issued.length >= 2, 'a token for each repository');
      const ca = fs.readFileSync(caBoth, 'utf8');
      const got = await push.getManifest(push.parseImageRef(`${treg.host}/org/inv:1`, 'x'), {
        username: 'robot',
        password: 'robot-secret',
        ca,
      });
      assert.equal(`${treg.host}/org/inv:1@${got.digest}`, lines[0]);
      assert.equal(got.manifest.config.digest, workerId);

      const wrong = await image(['--push', `${treg.host}/org/inv:1`, ...args], 'wrong');
      assert.equal(wrong.status, 1);
      assert.match(
        wrong.stderr,
        /the token service refused \(401\) .*the credentials of robot are wrong or may not push to org\/inv/,
      );
    });
  });
});

/** One member of a tar archive, by name (ustar; our own archives). */
function tarMember(file: string, name: string): Buffer {
  const buf = fs.readFileSync(file);
  for (let off = 0; off + 512 <= buf.length;) {
    const h = buf.subarray(off, off + 512);
    const n = h.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(h.subarray(124, 136).toString('ascii').replace(/\0.*$/s, '').trim() || '0', 8);
    if (n === name) return buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${name} not in ${file}`);
}

describe('npm run image: which entry of the Docker configuration names a registry', () => {
  interface DockerConfigModule {
    lookupCredentials(
      config: object,
      host: string,
    ): { username?: string; password?: string; helper?: string } | undefined;
  }
  let m: DockerConfigModule;
  before(async () => {
    m = (await import(path.join(repoRoot, 'scripts', 'docker-config.mjs'))) as DockerConfigModule;
  });
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it('the host as written, a URL of it, Docker Hub by its legacy key; a helper for the host before auths and the store', () => {
    const auths = {
      'r.example.com:5000': { auth: b64('a:pw:with:colons') },
      'https://other.example.com/v1/': { auth: b64('b:x') },
      'https://index.docker.io/v1/': { auth: b64('hub:y') },
    };
    assert.deepEqual(m.lookupCredentials({ auths }, 'r.example.com:5000'), {
      username: 'a',
      password: 'pw:with:colons',
    });
    assert.deepEqual(m.lookupCredentials({ auths }, 'other.example.com'), { username: 'b', password: 'x' });
    assert.deepEqual(m.lookupCredentials({ auths }, 'docker.io'), { username: 'hub', password: 'y' });
    assert.equal(m.lookupCredentials({ auths }, 'r.example.com'), undefined); // another port is another registry
    const helpers = { auths, credHelpers: { 'r.example.com:5000': 'pass' }, credsStore: 'desktop' };
    assert.deepEqual(m.lookupCredentials(helpers, 'r.example.com:5000'), { helper: 'pass' });
    assert.deepEqual(m.lookupCredentials(helpers, 'other.example.com'), { username: 'b', password: 'x' });
    assert.deepEqual(m.lookupCredentials(helpers, 'new.example.com'), { helper: 'desktop' });
    assert.throws(
      () => m.lookupCredentials({ auths: { 'r.example.com': { identitytoken: 't' } } }, 'r.example.com'),
      /identity token/,
    );
    assert.throws(
      () => m.lookupCredentials({ auths: { 'r.example.com': { auth: b64('nocolon') } } }, 'r.example.com'),
      /user:password/,
    );
  });
});
