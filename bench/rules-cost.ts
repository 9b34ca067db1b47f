// `npm run bench rules-cost`: what the rules cost a rebuild, at 150,000 Pods in 3,000 namespaces,
// side by side with the rules of other checkouts (INV_BENCH_BASELINE=<dir>[,<dir>...], each built:
// its dist/src/core/inventory/rules.js), alternating rounds in one process. The objects are a
// daemon's cache as the scale bench makes it: per namespace 8 Deployments (each with its current
// ReplicaSet and an older one, as metadata) whose 40 Pods run the template, 5 Pods of a
// StatefulSet, 5 naked Pods; `--rollouts` (default 10%) of the namespaces are mid-rollout (2 of
// their Deployment Pods on the older ReplicaSet, running the older image). Every namespace's
// desiredImages is what a no-op rebuild computes before it compares with the Images; the rules
// keep nothing between rebuilds, so the daemon's memory is unchanged by them. Prints figures;
// never fails on timing.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NamespaceObjects } from '../src/core/inventory/source-fields.js';

type Rules = { desiredImages(ns: string, objs: NamespaceObjects): { images: Map<string, unknown> } };

const log = (m: string) => process.stderr.write(`rules-cost bench: ${m}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function namespaces(count: number, rolloutShare: number): [string, NamespaceObjects][] {
  const out: [string, NamespaceObjects][] = [];
  for (let n = 0; n < count; n++) {
    const ns = `ns-${n}`;
    const meta = (name: string, owner?: { kind: string; name: string; uid: string; apiVersion: string }) => ({
      name,
      namespace: ns,
      uid: `${ns}-${name}`,
      ...(owner ? { ownerReferences: [{ ...owner, controller: true }] } : {}),
    });
    const spec = (image: string) => ({
      containers: [
        { name: 'c', image },
        { name: 'sidecar', image: 'envoy:1.30' },
      ],
    });
    const rolling = n < count * rolloutShare;
    const objs: NamespaceObjects = { deployments: [], replicaSets: [], statefulSets: [], pods: [] };
    for (let d = 0; d < 8; d++) {
      const name = `web-${d}`;
      const image = `registry.example.com/team-${n % 50}/web-${d}:v2`;
      objs.deployments!.push({ metadata: meta(name), spec: { template: { spec: spec(image) } } });
      const dep = { kind: 'Deployment', name, uid: `${ns}-${name}`, apiVersion: 'apps/v1' };
      for (const hash of ['cur', '0ld']) objs.replicaSets!.push({ metadata: meta(`${name}-${hash}`, dep) });
      for (let p = 0; p < 5; p++) {
        const old = rolling && d === 0 && p < 2;
        const rs = `${name}-${old ? '0ld' : 'cur'}`;
        objs.pods!.push({
          metadata: meta(`${rs}-${p}`, {
            kind: 'ReplicaSet',
            name: rs,
            uid: `${ns}-${rs}`,
            apiVersion: 'apps/v1',
          }),
          spec: spec(old ? image.replace(':v2', ':v1') : image),
        });
      }
    }
    objs.statefulSets!.push({ metadata: meta('db'), spec: { template: { spec: spec('postgres:16') } } });
    const sts = { kind: 'StatefulSet', name: 'db', uid: `${ns}-db`, apiVersion: 'apps/v1' };
    for (let p = 0; p < 5; p++)
      objs.pods!.push({ metadata: meta(`db-${p}`, sts), spec: spec('postgres:16') });
    for (let p = 0; p < 5; p++) objs.pods!.push({ metadata: meta(`naked-${p}`), spec: spec(`tool-${p}:1`) });
    out.push([ns, objs]);
  }
  return out;
}

export async function main(
  ctx: { flags?: Record<string, string> } = {},
): Promise<Record<string, number | string>> {
  const count = Number(ctx.flags?.namespaces ?? 3000);
  const share = Number(ctx.flags?.rollouts ?? 0.1);
  const forms: { name: string; rules: Rules }[] = [
    { name: 'this checkout', rules: (await import('../src/core/inventory/rules.js')) as Rules },
  ];
  for (const dir of (process.env.INV_BENCH_BASELINE ?? '').split(',').filter(Boolean))
    forms.push({
      name: `baseline ${path.basename(dir)}`,
      rules: (await import(
        path.join(path.resolve(dir), 'dist', 'src', 'core', 'inventory', 'rules.js')
      )) as Rules,
    });
  const all = namespaces(count, share);
  const pods = all.reduce((a, [, o]) => a + o.pods!.length, 0);
  log(`${count} namespaces, ${pods} Pods`);
  const times = new Map(forms.map((f) => [f.name, [] as number[]]));
  const refs = new Map<string, number>();
  for (let round = 0; round < 7; round++)
    for (const f of round % 2 ? [...forms].reverse() : forms) {
      const started = performance.now();
      let n = 0;
      for (const [ns, objs] of all) n += f.rules.desiredImages(ns, objs).images.size;
      times.get(f.name)!.push(performance.now() - started);
      refs.set(f.name, n);
    }
  const out: Record<string, number | string> = {
    pods,
    namespaces: count,
    'namespaces mid-rollout': Math.round(count * share),
    'heap used after the rounds (MB; the rules keep nothing)': Math.round(
      process.memoryUsage().heapUsed / 1048576,
    ),
  };
  const base = median(times.get(forms[0]!.name)!);
  for (const f of forms) {
    const ms = median(times.get(f.name)!);
    out[`${f.name}: every namespace's rules (ms, median of 7)`] = Math.round(ms);
    out[`${f.name}: image refs credited`] = refs.get(f.name)!;
    if (f !== forms[0]) out[`this checkout / ${f.name}`] = Number((base / ms).toFixed(3));
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]))
  console.log(JSON.stringify(await main(), null, 1));
