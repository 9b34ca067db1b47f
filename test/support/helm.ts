// Helm as the chart's users run it: the binaries scripts/tools.mjs builds from the Go module proxy
// (cached in .cache/tools/), run on charts/inv of this checkout. `helm` is Helm 4, `helm3` Helm 3
// (their versions: helmVersions in scripts/tools.mjs).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { repoRoot } from './paths.js';

interface ToolsScript {
  build(name: string): string;
  moduleDir(name: string): string;
  helmVersions: { helm: string; helm3: string };
}

export const chartDir = path.join(repoRoot, 'charts', 'inv');
export const tools = (): Promise<ToolsScript> =>
  import(path.join(repoRoot, 'scripts', 'tools.mjs')) as Promise<ToolsScript>;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a tool built by scripts/tools.mjs (built first when not cached). */
export async function runTool(
  name: string,
  args: string[],
  opts: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Run> {
  const bin = (await tools()).build(name);
  return new Promise((resolve) => {
    const child = execFile(
      bin,
      args,
      {
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 32 * 2 ** 20,
        // Helm keeps its caches and repositories config out of the developer's home.
        env: {
          ...process.env,
          HELM_CACHE_HOME: path.join(repoRoot, '.cache', 'tools', 'helm-home', 'cache'),
          HELM_CONFIG_HOME: path.join(repoRoot, '.cache', 'tools', 'helm-home', 'config'),
          HELM_DATA_HOME: path.join(repoRoot, '.cache', 'tools', 'helm-home', 'data'),
          ...opts.env,
        },
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

export const helm = (args: string[], opts: Parameters<typeof runTool>[2] = {}): Promise<Run> =>
  runTool('helm', args, opts);

export const helm3 = (args: string[], opts: Parameters<typeof runTool>[2] = {}): Promise<Run> =>
  runTool('helm3', args, opts);

/**
 * What Helm printed as a warning, on stderr where both majors print them: its own (Helm 4 logs
 * `level=WARN`, Helm 3 `WARNING:`, cobra `Flag --x has been deprecated`) and the API server's,
 * which client-go logs through klog from warnings.go (`I1205 10:23:41.129157 17921
 * warnings.go:107] "Warning: unknown field \"bogus\""`, as both majors print them): a deprecated
 * API, an unknown or duplicate field, a Pod Security violation. A chart that draws one is wrong for
 * that server, so the tests fail on any.
 */
export function warnings(r: Run): string[] {
  return r.stderr
    .split('\n')
    .filter((l) => /level=WARN|^WARNING|^[IW]\d{4} |warnings\.go|"Warning: |\bdeprecated\b/i.test(l));
}

/** The objects of a YAML stream (empty documents dropped). */
export function parseObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => Boolean(o));
}

/**
 * The one value the chart requires, the image (no registry publishes one: users push theirs with
 * `npm run image`). The repository deploy/ names, so that the chart renders what deploy/ and
 * `inv install --image ghcr.io/imageinventory/inv:0.1.0` do.
 */
export const IMAGE_VALUES = ['--set', 'image.repository=ghcr.io/imageinventory/inv'];

/** `helm template` of the chart: its objects, or a failed assertion with Helm's message or warning. */
export async function template(args: string[] = []): Promise<KubeObject[]> {
  const r = await helm(['template', 'inv', chartDir, ...args]);
  if (r.code !== 0) throw new Error(`helm template ${args.join(' ')} failed: ${r.stderr}`);
  if (warnings(r).length) throw new Error(`helm template ${args.join(' ')} warned: ${r.stderr}`);
  return parseObjects(r.stdout);
}
