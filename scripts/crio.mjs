// A PRIVATE CRI-O (the third runtime of the CRI tests, beside containerd 1.6 and 2.x): built from
// Go modules by tools.mjs, its pinns helper compiled from the same module, and everything it
// writes (storage root, run root, sockets, logs, conmon's files) under one directory, with its
// own configuration so it never reads /etc/crio or /etc/containers. scripts/cri.mjs starts it for
// `--runtime crio`.
//
// Images: CRI-O can only pull. Test images (scripts/oci-archive.mjs) are served by a loopback
// registry in this process (scripts/oci-serve.mjs) at a port fixed per instance, and CRI-O's
// registries.conf maps each test registry name (inv.test, docker.io, ...) to it, so an image keeps
// its own name and nothing is fetched from the internet.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { alive, freePort, sleep, stopPid } from './process.mjs';
import { build, toolPath, tools } from './tools.mjs';
import { registryOf, serve, serveArchive } from './oci-serve.mjs';

const require = createRequire(import.meta.url);
const log = (msg) => process.stderr.write(`crio: ${msg}\n`);

export const socketPath = (dir) => path.join(path.resolve(dir), 'crio.sock');

/** Registry names the test images use; pulls of any of them go to the loopback registry. */
const REGISTRIES = [
  'inv.test',
  'inv.local',
  'docker.io',
  'registry.k8s.io',
  'ghcr.io',
  'quay.io',
  'example.com',
  'registry.example',
  'ci.example.com',
];

/** Builds (or finds cached) crio and pinns; returns their paths. */
export function buildCrio() {
  const crio = build('crio');
  // pinns is C in the same module (pinns/src); Go does not build it. Cached beside crio.
  const pinns = path.join(path.dirname(crio), 'pinns');
  if (!fs.existsSync(pinns)) {
    const r = spawnSync('go', ['mod', 'download', '-json', `${tools.crio.module}@${tools.crio.version}`], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const src = path.join(JSON.parse(r.stdout).Dir, 'pinns', 'src');
    const files = fs
      .readdirSync(src)
      .filter((f) => f.endsWith('.c'))
      .map((f) => path.join(src, f));
    const tmp = `${pinns}.${process.pid}.tmp`;
    // The flags of its Makefile (static, so it runs in any mount namespace).
    const cc = spawnSync('cc', ['-std=c99', '-O3', '-Wall', '-static', '-o', tmp, ...files], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (cc.status !== 0) throw new Error(`compiling pinns failed (exit ${cc.status}); needs a C compiler`);
    fs.renameSync(tmp, pinns);
  }
  return { crio, pinns };
}

export const crioBuilt = () => fs.existsSync(toolPath('crio'));

/** crio.conf for the instance in `d`. */
export function config(d, { driver, pinns, sandboxImage, pinned, cgroupManager = 'cgroupfs' }) {
  const q = (s) => JSON.stringify(s);
  return `[crio]
root = ${q(`${d}/storage`)}
runroot = ${q(`${d}/run`)}
storage_driver = ${q(driver)}
log_dir = ${q(`${d}/pods`)}
version_file = ${q(`${d}/run/version`)}
version_file_persist = ${q(`${d}/version`)}
clean_shutdown_file = ${q(`${d}/clean.shutdown`)}

[crio.api]
listen = ${q(socketPath(d))}
stream_address = "127.0.0.1"
stream_port = "0"

[crio.runtime]
default_runtime = "runc"
cgroup_manager = ${q(cgroupManager)}
conmon_cgroup = "pod"
container_exits_dir = ${q(`${d}/run/exits`)}
container_attach_socket_dir = ${q(`${d}/run/attach`)}
namespaces_dir = ${q(`${d}/run/ns`)}
pinns_path = ${q(pinns)}
hooks_dir = []
default_mounts_file = ""
seccomp_profile = ""
log_level = "info"

[crio.runtime.runtimes.runc]
runtime_path = ${q(spawnSync('sh', ['-c', 'command -v runc'], { encoding: 'utf8' }).stdout.trim() || 'runc')}
runtime_type = "oci"
runtime_root = ${q(`${d}/run/runc`)}
monitor_path = ${q(spawnSync('sh', ['-c', 'command -v conmon'], { encoding: 'utf8' }).stdout.trim() || 'conmon')}
monitor_cgroup = "pod"

[crio.image]
pause_image = ${q(sandboxImage)}
pause_command = ""  # the image's own command (busybox sleep; there is no /pause)
pinned_images = ${q(pinned)}
auto_reload_registries = true
big_files_temporary_dir = ${q(`${d}/tmp`)}

[crio.network]
network_dir = ${q(`${d}/cni/net.d`)}
plugin_dirs = [${q(`${d}/cni/bin`)}]

[crio.metrics]
enable_metrics = false

[crio.nri]
enable_nri = false
`;
}

/** registries.conf: every test registry name mapped to the loopback registry on `port`. */
function registriesConf(port) {
  return [
    'unqualified-search-registries = []',
    'short-name-mode = "disabled"',
    ...REGISTRIES.map(
      (r) => `\n[[registry]]\nprefix = "${r}"\nlocation = "127.0.0.1:${port}"\ninsecure = true`,
    ),
    '',
  ].join('\n');
}

/** A CRI ImageService client for PullImage only (inv's own client never pulls). */
async function pullClient(address) {
  const grpc = require('@grpc/grpc-js');
  const protobuf = require('protobufjs');
  const loader = require('@grpc/proto-loader');
  const root = protobuf.parse(`syntax = "proto3"; package runtime.v1;
    service ImageService { rpc PullImage(PullImageRequest) returns (PullImageResponse) {} }
    message ImageSpec { string image = 1; }
    message PullImageRequest { ImageSpec image = 1; }
    message PullImageResponse { string image_ref = 1; }`).root;
  const def = loader.fromJSON(root.toJSON());
  const Svc = grpc.loadPackageDefinition(def).runtime.v1.ImageService;
  return new Svc(`unix://${address}`, grpc.credentials.createInsecure());
}

/**
 * Makes `images` (buildArchive's input) present in the CRI-O in `dir`: serves them on the
 * instance's loopback registry port and pulls every tagged ref through CRI.
 * Returns [{ refs, id, manifestDigest }] as buildArchive does.
 */
export async function importImages(dir, images, timeoutMs = 120_000) {
  dir = path.resolve(dir);
  const refs = images.flatMap((img) => img.refs);
  checkMapped(refs);
  const srv = await serve(images, registryPort(dir));
  try {
    await pullAll(dir, refs, timeoutMs);
  } finally {
    await srv.close();
  }
  return srv.images;
}

/** The same for an OCI archive file (the worker image): every tagged name in its index. */
export async function importArchiveFile(dir, file, timeoutMs = 120_000) {
  dir = path.resolve(dir);
  const srv = await serveArchive(fs.readFileSync(file), registryPort(dir));
  try {
    checkMapped(srv.refs);
    await pullAll(dir, srv.refs, timeoutMs);
  } finally {
    await srv.close();
  }
  return srv.refs;
}

const registryPort = (dir) => Number(fs.readFileSync(path.join(dir, 'registry-port'), 'utf8'));

function checkMapped(refs) {
  for (const ref of refs) {
    if (!REGISTRIES.includes(registryOf(ref)))
      throw new Error(
        `${ref}: registry ${registryOf(ref)} is not mapped for CRI-O (scripts/crio.mjs REGISTRIES)`,
      );
  }
}

async function pullAll(dir, refs, timeoutMs) {
  const client = await pullClient(socketPath(dir));
  try {
    for (const ref of refs) {
      await new Promise((resolve, reject) =>
        client.PullImage({ image: { image: ref } }, { deadline: Date.now() + timeoutMs }, (err) =>
          err ? reject(new Error(`CRI-O PullImage ${ref}: ${err.message}`)) : resolve(),
        ),
      );
    }
  } finally {
    client.close();
  }
}

/**
 * Starts CRI-O in `dir` (a fresh folder); resolves { pid, driver }. `wrap` as in cri.mjs.
 * `pinned`: pinned_images besides the sandbox image.
 */
export async function start(dir, { sandboxImage, pinned = [], timeoutMs = 60_000, wrap = (c, a) => [c, a] }) {
  const d = path.resolve(dir);
  const { crio, pinns } = buildCrio();
  for (const sub of ['cni/net.d', 'cni/bin', 'tmp', 'pods', 'crio.conf.d', 'registries.conf.d'])
    fs.mkdirSync(path.join(d, sub), { recursive: true });
  const port = await freePort();
  fs.writeFileSync(path.join(d, 'registry-port'), String(port));
  fs.writeFileSync(path.join(d, 'registries.conf'), registriesConf(port));
  // The signature policy (accept anything: the images come from our own loopback registry) sits
  // where containers/image looks for a user's policy, under HOME=d: set as signature_policy,
  // CRI-O would require every CreateContainer to carry user_specified_image, which inv's CRI
  // protos (older than that field) and older kubelets do not send.
  fs.mkdirSync(path.join(d, '.config', 'containers'), { recursive: true });
  fs.writeFileSync(
    path.join(d, '.config', 'containers', 'policy.json'),
    JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }),
  );
  const attempt = async (driver) => {
    fs.writeFileSync(
      path.join(d, 'crio.conf'),
      config(d, { driver, pinns, sandboxImage, pinned: [sandboxImage, ...pinned] }),
    );
    const out = fs.openSync(path.join(d, 'crio.log'), 'a');
    const [cmd, args] = wrap(crio, [
      '--config',
      path.join(d, 'crio.conf'),
      '--config-dir',
      path.join(d, 'crio.conf.d'),
      '--registries-conf',
      path.join(d, 'registries.conf'),
      '--registries-conf-dir',
      path.join(d, 'registries.conf.d'),
    ]);
    // CONTAINERS_* point containers/image and containers/storage at nothing of the host's.
    // _CRIO_ROOTLESS: CRI-O then leaves oom_score_adj unset (as containerd's restrict_oom_score_adj
    // does): in this kind of sandbox runc may not lower it to the -998 CRI-O gives pause
    // ("failed to update /proc/self/oom_score_adj"). It also drops cgroup limits the host has
    // not delegated; the tests set none.
    const env = {
      ...process.env,
      _CRIO_ROOTLESS: '1',
      HOME: d,
      CONTAINERS_STORAGE_CONF: path.join(d, 'storage.conf'),
      CONTAINERS_REGISTRIES_CONF: path.join(d, 'registries.conf'),
    };
    fs.writeFileSync(
      path.join(d, 'storage.conf'),
      `[storage]\ndriver = "${driver}"\nrunroot = "${d}/run"\ngraphroot = "${d}/storage"\n`,
    );
    const child = spawn(cmd, args, { env, detached: true, stdio: ['ignore', out, out] });
    child.unref();
    fs.closeSync(out);
    fs.writeFileSync(path.join(d, 'pid'), String(child.pid));
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (!alive(child.pid)) return { pid: 0 };
      if (fs.existsSync(socketPath(d)) && (await connects(socketPath(d)))) return { pid: child.pid, driver };
      await sleep(100);
    }
    await stopPid(child.pid);
    throw new Error(`crio not answering after ${timeoutMs} ms; see ${path.join(d, 'crio.log')}`);
  };
  // overlay is what real nodes use; vfs (copying) where the kernel or filesystem cannot.
  let r = await attempt(process.env.INV_CRI_SNAPSHOTTER === 'native' ? 'vfs' : 'overlay');
  if (!r.pid && r.driver !== 'vfs') {
    log('overlay storage driver unavailable here; falling back to vfs');
    r = await attempt('vfs');
  }
  if (!r.pid) throw new Error(`crio exited during start-up; see ${path.join(d, 'crio.log')}`);
  return r;
}

function connects(address) {
  return new Promise((resolve) => {
    const s = net.connect(address);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** PIDs of conmon processes of the CRI-O in `dir` (they outlive crio). */
export function conmonPids(dir) {
  const d = path.resolve(dir);
  const pids = [];
  for (const ent of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(ent)) continue;
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${ent}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (
      argv.startsWith(fs.existsSync('/usr/bin/conmon') ? '/usr/bin/conmon' : 'conmon') &&
      argv.includes(`${d}/`)
    )
      pids.push(Number(ent));
  }
  return pids;
}

/** Stops the CRI-O in `dir` and the containers it started (runc, against its runtime_root). */
export async function stop(dir) {
  const d = path.resolve(dir);
  const pidFile = path.join(d, 'pid');
  const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : 0;
  if (pid) await stopPid(pid);
  const root = path.join(d, 'run', 'runc');
  if (fs.existsSync(root)) {
    const ids = (spawnSync('runc', ['--root', root, 'list', '-q'], { encoding: 'utf8' }).stdout || '').split(
      '\n',
    );
    for (const id of ids.filter(Boolean)) {
      spawnSync('runc', ['--root', root, 'kill', id, 'KILL']);
      spawnSync('runc', ['--root', root, 'delete', '--force', id]);
    }
  }
  for (const p of conmonPids(d)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
