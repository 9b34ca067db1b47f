// `npm run node:up` and `npm run node:down`, run exactly as documented, on a one-node cluster
// of their own (INV_NODES_DIR), next to the run's shared whole cluster: the JSON last line, a
// CRI endpoint the host reaches, reuse, recovery after a crash, and a host left as it was.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectCri } from '../../../src/core/cri/index.js';
import { repoRoot } from '../../support/paths.js';
import { ctrFor, pullSecret, registryScript } from '../../support/servers/registry.js';

function npmRun(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync('npm', ['run', '-s', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
  return { status: r.status, lines: r.stdout.trim().split('\n'), stderr: r.stderr };
}

const SYSCTLS = ['vm/overcommit_memory', 'kernel/panic', 'kernel/panic_on_oops'];

/** What a cluster in `dir` (with cluster id `id`) may leave on the host. */
function hostState(dir: string, id: string) {
  const links = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout;
  const ourLinks = links
    .split('\n')
    .filter((l) => l.includes(`inv${id}br`))
    .map((l) => l.split(':')[1]!.trim());
  const cgroups: string[] = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!post || !/^cgroup2? /.test(post)) continue;
    const mnt = pre!.split(' ')[4]!;
    for (const d of fs.readdirSync(mnt)) if (d.startsWith(`inv${id}-node-`)) cgroups.push(`${mnt}/${d}`);
  }
  const mounts = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => l.includes(dir));
  const procs: string[] = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (cmd.includes(dir)) procs.push(`${p}: ${cmd.replace(/\0/g, ' ').slice(0, 120)}`);
    } catch {
      // gone
    }
  }
  const sysctls = SYSCTLS.map((k) => fs.readFileSync(`/proc/sys/${k}`, 'utf8').trim());
  const hostDirs = ['/var/lib/kubelet', '/var/lib/cni', '/run/netns'].map((d) => `${d}:${fs.existsSync(d)}`);
  return { links: ourLinks, cgroups, mounts, procs, sysctls, hostDirs, dir: fs.existsSync(dir) };
}

/** The same-release kubectl against the cluster of `kubeconfig`, synchronously. */
async function kubectlFor(kubeconfig: string) {
  const { binaries } = (await import(path.join(repoRoot, 'scripts', 'cluster.mjs'))) as {
    binaries: Record<string, string>;
  };
  return (args: string[], input?: string) =>
    spawnSync(binaries.kubectl!, ['--kubeconfig', kubeconfig, ...args], {
      encoding: 'utf8',
      input,
      timeout: 90_000,
    });
}

/** Runs a Pod of the sandbox image (imported on every node) and waits until it is Ready. */
function runReadyPod(kubectl: Awaited<ReturnType<typeof kubectlFor>>, name: string): void {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: 'inv.test/pause:1', imagePullPolicy: 'Never' }],
    },
  };
  let r = kubectl(['apply', '-f', '-'], JSON.stringify(pod));
  assert.equal(r.status, 0, r.stderr);
  r = kubectl(['wait', '--for=condition=Ready', `pod/${name}`, '--timeout=60s']);
  assert.equal(r.status, 0, r.stderr);
}

/**
 * Pushes `image` from the node's containerd to a registry that requires credentials, under a new
 * tag; a Pod without a pull secret fails to pull it (ErrImagePull), one with the Secret runs it.
 */
async function pullsOnlyWithSecret(
  kubectl: Awaited<ReturnType<typeof kubectlFor>>,
  criDir: string,
  image: string,
): Promise<void> {
  const registry = await registryScript();
  const started = Date.now();
  const reg = await registry.start({ timeoutMs: 30_000 });
  try {
    const ref = `${reg.host}/inv/inv-worker:pull-${randomBytes(3).toString('hex')}`;
    const ctr = await ctrFor(criDir);
    registry.push({
      ctr,
      address: path.join(criDir, 'containerd.sock'),
      local: image,
      remote: ref,
      user: reg.user,
      password: reg.password,
    });
    const pod = (name: string, secret: boolean) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        ...(secret ? { imagePullSecrets: [{ name: 'regcred' }] } : {}),
        containers: [{ name: 'c', image: ref, args: ['--version'] }],
      },
    });
    // Without credentials first: once a node has the image, IfNotPresent would not pull again.
    let r = kubectl(['apply', '-f', '-'], JSON.stringify(pod('nosecret', false)));
    assert.equal(r.status, 0, r.stderr);
    const jsonpath = 'jsonpath={.status.containerStatuses[0].state.waiting.reason}';
    const deadline = Date.now() + 60_000;
    while (
      !/ErrImagePull|ImagePullBackOff/.test(kubectl(['get', 'pod', 'nosecret', '-o', jsonpath]).stdout)
    ) {
      assert.ok(Date.now() < deadline, 'the Pod without a pull secret never failed to pull');
      await new Promise((res) => setTimeout(res, 200));
    }
    r = kubectl(['delete', 'pod', 'nosecret', '--wait=true', '--timeout=60s']);
    assert.equal(r.status, 0, r.stderr);
    r = kubectl(
      ['apply', '-f', '-'],
      JSON.stringify(pullSecret('regcred', reg.host, reg.user, reg.password)),
    );
    assert.equal(r.status, 0, r.stderr);
    r = kubectl(['apply', '-f', '-'], JSON.stringify(pod('withsecret', true)));
    assert.equal(r.status, 0, r.stderr);
    r = kubectl(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/withsecret', '--timeout=60s']);
    assert.equal(r.status, 0, `${r.stderr} ${kubectl(['describe', 'pod', 'withsecret']).stdout}`);
    process.stderr.write(
      `      (containerd 2.x: refused without a pull secret, pulled with one; ${Date.now() - started} ms with the registry)\n`,
    );
  } finally {
    await reg.stop();
  }
}

describe('npm run node:up / node:down', function () {
  this.timeout(600_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-nodes-'));
  const dir = path.join(tmp, 'nodes');
  const env = { INV_NODES_DIR: dir };
  after(() => {
    spawnSync('npm', ['run', '-s', 'node:down'], { cwd: repoRoot, env: { ...process.env, ...env } });
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('prints one JSON object last, reuses a running cluster, recovers from a crash, and leaves nothing behind', async () => {
    const before = hostState(dir, 'none');
    const up = npmRun(['node:up', '--', '--nodes', '1'], env);
    assert.equal(up.status, 0, up.stderr);
    const out = JSON.parse(up.lines.at(-1)!) as {
      kubeconfig: string;
      nodes: { name: string; criEndpoint: string }[];
      runtimeSocket: string;
      workerImage: string;
    };
    assert.deepEqual(Object.keys(out).sort(), ['kubeconfig', 'nodes', 'runtimeSocket', 'workerImage']);
    assert.equal(out.nodes.length, 1);
    assert.ok(fs.existsSync(out.kubeconfig));
    assert.match(out.workerImage, /^inv\.local\/inv-worker:[0-9a-f]{12}$/);
    const id = fs.readFileSync(path.join(dir, 'id'), 'utf8').trim();

    // The host reaches the node's containerd at its real path; the worker image is there.
    const cri = await connectCri({ endpoint: out.nodes[0]!.criEndpoint, timeoutMs: 5000 });
    try {
      const images = await cri.listImages();
      assert.ok(
        images.some((i) => i.repoTags.includes(out.workerImage)),
        'worker image imported',
      );
    } finally {
      cri.close();
    }
    // Inside the node, the common runtimeSocket path is that containerd's socket; on the host it
    // is only an empty mount target.
    const ctrdPid = fs.readFileSync(path.join(dir, 'node-1', 'cri', 'pid'), 'utf8').trim();
    const inNode = spawnSync('nsenter', ['-t', ctrdPid, '-m', '--', 'test', '-S', out.runtimeSocket]);
    assert.equal(inNode.status, 0, 'the runtime socket exists inside the node');
    assert.ok(!fs.existsSync(out.runtimeSocket), 'and not on the host');
    // A Pod on the Pod network: its sandbox gets a veth on the node's bridge and an IP.
    const kubectl = await kubectlFor(out.kubeconfig);
    runReadyPod(kubectl, 'net');
    // The nodes run containerd 2.x unless told otherwise.
    const runtime = kubectl([
      'get',
      'node',
      'inv-node-1',
      '-o',
      'jsonpath={.status.nodeInfo.containerRuntimeVersion}',
    ]);
    assert.match(runtime.stdout, /^containerd:\/\/2\./, runtime.stderr);
    // containerd 2.x's CRI pulls from a registry on 127.0.0.1 over plain HTTP with no registry
    // configuration, and only with the Pod's pull secret (what every erase worker gets from
    // worker.imagePullSecrets; pull-secret.test.ts runs the erase itself).
    await pullsOnlyWithSecret(kubectl, path.join(dir, 'node-1', 'cri'), out.workerImage);
    const r = kubectl(['get', 'pod', 'net', '-o', 'jsonpath={.status.podIP} {.spec.nodeName}']);
    assert.match(r.stdout, new RegExp(`^10\\.${87 + Number(id)}\\.1\\.\\d+ inv-node-1$`), r.stdout);
    const during = hostState(dir, id);
    assert.ok(during.links.includes(`inv${id}br1`), `the node's bridge: ${during.links.join()}`);
    assert.ok(
      during.links.some((l) => l.startsWith('veth')),
      `a veth on it: ${during.links.join()}`,
    );
    assert.ok(during.cgroups.length > 0, 'the node has its cgroups');

    // Idempotent: a second up reuses the healthy cluster and prints the same line.
    const again = npmRun(['node:up', '--', '--nodes', '1'], env);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.lines.at(-1), up.lines.at(-1));
    assert.match(again.stderr, /reusing the running cluster/);

    // A crash: every process of the cluster killed at once. up cleans up and starts afresh.
    for (const f of [
      'node-1/kubelet.pid',
      'node-1/cri/pid',
      'kube-controller-manager.pid',
      'kube-scheduler.pid',
      'control-plane/pid',
    ]) {
      try {
        process.kill(Number(fs.readFileSync(path.join(dir, f), 'utf8')), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    const recovered = npmRun(['node:up', '--', '--nodes', '1'], env);
    assert.equal(recovered.status, 0, recovered.stderr);
    assert.doesNotMatch(recovered.stderr, /reusing/);
    const out2 = JSON.parse(recovered.lines.at(-1)!) as { nodes: unknown[] };
    assert.equal(out2.nodes.length, 1);

    // down leaves the host as it found it, and may run again.
    const down = npmRun(['node:down'], env);
    assert.equal(down.status, 0, down.stderr);
    const after = hostState(dir, id);
    assert.deepEqual(after.links, [], 'no bridge or veth left');
    assert.deepEqual(after.cgroups, [], 'no cgroup left');
    assert.deepEqual(after.mounts, [], 'no mount left');
    assert.deepEqual(after.procs, [], 'no process left');
    assert.deepEqual(after.sysctls, before.sysctls, 'sysctls restored');
    assert.deepEqual(after.hostDirs, before.hostDirs, 'host folders as before');
    assert.equal(after.dir, false);
    assert.equal(npmRun(['node:down'], env).status, 0, 'down again is a no-op');
  });

  it("runs its nodes on Debian's containerd 1.6 with --runtime containerd", async () => {
    const up = npmRun(['node:up', '--', '--nodes', '1', '--runtime', 'containerd'], env);
    assert.equal(up.status, 0, up.stderr);
    const out = JSON.parse(up.lines.at(-1)!) as { kubeconfig: string; workerImage: string };
    const kubectl = await kubectlFor(out.kubeconfig);
    const r = kubectl([
      'get',
      'node',
      'inv-node-1',
      '-o',
      'jsonpath={.status.nodeInfo.containerRuntimeVersion}',
    ]);
    assert.match(r.stdout, /^containerd:\/\/1\.6\./, r.stderr);
    runReadyPod(kubectl, 'on16');
    const id = fs.readFileSync(path.join(dir, 'id'), 'utf8').trim();
    assert.equal(npmRun(['node:down'], env).status, 0);
    const after = hostState(dir, id);
    assert.deepEqual([after.links, after.cgroups, after.mounts, after.procs], [[], [], [], []]);
  });

  // A cold machine builds for minutes before any kubelet starts (Kubernetes alone took 354 s on
  // 2 cores); the readiness timeout is each node's own, from its kubelet's start. Played here
  // with a clock that jumps ten minutes during the build step, far past the timeout.
  it('a build slower than the readiness timeout does not fail the start', async () => {
    const nodesScript = (await import(path.join(repoRoot, 'scripts', 'nodes.mjs'))) as {
      up(
        dir: string,
        opts: { nodes: number; timeoutMs: number; build?: () => Promise<unknown>; now?: () => number },
      ): Promise<{ nodeReadyMs: number[] }>;
      down(dir: string): Promise<void>;
    };
    const slowDir = path.join(tmp, 'slow-build');
    let jumped = 0;
    const now = () => Date.now() + jumped;
    const cluster = (await import(path.join(repoRoot, 'scripts', 'cluster.mjs'))) as {
      build(): void;
      buildCni(): void;
    };
    const worker = (await import(path.join(repoRoot, 'scripts', 'worker-image.mjs'))) as {
      buildWorkerImage(): Promise<unknown>;
    };
    const timeoutMs = 120_000;
    try {
      const r = await nodesScript.up(slowDir, {
        nodes: 1,
        timeoutMs,
        now,
        build: async () => {
          cluster.build();
          cluster.buildCni();
          const w = await worker.buildWorkerImage();
          jumped += 5 * timeoutMs; // the build "took" ten minutes
          return w;
        },
      });
      assert.equal(r.nodeReadyMs.length, 1);
      assert.ok(r.nodeReadyMs[0]! < timeoutMs, `${r.nodeReadyMs[0]} ms from kubelet start to Ready`);
    } finally {
      await nodesScript.down(slowDir);
    }
  });

  it('rejects a bad --nodes value, naming it', () => {
    const r = npmRun(['node:up', '--', '--nodes', 'two'], env);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /--nodes two: must be a whole number from 1 to 50/);
  });
});
