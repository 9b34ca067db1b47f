// Access to the run's private containerd (started by global-setup through scripts/cri.mjs):
// its endpoint, a connected CRI client, and helpers that run real pods for in-use images.
import fs from 'node:fs';
import path from 'node:path';
import { connectCri, type CriClient, type CriImage } from '../../src/core/cri/index.js';
import * as pods from '../../src/core/cri/pods.js';

/**
 * The runtimes the node-side suites run on, each a private containerd started by the global
 * setup: Debian's containerd 1.6 and containerd 2.x built from Go modules.
 */
export const RUNTIMES = ['containerd', 'containerd2'] as const;
export type Runtime = (typeof RUNTIMES)[number];
let current: Runtime = 'containerd';

/** Points criEndpoint()/criDir()/connect() at `runtime` (suites call it in their first hook). */
export function useRuntime(runtime: Runtime): void {
  current = runtime;
}
export const currentRuntime = (): Runtime => current;

const envFor = (what: 'ENDPOINT' | 'DIR') =>
  current === 'containerd2' ? `INV_TEST_CRI2_${what}` : `INV_TEST_CRI_${what}`;

export function criEndpoint(): string {
  const e = process.env[envFor('ENDPOINT')];
  if (!e)
    throw new Error(`${envFor('ENDPOINT')} is not set: run the tests through mocha without INV_TEST_NO_CRI`);
  return e;
}

export function criDir(): string {
  const d = process.env[envFor('DIR')];
  if (!d) throw new Error(`${envFor('DIR')} is not set: run the tests through mocha without INV_TEST_NO_CRI`);
  return d;
}

/** The socket path (what ctr --address takes). */
export const criAddress = (): string => criEndpoint().replace(/^unix:\/\//, '');

/** The snapshotter the private containerd's CRI plugin uses (overlayfs, or native as fallback). */
export function criSnapshotter(): string {
  try {
    return fs.readFileSync(path.join(criDir(), 'snapshotter'), 'utf8').trim();
  } catch {
    return 'overlayfs';
  }
}

/** True when a private containerd is available; test files `this.skip()` otherwise. */
/**
 * False only when a developer opted out of containerd for a quick run (INV_TEST_NO_CRI=1 or
 * INV_TEST_NO_SERVICES=1); then CRI tests are skipped. Without an opt-out a missing containerd
 * is an error, never a silent skip.
 */
export function criAvailable(): boolean {
  if (process.env.INV_TEST_CRI_ENDPOINT) return true;
  if (process.env.INV_TEST_NO_CRI === '1' || process.env.INV_TEST_NO_SERVICES === '1') return false;
  throw new Error(
    'the test containerd is not running (INV_TEST_CRI_ENDPOINT unset): run the tests with npm test',
  );
}

export function connect(timeoutMs = 10_000): Promise<CriClient> {
  return connectCri({ endpoint: criEndpoint(), timeoutMs });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a truthy value (CRI learns about ctr imports through events). */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Waits until CRI ListImages shows every ID. */
export async function waitForImages(cri: CriClient, ids: string[]): Promise<CriImage[]> {
  return waitFor(`images ${ids.join(', ')} in CRI ListImages`, async () => {
    const images = await cri.listImages();
    const found = ids.map((id) => images.find((i) => i.id === id));
    return found.every(Boolean) ? (found as CriImage[]) : undefined;
  });
}

export interface RunningPod {
  sandboxId: string;
  containerId: string;
  /** Stops and removes the container and the sandbox (idempotent). */
  cleanup(): Promise<void>;
}

let podCounter = 0;

/**
 * Runs `image` as a real container (default `sleep 3600`) in a new host-network sandbox.
 * With `exit: true` the container runs `true` and the helper waits until it has EXITED.
 */
export async function runPod(
  cri: CriClient,
  image: string,
  opts: {
    exit?: boolean;
    name?: string;
    /** The container's command and args (default `sleep 3600`, or `true` with exit). */
    command?: string[];
    args?: string[];
    mounts?: pods.ContainerSpec['mounts'];
    envs?: Record<string, string>;
    runAsUser?: number;
    /** Return once the container has started, without waiting for a state. */
    noWait?: boolean;
    /** The runtime writes the container's log to <logDirectory>/main.log. */
    logDirectory?: string;
  } = {},
): Promise<RunningPod> {
  const name = opts.name ?? `inv-test-${process.pid}-${++podCounter}`;
  const sandbox = {
    name,
    uid: `${name}-uid`,
    namespace: 'inv-test',
    ...(opts.logDirectory ? { logDirectory: opts.logDirectory } : {}),
  };
  const sandboxId = await pods.runPodSandbox(cri, sandbox);
  let containerId = '';
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    if (containerId) {
      await pods.stopContainer(cri, containerId).catch(() => undefined);
      await pods.removeContainer(cri, containerId).catch(() => undefined);
    }
    await pods.stopPodSandbox(cri, sandboxId).catch(() => undefined);
    await pods.removePodSandbox(cri, sandboxId).catch(() => undefined);
  };
  try {
    containerId = await pods.createContainer(cri, {
      sandboxId,
      sandbox,
      name: 'main',
      image,
      command: opts.command ?? (opts.exit ? ['/bin/true'] : ['/bin/sleep', '3600']),
      ...(opts.args ? { args: opts.args } : {}),
      ...(opts.mounts ? { mounts: opts.mounts } : {}),
      ...(opts.envs ? { envs: opts.envs } : {}),
      ...(opts.runAsUser !== undefined ? { runAsUser: opts.runAsUser } : {}),
    });
    await pods.startContainer(cri, containerId);
    if (opts.noWait) return { sandboxId, containerId, cleanup };
    const want = opts.exit ? 'CONTAINER_EXITED' : 'CONTAINER_RUNNING';
    await waitFor(
      `container ${containerId} ${want}`,
      async () => (await pods.containerStatus(cri, containerId)).state === want,
    );
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { sandboxId, containerId, cleanup };
}
