// What `inv node-scan` does once its flags are read: the default scanner of scan mode, the
// scanner container of a worker Pod (docs/scan-mode.md, "The scanner contract"). It reads Eraser's --config file,
// takes the candidates from the shared folder, runs Trivy on each through the node's containerd
// (on CRI-O, from the node's image store, served to Trivy on loopback) and answers with the
// vulnerable ones. Logs are JSON lines on stderr, as Eraser's scanners write.
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
  const { startStoreRegistry } = await import('../../core/scanner/store-registry.js');

  let config;
  let finishWaitMs;
  let runtime: 'containerd' | 'crio';
  try {
    const st = fs.statSync(flags.config);
    if (st.size > MAX_CONFIG_BYTES)
      throw new Error(`${flags.config} is larger than ${MAX_CONFIG_BYTES} bytes`);
    config = parseScannerConfigFile(fs.readFileSync(flags.config, 'utf8'));
    finishWaitMs = parseDurationMs(flags['finish-timeout'], '--finish-timeout');
    runtime = await chooseRuntime(flags['cri-socket'], flags['crio-store']);
  } catch (e) {
    log('error', 'unusable configuration', { error: (e as Error).message });
    return EXIT_USAGE;
  }
  const onTerm = () => {
    killAllTrivy();
    process.exit(143);
  };
  process.once('SIGTERM', onTerm);
  const registry = runtime === 'crio' ? await startStoreRegistry() : undefined;
  log('info', 'config', {
    runtime,
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
      ...(registry
        ? { store: { root: flags['crio-store'], registry, maxImageBytes: config.maxImageBytes } }
        : {}),
    });
    log('info', 'remover job completed, shutting down', { ...summary });
    return EXIT_OK;
  } catch (e) {
    log('error', 'scan did not complete', { error: (e as Error).message });
    return EXIT_PARTIAL_FAILURE;
  } finally {
    process.off('SIGTERM', onTerm);
    await registry?.close();
  }
}

/**
 * The runtime whose images are scanned: the one the CRI socket answers as (CRI Version), else
 * Eraser's ERASER_RUNTIME_NAME. containerd: Trivy reads images over its API. CRI-O: from its
 * store, which must then be mounted (scanners.<name>.runtimeName: crio mounts it). Any other is
 * refused at once, naming it, rather than failed image by image.
 */
async function chooseRuntime(socket: string, crioStore: string): Promise<'containerd' | 'crio'> {
  const { connectCri } = await import('../../core/cri/index.js');
  const { storeDriver } = await import('../../core/scanner/crio-store.js');
  const named = process.env.ERASER_RUNTIME_NAME ?? '';
  let answered = '';
  let version = '';
  try {
    const cri = await connectCri({ endpoint: socket, timeoutMs: 5_000 });
    ({ runtimeName: answered, runtimeVersion: version } = cri.runtime);
    cri.close();
  } catch {
    // A socket that does not answer is left to Trivy's own error (containerd), as before.
  }
  const runtime = answered ? (answered === 'cri-o' ? 'crio' : answered) : named || 'containerd';
  if (runtime === 'containerd') return 'containerd';
  if (runtime !== 'crio')
    throw new Error(
      answered
        ? `the runtime at ${socket} is ${answered} ${version}: inv's Trivy scanner reads containerd (through its API) and CRI-O (from its image store) only; nothing is scanned`
        : `ERASER_RUNTIME_NAME=${named}: inv's Trivy scanner scans containerd and CRI-O only`,
    );
  try {
    storeDriver(crioStore);
  } catch (e) {
    throw new Error(
      `the node runs CRI-O, whose images are read from its store, but ${(e as Error).message}: set the scanner's runtimeName: crio (and storageHostPath, CRI-O's storage root) in inv-erase-config scanners`,
    );
  }
  return 'crio';
}
