// What `inv node-scan` does once its flags are read: the default scanner of scan mode, the
// scanner container of a worker Pod (docs/scan-mode.md, "The scanner contract"). It reads Eraser's --config file,
// takes the candidates from the shared folder, runs Trivy on each through the node's containerd
// and answers with the vulnerable ones. Logs are JSON lines on stderr, as Eraser's scanners write.
import fs from 'node:fs';
import { EXIT_OK, EXIT_PARTIAL_FAILURE, EXIT_USAGE } from '../process/exit-codes.js';
import type { FlagValues } from '../flag-values.js';
import type { nodeScanFlags } from './node-scan-flags.js';

/** The flags of `inv node-scan`, as oclif parses them (./node-scan-flags.ts). */
export type NodeScanFlags = FlagValues<typeof nodeScanFlags>;

const MAX_CONFIG_BYTES = 1024 * 1024;

function log(level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(
    `${JSON.stringify({ level, ts: new Date().toISOString(), logger: 'scanner', provider: 'trivy', msg, ...fields })}\n`,
  );
}

/** Returns the exit code: 0 answered and completed, 1 the contract broke midway, 2 bad setup. */
export async function runNodeScan(flags: NodeScanFlags): Promise<number> {
  const { parseScannerConfigFile } = await import('../../core/scanner/trivy-config.js');
  const { parseDurationMs } = await import('../../core/duration.js');
  const { trivyEnv } = await import('../../core/scanner/trivy-args.js');
  const { runNodeScanPipeline } = await import('../../core/scanner/scan-node.js');
  const { trivyRunner, killAllTrivy } = await import('../../core/scanner/run-trivy.js');

  let config;
  let finishWaitMs;
  try {
    const st = fs.statSync(flags.config);
    if (st.size > MAX_CONFIG_BYTES)
      throw new Error(`${flags.config} is larger than ${MAX_CONFIG_BYTES} bytes`);
    config = parseScannerConfigFile(fs.readFileSync(flags.config, 'utf8'));
    finishWaitMs = parseDurationMs(flags['finish-timeout'], '--finish-timeout');
    // Eraser names the runtime in ERASER_RUNTIME_NAME; Trivy's containerd source is the only
    // one this scanner drives (CRI-O and Docker would need their own sockets).
    const runtime = process.env.ERASER_RUNTIME_NAME ?? '';
    if (runtime !== '' && runtime !== 'containerd') {
      throw new Error(
        `ERASER_RUNTIME_NAME=${runtime}: inv's Trivy scanner scans containerd's image store only`,
      );
    }
    await refuseOtherRuntime(flags['cri-socket']);
  } catch (e) {
    log('error', 'unusable configuration', { error: (e as Error).message });
    return EXIT_USAGE;
  }
  const onTerm = () => {
    killAllTrivy();
    process.exit(143);
  };
  process.once('SIGTERM', onTerm);
  log('info', 'config', {
    server: config.server ?? null,
    cacheDir: config.cacheDir,
    skipDBUpdate: config.skipDBUpdate,
    severities: config.severities,
  });
  try {
    const summary = await runNodeScanPipeline({
      sharedDir: flags['shared-dir'],
      config,
      env: trivyEnv(process.env, flags['cri-socket']),
      runTrivy: trivyRunner(flags.trivy),
      log: (msg, fields) => log('info', msg, fields),
      finishWaitMs,
    });
    log('info', 'remover job completed, shutting down', { ...summary });
    return EXIT_OK;
  } catch (e) {
    log('error', 'scan did not complete', { error: (e as Error).message });
    return EXIT_PARTIAL_FAILURE;
  } finally {
    process.off('SIGTERM', onTerm);
  }
}

/**
 * Trivy reads images through containerd's API (--image-src containerd): on another runtime
 * (CRI-O) every scan would fail, image by image. When the socket answers CRI Version as
 * another runtime, refuse at once and say so; the remover then removes nothing by scan (it never
 * gets an answer). A socket that does not answer is left to Trivy's own error, as before.
 */
async function refuseOtherRuntime(socket: string): Promise<void> {
  const { connectCri } = await import('../../core/cri/index.js');
  let name: string;
  let version: string;
  try {
    const cri = await connectCri({ endpoint: socket, timeoutMs: 5_000 });
    ({ runtimeName: name, runtimeVersion: version } = cri.runtime);
    cri.close();
  } catch {
    return;
  }
  if (name !== 'containerd')
    throw new Error(
      `the runtime at ${socket} is ${name} ${version}: inv's Trivy scanner reads images through containerd's API only (--image-src containerd), nothing is scanned; run scan mode on containerd nodes (the node filter leaves the others out) and erase named images or * there`,
    );
}
