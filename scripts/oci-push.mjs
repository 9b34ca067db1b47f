// Pushing one image to a registry over the OCI distribution API (scripts/registry-client.mjs
// speaks it): each blob the registry lacks is uploaded whole (POST, then PUT with its digest), then
// the manifest is put under its tag, and the digest the registry reports is checked against ours.
// Also reading a manifest back, which the tests use to compare what the registry holds.
import { createHash } from 'node:crypto';
import { RegistryClient, RegistryError } from './registry-client.mjs';

export { RegistryError };

const sha256 = (buf) => `sha256:${createHash('sha256').update(buf).digest('hex')}`;
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const HOST =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::\d+)?$/;
/** Seconds an upload may take per MiB on top of the deadline: 256 KiB/s, a slow uplink. */
const UPLOAD_SECONDS_PER_MIB = 4;

/**
 * REGISTRY/REPOSITORY[:TAG] as { registry, repository, tag, name (what the user reads) }, or a
 * RegistryError. The registry is the first part when it names a host (has a dot or a port, or
 * is localhost); docker.io is Docker Hub, whose API is at registry-1.docker.io.
 */
export function parseImageRef(ref, defaultTag) {
  if (/@/.test(ref))
    throw new RegistryError(`${ref}: give a tag, not a digest (the registry reports the digest)`);
  const slash = ref.indexOf('/');
  const first = slash > 0 ? ref.slice(0, slash) : '';
  if (!first || !(first.includes('.') || first.includes(':') || first === 'localhost'))
    throw new RegistryError(
      `${ref}: name the registry first, as REGISTRY/REPOSITORY[:TAG] (e.g. ghcr.io/you/inv:${defaultTag})`,
    );
  if (!HOST.test(first)) throw new RegistryError(`${ref}: ${first} is not a registry host[:port]`);
  let rest = ref.slice(slash + 1);
  let tag = defaultTag;
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  if (!REPOSITORY.test(rest))
    throw new RegistryError(
      `${ref}: ${JSON.stringify(rest)} is not a repository name (lowercase letters, digits, . _ - and /)`,
    );
  if (!TAG.test(tag)) throw new RegistryError(`${ref}: ${JSON.stringify(tag)} is not a tag`);
  const hub = first === 'docker.io' || first === 'index.docker.io';
  return {
    registry: hub ? 'registry-1.docker.io' : first,
    repository: hub && !rest.includes('/') ? `library/${rest}` : rest,
    tag,
    name: `${first}/${rest}:${tag}`,
  };
}

/**
 * A session with the registry of `ref` (parseImageRef's result), checked and authenticated
 * (GET /v2/), so that wrong credentials or an untrusted certificate show before any build.
 * opts: { username, password, ca, plainHttp, timeoutMs }.
 */
export async function openRegistry(ref, opts = {}) {
  const client = new RegistryClient({ ...opts, registry: ref.registry, repository: ref.repository });
  const res = await client.send({ method: 'GET', url: '/v2/' });
  if (res.status !== 200)
    throw client.unexpected(
      res,
      `GET /v2/ (the OCI distribution API's base: is ${client.registry} a registry?)`,
    );
  return client;
}

/**
 * Pushes { manifest (Buffer), blobs: [[digest, Buffer]] } as `ref` through `client`
 * (openRegistry's). Resolves { digest, pushed: [digests uploaded], present: [digests the
 * registry had] }.
 */
export async function pushImage(client, ref, image, log = () => {}) {
  const base = `/v2/${ref.repository}`;
  const pushed = [];
  const present = [];
  for (const [digest, data] of image.blobs) {
    const head = await client.send({ method: 'HEAD', url: `${base}/blobs/${digest}` });
    if (head.status === 200) {
      present.push(digest);
      continue;
    }
    if (head.status !== 404) throw client.unexpected(head, `HEAD ${base}/blobs/${digest}`);
    log(`uploading ${digest.slice(0, 19)} (${(data.length / 2 ** 20).toFixed(1)} MiB)`);
    const start = await client.send({ method: 'POST', url: `${base}/blobs/uploads/` });
    if (start.status !== 202 || !start.headers.location)
      throw client.unexpected(start, `starting an upload to ${ref.repository} (POST ${base}/blobs/uploads/)`);
    // The Location may carry query parameters of its own (an upload state): keep them as sent.
    const location = new URL(start.headers.location, client.origin).href;
    const url = `${location}${location.includes('?') ? '&' : '?'}digest=${encodeURIComponent(digest)}`;
    const put = await client.send({
      method: 'PUT',
      url,
      headers: { 'Content-Type': 'application/octet-stream' },
      body: data,
      deadlineMs: client.timeoutMs + Math.ceil(data.length / 2 ** 20) * UPLOAD_SECONDS_PER_MIB * 1000,
    });
    if (put.status !== 201) throw client.unexpected(put, `uploading blob ${digest}`);
    pushed.push(digest);
  }
  const digest = sha256(image.manifest);
  const mediaType = JSON.parse(image.manifest.toString('utf8')).mediaType;
  const res = await client.send({
    method: 'PUT',
    url: `${base}/manifests/${ref.tag}`,
    headers: { 'Content-Type': mediaType },
    body: image.manifest,
  });
  if (res.status !== 201) throw client.unexpected(res, `putting the manifest ${ref.name}`);
  const reported = res.headers['docker-content-digest'];
  if (reported && reported !== digest)
    throw new RegistryError(
      `${ref.registry} stored the manifest of ${ref.name} as ${reported}, not as its digest ${digest}`,
    );
  return { digest, pushed, present };
}

/** The manifest stored under `ref` (parseImageRef's result): { digest, mediaType, manifest }. */
export async function getManifest(ref, opts = {}) {
  const client = new RegistryClient({ ...opts, registry: ref.registry, repository: ref.repository });
  const res = await client.send({
    method: 'GET',
    url: `/v2/${ref.repository}/manifests/${ref.tag}`,
    headers: {
      Accept:
        'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json',
    },
  });
  if (res.status !== 200) throw client.unexpected(res, `GET the manifest of ${ref.name}`);
  return {
    digest: sha256(res.body),
    reportedDigest: res.headers['docker-content-digest'],
    mediaType: res.headers['content-type'],
    manifest: JSON.parse(res.body.toString('utf8')),
  };
}
