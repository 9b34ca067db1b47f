#!/usr/bin/env node
// `npm run image`: the image users deploy, built from the checkout without Docker and pushed to
// their registry. It is the `inv` image of scripts/inv-image.mjs, the same definition as the
// worker image every test deploys (scripts/worker-image.mjs: same config, same layer, only the
// name differs); here its layer is gzip-compressed for the registry, which leaves the image ID
// (the config's digest) as it is. The daemon and the erase workers run it. --scanner-push also
// pushes scan mode's scanner image (scripts/scanner-image.mjs: this image plus Trivy at /trivy).
//
//   npm run image -- --push REGISTRY/REPO[:TAG] [--scanner-push REGISTRY/REPO[:TAG]]
//                    [--username USER --password-stdin] [--ca-file CA.pem] [--plain-http]
//                    [--timeout 60s] [--output FILE]
//   npm run image -- --output FILE          the OCI archive only (`ctr images import` reads it)
//
// TAG defaults to the package version. Prints each pushed reference with its digest on stdout.
// Exit codes: 0 done; 1 the build or the push failed (one line says why); 2 bad arguments.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { dockerCredentials, DockerConfigError } from './docker-config.mjs';
import { buildInvImage, repoRoot } from './inv-image.mjs';
import { imageArchive, sha256 } from './oci-archive.mjs';
import { openRegistry, parseImageRef, pushImage, RegistryError } from './oci-push.mjs';
import { isMain } from './process.mjs';

const log = (msg) => process.stderr.write(`image: ${msg}\n`);
const version = () => JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version;
const MAX_PASSWORD = 64 * 1024;

class UsageError extends Error {}

const USAGE = `Builds the inv image from this checkout (no Docker) and pushes it to your registry.

  npm run image -- --push REGISTRY/REPO[:TAG] [--scanner-push REGISTRY/REPO[:TAG]]
                   [--username USER --password-stdin] [--ca-file CA.pem] [--plain-http]
                   [--timeout 60s] [--output FILE]
  npm run image -- --output FILE [--scanner-output FILE]

  --push REF            push the image (TAG defaults to the package version)
  --scanner-push REF    also push scan mode's scanner image (the image plus Trivy)
  --username USER       with --password-stdin: HTTP Basic, or a token from the registry's realm;
                        without it, what \`docker login\` left for the registry, if anything
                        ($DOCKER_CONFIG or ~/.docker/config.json, and its credential helpers)
  --password-stdin      read the password (or a token) from standard input
  --ca-file CA.pem      trust this CA as well as the system's (a private registry's)
  --plain-http          the registry serves plain HTTP (never for credentials over a network)
  --timeout 60s         deadline of each request (an upload gets 4 s more per MiB)
  --output FILE         write the image as an OCI archive (ctr images import, skopeo)
  --scanner-output FILE the same for the scanner image

Then: inv install --daemon --image REGISTRY/REPO:TAG [--image-pull-secret NAME]
`;

/** The options, or a UsageError naming the argument. PURE but for reading --ca-file. */
export function imageOptions(argv, defaultTag = version()) {
  let v;
  try {
    ({ values: v } = parseArgs({
      args: argv,
      options: {
        push: { type: 'string' },
        'scanner-push': { type: 'string' },
        output: { type: 'string' },
        'scanner-output': { type: 'string' },
        username: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        'ca-file': { type: 'string' },
        'plain-http': { type: 'boolean' },
        timeout: { type: 'string', default: '60s' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(e.message);
  }
  if (v.help) return { help: true };
  if (!v.push && !v.output)
    throw new UsageError('give --push REGISTRY/REPO[:TAG] (push the image) or --output FILE (write it)');
  if (v['scanner-push'] && !v.push)
    throw new UsageError('--scanner-push needs --push (the same registry login)');
  if (v.username !== undefined && !v['password-stdin'])
    throw new UsageError('--username needs --password-stdin (the password on standard input)');
  if (v['password-stdin'] && v.username === undefined)
    throw new UsageError('--password-stdin needs --username');
  const timeout = /^(\d+)(ms|s|m)$/.exec(v.timeout ?? '');
  if (!timeout || Number(timeout[1]) <= 0)
    throw new UsageError(`--timeout ${v.timeout}: a duration like 30s or 2m`);
  const timeoutMs = Number(timeout[1]) * { ms: 1, s: 1000, m: 60_000 }[timeout[2]];
  const ref = (flag) => {
    if (v[flag] === undefined) return undefined;
    try {
      return parseImageRef(v[flag], defaultTag);
    } catch (e) {
      throw new UsageError(`--${flag} ${e.message}`);
    }
  };
  let ca;
  if (v['ca-file'] !== undefined) {
    if (v['plain-http']) throw new UsageError('--ca-file and --plain-http: a CA is for HTTPS');
    try {
      ca = fs.readFileSync(v['ca-file'], 'utf8');
    } catch (e) {
      throw new UsageError(`--ca-file ${v['ca-file']}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
    }
    if (!/-----BEGIN CERTIFICATE-----/.test(ca))
      throw new UsageError(`--ca-file ${v['ca-file']}: not a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return {
    push: ref('push'),
    scannerPush: ref('scanner-push'),
    output: v.output,
    scannerOutput: v['scanner-output'],
    username: v.username,
    passwordStdin: Boolean(v['password-stdin']),
    ca,
    plainHttp: Boolean(v['plain-http']),
    timeoutMs,
    defaultTag,
  };
}

/** Standard input, whole, up to a bound, without its final line break. */
async function readPassword() {
  if (process.stdin.isTTY) log('reading the password from standard input (end with ^D)');
  const chunks = [];
  let size = 0;
  for await (const c of process.stdin) {
    size += c.length;
    if (size > MAX_PASSWORD) throw new UsageError('--password-stdin: more than 64 KiB on standard input');
    chunks.push(c);
  }
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!password) throw new UsageError('--password-stdin: standard input was empty');
  return password;
}

const gzip = (data) => {
  const z = zlib.gzipSync(data, { level: 6 });
  return { data: z, digest: sha256(z) };
};

/** A file's gzip, made once beside it (the same bytes each push, and seconds saved). */
function gzipCached(file) {
  const gz = `${file}.gz`;
  if (fs.existsSync(gz)) {
    const data = fs.readFileSync(gz);
    return { data, digest: sha256(data) };
  }
  const z = gzip(fs.readFileSync(file));
  fs.writeFileSync(`${gz}.${process.pid}.tmp`, z.data);
  fs.renameSync(`${gz}.${process.pid}.tmp`, gz);
  return z;
}

/** An image as the registry gets it: its config, and its layers gzip-compressed. */
function forRegistry(config, gz, platform) {
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: sha256(config),
        size: config.length,
      },
      layers: gz.map((l) => ({
        mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
        digest: l.digest,
        size: l.data.length,
      })),
    }),
  );
  return {
    manifest,
    platform,
    id: sha256(config),
    blobs: [[sha256(config), config], ...gz.map((l) => [l.digest, l.data])],
    bytes: gz.reduce((n, l) => n + l.data.length, 0),
  };
}

async function invImage() {
  const built = await buildInvImage(repoRoot);
  return forRegistry(built.config, [gzipCached(built.layer.file)], built.platform);
}

async function scannerImage() {
  const { invScannerParts } = await import('./scanner-image.mjs');
  const parts = await invScannerParts();
  return forRegistry(
    parts.config,
    parts.layers.map((l) => gzip(l.data)),
    parts.platform,
  );
}

function writeArchive(file, name, image) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, imageArchive({ ref: name, ...image }));
  fs.renameSync(tmp, file);
  log(`wrote ${name} to ${path.resolve(file)} (an OCI archive: ctr images import, skopeo copy oci-archive:)`);
}

export async function main(argv) {
  const o = imageOptions(argv);
  if (o.help) {
    process.stdout.write(USAGE);
    return;
  }
  const password = o.passwordStdin ? await readPassword() : undefined;
  const auth = { username: o.username, password, ca: o.ca, plainHttp: o.plainHttp, timeoutMs: o.timeoutMs };
  const jobs = [{ what: 'inv image', build: invImage, ref: o.push, output: o.output, fallback: 'inv' }];
  if (o.scannerPush || o.scannerOutput)
    jobs.push({
      what: 'scanner image',
      build: scannerImage,
      ref: o.scannerPush,
      output: o.scannerOutput,
      fallback: 'inv-trivy-scanner',
    });
  // The registries first: wrong credentials or an unknown CA show before the build. Without
  // --username, what `docker login` left for the registry, if anything (docker-config.mjs).
  for (const job of jobs.filter((j) => j.ref)) {
    let jobAuth = auth;
    if (o.username === undefined) {
      const host = job.ref.name.slice(0, job.ref.name.indexOf('/'));
      const found = await dockerCredentials(host, { timeoutMs: o.timeoutMs });
      if (found) {
        log(`using the credentials for ${host} from ${found.from}`);
        jobAuth = { ...auth, username: found.username, password: found.password };
      }
    }
    job.client = await openRegistry(job.ref, jobAuth);
  }
  for (const job of jobs) {
    const started = Date.now();
    const image = await job.build();
    log(
      `built the ${job.what} ${image.id.slice(0, 19)} (${(image.bytes / 2 ** 20).toFixed(1)} MiB compressed) in ${Date.now() - started} ms`,
    );
    const name = job.ref?.name ?? `localhost/${job.fallback}:${o.defaultTag}`;
    if (job.output) writeArchive(job.output, name, image);
    if (!job.ref) continue;
    const r = await pushImage(job.client, job.ref, image, log);
    log(`pushed ${job.ref.name} (${r.pushed.length} blobs uploaded, ${r.present.length} already there)`);
    process.stdout.write(`${job.ref.name}@${r.digest}\n`);
  }
}

if (isMain(import.meta.url)) {
  try {
    await main(process.argv.slice(2));
  } catch (err) {
    const usage = err instanceof UsageError;
    log(
      `${usage || err instanceof RegistryError || err instanceof DockerConfigError ? '' : 'failed: '}${err.message}`,
    );
    if (usage)
      log(
        'usage: npm run image -- --push REGISTRY/REPO[:TAG] [--username USER --password-stdin] [--ca-file CA.pem] (see --help)',
      );
    process.exitCode = usage ? 2 : 1;
  }
}
