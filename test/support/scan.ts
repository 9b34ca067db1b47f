// Scan mode's test pieces: the Go-built tools (Trivy, the test DB, Eraser's scanner, the scanner
// images: scripts/tools.mjs, trivy.mjs, scanner-image.mjs), Debian-like test images whose
// /var/lib/dpkg/status Trivy reads, and the collector/remover side of Eraser's scanner contract
// played by the test (what `inv node-remove` does in scan mode).
import fs from 'node:fs';
import path from 'node:path';
import type { ImageInput } from './oci.js';
import { repoRoot } from './paths.js';

interface ToolsScript {
  build(name: string): string;
}
interface TrivyScript {
  testDb(): string;
  eraserScanner(): string;
}
interface ScannerImageScript {
  buildInvScannerImage(): Promise<ScannerImage>;
  buildEraserScannerImage(): ScannerImage;
}
export interface ScannerImage {
  ref: string;
  id: string;
  file: string;
  bytes: number;
}

const script = <T>(name: string) => import(path.join(repoRoot, 'scripts', name)) as Promise<T>;

/** The Trivy binary (v0.74.0, built from Go modules and cached). */
export const trivyBinary = async (): Promise<string> =>
  (await script<ToolsScript>('tools.mjs')).build('trivy');

/**
 * A fresh Trivy cache folder holding the test DB (a copy: Trivy writes its layer cache there,
 * and the DB built once stays clean).
 */
export async function testDbCache(into: string): Promise<string> {
  const src = (await script<TrivyScript>('trivy.mjs')).testDb();
  fs.cpSync(path.join(src, 'db'), path.join(into, 'db'), { recursive: true });
  return into;
}

export const invScannerImage = async (): Promise<ScannerImage> =>
  (await script<ScannerImageScript>('scanner-image.mjs')).buildInvScannerImage();
export const eraserScannerImage = async (): Promise<ScannerImage> =>
  (await script<ScannerImageScript>('scanner-image.mjs')).buildEraserScannerImage();

/**
 * The fixtures' packages, from Debian 12: bash 5.2.15-2+b2 has two test advisories (CRITICAL and
 * HIGH, fixed later), and zlib1g, which only the vulnerable image has, an unfixed MEDIUM one.
 */
export const VULNERABLE_BASH = '5.2.15-2+b2';
export const CLEAN_BASH = '5.2.21-2';
export const TEST_CVES = ['CVE-2099-0001', 'CVE-2099-0002', 'CVE-2099-0003'];

/** A Debian 12 image (busybox plus the files Trivy reads) listing bash at `bashVersion`. */
export function debianImage(refs: string[], bashVersion: string, distinct = bashVersion): ImageInput {
  return {
    refs,
    distinct: `debian-bash-${distinct}`,
    digestRefs: true,
    files: [
      {
        path: 'etc/os-release',
        data: 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nID=debian\n',
      },
      { path: 'etc/debian_version', data: '12.8\n' },
      {
        path: 'var/lib/dpkg/status',
        data:
          `Package: bash\nStatus: install ok installed\nPriority: required\nSection: shells\nArchitecture: amd64\nVersion: ${bashVersion}\nDescription: GNU Bourne Again SHell\n\n` +
          // The vulnerable image also has zlib1g, with the fixtures' unfixed advisory.
          (bashVersion === VULNERABLE_BASH
            ? 'Package: zlib1g\nStatus: install ok installed\nPriority: optional\nSection: libs\nArchitecture: amd64\nSource: zlib\nVersion: 1:1.2.13.dfsg-1\nDescription: compression library - runtime\n\n'
            : ''),
      },
    ],
  };
}

/** One image as the contract carries it. */
export interface ContractImage {
  image_id: string;
  names?: string[];
  digests?: string[];
}
export interface AnsweredImage extends ContractImage {
  inv?: { status: string; cveCount?: number; highestSeverity?: string; cves?: string[] };
}

/** The collector's part: the candidates, as inv writes them (a regular file renamed into place). */
export function writeCandidates(shared: string, images: ContractImage[]): void {
  const tmp = path.join(shared, '.collectScan.tmp');
  fs.writeFileSync(tmp, JSON.stringify(images));
  fs.renameSync(tmp, path.join(shared, 'collectScan'));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The remover's part: waits for scanErase (a FIFO, as Eraser's template makes it, or a regular
 * file renamed into place, as inv's adapter does) and reads it to EOF.
 */
export async function readAnswer(shared: string, timeoutMs: number): Promise<AnsweredImage[]> {
  const file = path.join(shared, 'scanErase');
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`no scanErase in ${shared} after ${timeoutMs} ms`);
    await sleep(100);
  }
  const text = await fs.promises.readFile(file, 'utf8');
  return JSON.parse(text) as AnsweredImage[];
}

/**
 * The remover's `complete`: into the scanner's FIFO when it made one (Eraser's template does),
 * otherwise as a regular file renamed into place (what inv does for a scanner without mkfifo).
 */
export async function sendComplete(shared: string): Promise<void> {
  const file = path.join(shared, 'eraseCompleteScan');
  if (fs.existsSync(file) && fs.statSync(file).isFIFO()) {
    await fs.promises.writeFile(file, 'complete');
    return;
  }
  const tmp = path.join(shared, '.eraseCompleteScan.tmp');
  fs.writeFileSync(tmp, 'complete');
  fs.renameSync(tmp, file);
}

/** An EraserConfig whose components.scanner.config is `settings` (the YAML string Eraser reads). */
export function eraserConfigYaml(settings: Record<string, unknown>): string {
  const inner = JSON.stringify(settings);
  return [
    'apiVersion: eraser.sh/v1alpha3',
    'kind: EraserConfig',
    'manager:',
    '  runtime: {name: containerd, address: unix:///run/cri/cri.sock}',
    'components:',
    '  scanner:',
    '    enabled: true',
    `    config: ${JSON.stringify(inner)}`,
    '',
  ].join('\n');
}

/**
 * Runs `inv node-scan` on this host against the run's containerd (`socket`), with `settings` as
 * its scanner configuration; the test plays the collector/remover: it writes `candidates`, reads
 * the answer, sends `complete`, and expects exit 0.
 */
export async function runNodeScan(opts: {
  dir: string;
  trivy: string;
  socket: string;
  settings: Record<string, unknown>;
  candidates: ContractImage[];
  env?: Record<string, string>;
  /** More flags of inv node-scan (--crio-store DIR, say). */
  args?: string[];
}): Promise<{ answer: AnsweredImage[]; stderr: string; ms: number; shared: string }> {
  const { spawn } = await import('node:child_process');
  const shared = fs.mkdtempSync(path.join(opts.dir, 'shared-'));
  const config = path.join(fs.mkdtempSync(path.join(opts.dir, 'config-')), 'config.yaml');
  fs.writeFileSync(config, eraserConfigYaml(opts.settings));
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      path.join(repoRoot, 'bin', 'run.js'),
      'node-scan',
      `--config=${config}`,
      '--shared-dir',
      shared,
      '--cri-socket',
      opts.socket,
      '--trivy',
      opts.trivy,
      ...(opts.args ?? []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...opts.env } },
  );
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  try {
    writeCandidates(shared, opts.candidates);
    let answer: AnsweredImage[];
    try {
      answer = await readAnswer(shared, 240_000);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${stderr.slice(-3000)}`);
    }
    await sendComplete(shared);
    const code = await exited;
    if (code !== 0) throw new Error(`inv node-scan exited ${code}\n${stderr.slice(-3000)}`);
    return { answer, stderr, ms: Date.now() - started, shared };
  } finally {
    child.kill('SIGKILL');
  }
}
