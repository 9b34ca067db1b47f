// Helm as the chart's users run it: the binary scripts/tools.mjs builds from the Go module proxy
// (cached in .cache/tools/), run on charts/inv of this checkout.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/core/kube/apply.js';
import { repoRoot } from './paths.js';

interface ToolsScript {
  build(name: string): string;
  moduleDir(name: string): string;
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

/** The objects of a YAML stream (empty documents dropped). */
export function parseObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => Boolean(o));
}

/** `helm template` of the chart: its objects, or a failed assertion with Helm's message. */
export async function template(args: string[] = []): Promise<KubeObject[]> {
  const r = await helm(['template', 'inv', chartDir, ...args]);
  if (r.code !== 0) throw new Error(`helm template ${args.join(' ')} failed: ${r.stderr}`);
  return parseObjects(r.stdout);
}
