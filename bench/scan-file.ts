// Benchmark for `inv scan -f` on realistic dumps: a 50 MB single-line `kubectl get pods -A -o
// json` List and the same Pods as 50 MB of multi-document YAML. Runs the real CLI as a child
// process and reports its wall time and peak RSS (read by a preload at exit), next to the time
// and RSS of a bare `JSON.parse` of the same file. Prints figures; never fails on timing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump } from 'js-yaml';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TARGET_BYTES = 50 * 1000 * 1000;

/** A Pod as `kubectl get -o json` prints it: managedFields, env, volumes, status and all. */
function pod(i: number): unknown {
  const image = `registry.example.com/team${i % 20}/app${i % 400}:v${i % 3}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `app-${i}-7d9f8b6c5d-x${i}`,
      namespace: `ns${i % 50}`,
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-11-30T00:00:00Z',
      labels: { app: `app-${i}`, 'pod-template-hash': '7d9f8b6c5d' },
      annotations: { 'prometheus.io/scrape': 'true' },
      // Half are owned by a ReplicaSet (credited to its Deployment, not in the dump), half naked.
      ...(i % 2
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'ReplicaSet',
                name: `app-${i}`,
                uid: `rs-${i}`,
                controller: true,
              },
            ],
          }
        : {}),
      managedFields: Array.from({ length: 3 }, () => ({
        manager: 'kube-controller-manager',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-11-30T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': { 'f:containers': {} },
        },
      })),
    },
    spec: {
      containers: [
        {
          name: 'c',
          image,
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: Array.from({ length: 8 }, (_, k) => ({ name: `VAR_${k}`, value: `value-${k}-${i}` })),
          resources: { requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
      initContainers: [{ name: 'init', image: `busybox:1.${i % 30}` }],
      nodeName: `node-${i % 100}`,
      volumes: [{ name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }],
    },
    status: {
      phase: 'Running',
      podIP: `10.0.${i % 250}.${i % 200}`,
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastTransitionTime: '2026-11-30T00:00:00Z',
      })),
      containerStatuses: [
        {
          name: 'c',
          ready: true,
          restartCount: 0,
          image,
          imageID: `registry.example.com/team@sha256:${'a'.repeat(64)}`,
          containerID: `containerd://${'b'.repeat(64)}`,
          state: { running: { startedAt: '2026-11-30T00:00:00Z' } },
        },
      ],
    },
  };
}

function pods(): unknown[] {
  const out: unknown[] = [];
  for (let i = 0, size = 0; size < TARGET_BYTES; i++) {
    const p = pod(i);
    size += JSON.stringify(p).length + 1;
    out.push(p);
  }
  return out;
}

interface Run {
  ms: number;
  rssMB: number;
  status: number;
}

/** Runs node with `args`, with a preload that reports the process's peak RSS at exit. */
function measure(preload: string, args: string[]): Run {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', preload, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const m = /INV_BENCH_MAXRSS (\d+)/.exec(r.stderr);
  if (!m) throw new Error(`no RSS reported (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
  return { ms: Math.round(ms), rssMB: Math.round(Number(m[1]) / 1024), status: r.status ?? -1 };
}

export async function main(): Promise<Record<string, string | number>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-bench-scanf-'));
  try {
    const preload = path.join(dir, 'maxrss.mjs');
    fs.writeFileSync(
      preload,
      // VmHWM: the process's own peak. resourceUsage().maxRSS would also count the forked copy of
      // this benchmark process (which holds the whole dump) from before exec.
      "import { readFileSync } from 'node:fs';\nprocess.on('exit', () => process.stderr.write(`INV_BENCH_MAXRSS ${/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]}\\n`));\n",
    );
    const items = pods();
    const json = path.join(dir, 'pods.json');
    fs.writeFileSync(json, JSON.stringify({ apiVersion: 'v1', kind: 'List', items, metadata: {} }));
    const yaml = path.join(dir, 'pods.yaml');
    const fd = fs.openSync(yaml, 'w');
    for (const p of items) fs.writeSync(fd, `---\n${dump(p)}`);
    fs.closeSync(fd);
    const mb = (p: string) => Math.round(fs.statSync(p).size / 1e5) / 10;
    const bin = path.join(repoRoot, 'bin', 'run.js');
    const bare = measure(preload, [
      '-e',
      `JSON.parse(require('fs').readFileSync(${JSON.stringify(json)}, 'utf8'))`,
    ]);
    const j = measure(preload, [bin, 'scan', '-f', json, '-o', 'json']);
    const y = measure(preload, [bin, 'scan', '-f', yaml, '-o', 'json']);
    if (j.status !== 0 || y.status !== 0) throw new Error(`inv scan -f failed: ${j.status}, ${y.status}`);
    return {
      Pods: items.length,
      'JSON List size (MB)': mb(json),
      'YAML size (MB)': mb(yaml),
      'bare JSON.parse: time (ms)': bare.ms,
      'bare JSON.parse: peak RSS (MB)': bare.rssMB,
      'inv scan -f JSON: time (ms) [target < 5000]': j.ms,
      'inv scan -f JSON: peak RSS (MB) [target < 500]': j.rssMB,
      'inv scan -f YAML: time (ms)': y.ms,
      'inv scan -f YAML: peak RSS (MB)': y.rssMB,
      'JSON time vs bare JSON.parse': `${(j.ms / bare.ms).toFixed(2)}x`,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
