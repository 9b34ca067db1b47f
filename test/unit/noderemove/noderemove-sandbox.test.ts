// node-remove and the sandbox (pause) image, pure: reading it from CRI answers, images backing
// sandboxes kept as in use, and failing closed when the sandbox image cannot be determined.
import assert from 'node:assert/strict';
import { CriError } from '../../../src/core/cri/errors.js';
import type { CriPodSandbox, CriPodSandboxStatus } from '../../../src/core/cri/messages.js';
import {
  assessSandbox,
  compileAll,
  decide,
  DEFAULT_SANDBOX_EXCLUSIONS,
  execute,
  exitCodeFor,
  isPauseLike,
  SandboxReader,
  sandboxImageFromPodSandboxInfo,
  terminationSummary,
  type SandboxFacts,
  type SandboxView,
} from '../../../src/core/noderemove/index.js';
import { hex, img } from '../../noderemove/fixtures.js';

// A k3s-like node: the sandbox image is a mirror, outside the built-in pause names.
const k3sPause = img('a', ['docker.io/rancher/mirrored-pause:3.6']);
const mirror = img('b', ['mirror.example/k8s-infra/sandbox:3.9']); // not pause-like by name
const oldPause = img('c', ['registry.example/eks/pause:3.1']);
const app = img('d', ['docker.io/library/app:1']);
const images = [k3sPause, mirror, oldPause, app];
const sandbox = (id: string, image: string): SandboxView => ({ id: hex(id), pod: `ns/pod-${id}`, image });

const failedStatus = { unknown: 'failed: Status on unix:///x failed: UNAVAILABLE: injected' };
const facts = (over: Partial<SandboxFacts> = {}): SandboxFacts => ({
  status: failedStatus,
  sandboxes: [],
  unreadable: [],
  ...over,
});

describe('node-remove: reading the sandbox image from CRI answers (pure)', () => {
  it("reads the image of a sandbox from containerd's verbose PodSandboxStatus info", () => {
    // Shape of containerd 1.6.20's answer (trimmed), as the real containerd test shows.
    const info = {
      info: JSON.stringify({
        pid: 42,
        processStatus: 'running',
        image: 'inv.test/pause:1',
        snapshotter: 'overlayfs',
        runtimeSpec: { annotations: { 'io.kubernetes.cri.container-type': 'sandbox' } },
      }),
    };
    assert.equal(sandboxImageFromPodSandboxInfo(info), 'inv.test/pause:1');
    const crio = {
      info: JSON.stringify({ runtimeSpec: { annotations: { 'io.kubernetes.cri-o.Image': 'x/pause:1' } } }),
    };
    assert.equal(sandboxImageFromPodSandboxInfo(crio), 'x/pause:1');
    assert.equal(sandboxImageFromPodSandboxInfo({}), undefined);
    assert.equal(sandboxImageFromPodSandboxInfo({ info: 'not json' }), undefined);
  });

  it('tells pause-like names: path ending in pause, containing /pause or mirrored-pause', () => {
    for (const n of [
      'registry.k8s.io/pause:3.9',
      'docker.io/rancher/mirrored-pause:3.6',
      'rancher/mirrored-pause-amd64:3.1',
      '602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5',
      'mcr.microsoft.com/oss/kubernetes/pause:3.6',
      'gcr.io/google_containers/pause-amd64:3.0',
      'inv.test/pause:1',
      'k8s-pause',
      'docker.io/library/pauser:1', // conservative: it only ever refuses
    ]) {
      assert.equal(isPauseLike(n), true, n);
    }
    for (const n of [
      'nginx:1',
      'mirror.example/k8s-infra/sandbox:3.9',
      'docker.io/library/applause:1',
      `sha256:${hex('a')}`,
    ]) {
      assert.equal(isPauseLike(n), false, n);
    }
  });
});

describe('node-remove: is the sandbox image known? (pure)', () => {
  const operator = (...p: string[]) => compileAll(p);

  it('is known from Status(verbose), from pins, or from an operator exclusion naming a sandbox-like image', () => {
    assert.deepEqual(
      assessSandbox({ facts: facts({ status: { image: 'x/pause:1' } }), images, operatorExclusions: [] }),
      {
        determined: true,
        via: 'status',
        detail: 'x/pause:1',
      },
    );
    const pinned = [{ ...k3sPause, pinned: true }, app];
    assert.equal(assessSandbox({ facts: facts(), images: pinned, operatorExclusions: [] }).determined, true);
    // An exclusion protecting a pause-like image, or an image backing a sandbox.
    const byPause = assessSandbox({
      facts: facts(),
      images,
      operatorExclusions: operator('rancher/mirrored-pause:*'),
    });
    assert.deepEqual(byPause, { determined: true, via: 'exclusion', detail: 'rancher/mirrored-pause:*' });
    const byBacking = assessSandbox({
      facts: facts({ sandboxes: [sandbox('1', 'mirror.example/k8s-infra/sandbox:3.9')] }),
      images,
      operatorExclusions: operator('mirror.example/k8s-infra/sandbox:3.9'),
    });
    assert.equal(byBacking.determined, true);
  });

  it('is unknown otherwise, with a reason that says how to name it and what sandboxes use', () => {
    // The built-in defaults and an exclusion of an ordinary image do not count.
    const g = assessSandbox({
      facts: facts({ sandboxes: [sandbox('1', 'mirror.example/k8s-infra/sandbox:3.9')] }),
      images,
      operatorExclusions: operator('docker.io/library/app:1'),
    });
    assert.equal(g.determined, false);
    if (g.determined) return;
    assert.match(g.reason, /sandbox \(pause\) image cannot be determined/);
    assert.match(g.reason, /CRI Status\(verbose\) failed: .*UNAVAILABLE: injected/);
    assert.match(g.reason, /--exclude <sandbox image>/);
    assert.match(g.reason, /Images backing pod sandboxes here: mirror\.example\/k8s-infra\/sandbox:3\.9/);
    const silent = assessSandbox({
      facts: facts({ status: { unknown: 'names no sandbox image' } }),
      images,
      operatorExclusions: [],
    });
    assert.ok(!silent.determined && /Status\(verbose\) names no sandbox image/.test(silent.reason));
    assert.ok(
      !silent.determined &&
        /Pause-like images here: docker\.io\/rancher\/mirrored-pause:3\.6/.test(silent.reason),
    );
  });
});

describe('node-remove decisions with sandboxes (pure)', () => {
  const exclusions = compileAll([...DEFAULT_SANDBOX_EXCLUSIONS]);
  const unknown = assessSandbox({
    facts: facts({ sandboxes: [sandbox('1', 'mirror.example/k8s-infra/sandbox:3.9')] }),
    images,
    operatorExclusions: [],
  });
  const run = (
    targets: string[],
    guard = unknown,
    sandboxes = [sandbox('1', 'mirror.example/k8s-infra/sandbox:3.9')],
  ) => decide({ images, containers: [], sandboxes, targets, exclusions, sandbox: guard });

  it('keeps an image backing a sandbox as in-use, whatever its name', () => {
    const [d] = run(['mirror.example/k8s-infra/sandbox:3.9'], { determined: true, via: 'status' });
    assert.equal(d!.outcome, 'in-use');
    assert.match(d!.detail, /backs pod sandbox 1111111111111 \(ns\/pod-1\)/);
    // Matched by normalized name: a short Docker Hub name in the sandbox info still counts.
    const [short] = run(['docker.io/rancher/mirrored-pause:3.6'], { determined: true, via: 'status' }, [
      sandbox('2', 'rancher/mirrored-pause:3.6'),
    ]);
    assert.equal(short!.outcome, 'in-use');
  });

  it('refuses a * prune when the sandbox image is unknown: one failed row, nothing to remove', () => {
    const out = run(['*']);
    assert.equal(out.length, 1);
    assert.equal(out[0]!.target, '*');
    assert.equal(out[0]!.outcome, 'failed');
    assert.equal(out[0]!.action, 'keep');
    assert.match(
      out[0]!.detail,
      /^refused: a \* prune removes nothing here: the runtime's sandbox \(pause\) image cannot be determined/,
    );
  });

  it('lets a targeted removal go on for targets that are not pause-like, and refuses pause-like ones', () => {
    const out = run([
      'app:1',
      'registry.example/eks/pause:3.1',
      oldPause.id,
      'mirror.example/k8s-infra/sandbox:3.9',
    ]);
    assert.deepEqual(
      out.map((d) => [d.target, d.outcome]),
      [
        ['app:1', 'remove'],
        ['registry.example/eks/pause:3.1', 'failed'],
        [oldPause.id, 'failed'], // by ID: the image's names look like pause
        ['mirror.example/k8s-infra/sandbox:3.9', 'in-use'],
      ],
    );
    assert.match(
      out[1]!.detail,
      /refused: this looks like a pause image, and the runtime's sandbox \(pause\) image cannot be determined/,
    );
  });

  it('prunes normally once the sandbox image is known, sandbox-backed images kept', () => {
    const out = run(['*'], { determined: true, via: 'exclusion', detail: 'x' }).map((d) => [
      d.imageId,
      d.outcome,
    ]);
    assert.deepEqual(out, [
      [k3sPause.id, 'remove'], // not the sandbox image here: the operator said which one is
      [mirror.id, 'in-use'],
      [oldPause.id, 'remove'],
      [app.id, 'remove'],
    ]);
  });

  it('turns a refusal into a failed result with its reason, exit 1, and a summary that carries it', async () => {
    const results = await execute(
      {
        listContainers: async () => [],
        listSandboxes: async () => [],
        removeImage: async () => assert.fail('nothing may be removed'),
      },
      run(['*']),
      { dryRun: false },
    );
    assert.equal(results[0]!.outcome, 'failed');
    assert.match(results[0]!.error, /cannot be determined/);
    const report = { node: 'n1', runtime: { name: 'containerd', version: '1.6', apiVersion: 'v1' }, results };
    assert.equal(exitCodeFor(report), 1);
    const s = JSON.parse(terminationSummary(report));
    assert.deepEqual(s.counts, { failed: 1 });
    assert.equal(s.results[0].t, '*');
    assert.match(s.results[0].e, /--exclude <sandbox image>/);
  });

  it('re-checks sandboxes too before each removal', async () => {
    const removed: string[] = [];
    const results = await execute(
      {
        listContainers: async () => [],
        listSandboxes: async () => [sandbox('9', 'docker.io/library/app:1')],
        removeImage: async (ref) => void removed.push(ref),
      },
      run(['app:1'], { determined: true, via: 'status' }, []),
      { dryRun: false },
    );
    assert.deepEqual(removed, []);
    assert.equal(results[0]!.outcome, 'in-use');
    assert.match(results[0]!.detail, /since the decision: backs pod sandbox/);
  });
});

describe('node-remove SandboxReader (fake CRI answers)', () => {
  const listed = (id: string): CriPodSandbox => ({
    id,
    metadata: { name: `pod-${id}`, namespace: 'ns', uid: 'u', attempt: 0 },
    state: 'SANDBOX_READY',
    createdAt: '0',
    labels: {},
    runtimeHandler: '',
  });
  const answer = (id: string, image?: string): CriPodSandboxStatus => ({
    id,
    metadata: null,
    state: 'SANDBOX_READY',
    info: image ? { info: JSON.stringify({ image }) } : {},
  });

  it('reads each sandbox once, skips vanished ones and reports unreadable ones', async () => {
    let sandboxes = ['s1', 's2', 's3', 's4'];
    const statusCalls: string[] = [];
    const reader = new SandboxReader({
      listPodSandboxes: async () => sandboxes.map(listed),
      podSandboxStatus: async (id) => {
        statusCalls.push(id);
        if (id === 's2') throw new CriError('call', 'unix:///x', 'gone', { code: 5 /* NOT_FOUND */ });
        if (id === 's3')
          throw new CriError('call', 'unix:///x', 'PodSandboxStatus failed: UNKNOWN: boom', { code: 2 });
        return answer(id, id === 's4' ? undefined : 'inv.test/pause:1');
      },
    });
    const first = await reader.read();
    assert.deepEqual(first.sandboxes, [{ id: 's1', pod: 'ns/pod-s1', image: 'inv.test/pause:1' }]);
    assert.deepEqual(first.unreadable.map((u) => [u.id, u.reason]).sort(), [
      ['s3', 'PodSandboxStatus failed: UNKNOWN: boom'],
      ['s4', 'its verbose PodSandboxStatus names no image'],
    ]);
    sandboxes = ['s1', 's5'];
    statusCalls.length = 0;
    const second = await reader.read();
    assert.deepEqual(statusCalls, ['s5'], 'known sandboxes are not asked again');
    assert.deepEqual(
      second.sandboxes.map((s) => s.id),
      ['s1', 's5'],
    );
  });
});
