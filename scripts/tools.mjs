#!/usr/bin/env node
// Tools the tests use in their own formats (Helm for the chart, promtool for the alert rules, Trivy
// for scan mode, the Distribution registry for pull secrets),
// built from the Go module proxy at pinned versions and cached in .cache/tools/<name>-<version>/,
// like the Kubernetes components of scripts/cluster.mjs. Also locates Go modules whose files the
// tests read (the Prometheus Operator's CRDs) in the module cache, downloading them on first use.
//
//   node scripts/tools.mjs build [helm|helm3|promtool|trivy|registry|crio ...]   # default: every tool
//   node scripts/tools.mjs path helm
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain } from './process.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const toolsDir = process.env.INV_TOOLS_DIR || path.join(repoRoot, '.cache', 'tools');

/**
 * The Helm releases the chart is tested with, one per major, and the one place that names them:
 * the tools below build them, and the docs' statement of supported versions is checked against
 * them. `helm` is Helm 4 (the chart's whole lifecycle on real nodes), `helm3` is Helm 3 (lint,
 * template and install on an API server).
 */
export const helmVersions = { helm: 'v4.3.2', helm3: 'v3.21.4' };

/**
 * Each tool: the Go package to `go install` (`bin`: the file it installs, when that is not the
 * tool's name), and how long its first build takes here (measured on 2 cores with an empty Go build
 * cache, the Go modules downloaded in the same run).
 */
export const tools = {
  // Helm 4, the current major: the chart's whole lifecycle on real nodes (test/nodes/install/helm.test.ts)
  // and its render tests (test/helm/). It derives the Kubernetes version that `helm template` and
  // `helm lint` assume from its client-go's version in the binary's build info (k8s.io/client-go
  // v0.37.2: 1.37), so only `helm version` is stamped, as its Makefile does.
  helm: {
    pkg: 'helm.sh/helm/v4/cmd/helm',
    version: helmVersions.helm,
    // 8.0 min measured here at -p 1 beside two Kubernetes builds (modules downloaded in the run).
    minutes: 5,
    ldflags: [`-X helm.sh/helm/v4/internal/version.version=${helmVersions.helm}`],
  },
  // Helm 3, still what many users run: lint, template and install (test/helm/helm3.test.ts). Its
  // Makefile stamps the Kubernetes version those assume, that of its client-go (v0.36.2: 1.36). Its
  // binary keeps the name helm, in a folder of its own, so that both majors sit side by side.
  helm3: {
    pkg: 'helm.sh/helm/v3/cmd/helm',
    bin: 'helm',
    version: helmVersions.helm3,
    // 4.3 min measured here after Helm 4, beside two Kubernetes builds.
    minutes: 4,
    ldflags: [
      `-X helm.sh/helm/v3/internal/version.version=${helmVersions.helm3}`,
      ...['pkg/chartutil', 'pkg/lint/rules'].flatMap((p) => [
        `-X helm.sh/helm/v3/${p}.k8sVersionMajor=1`,
        `-X helm.sh/helm/v3/${p}.k8sVersionMinor=36`,
      ]),
    ],
  },
  promtool: {
    pkg: 'github.com/prometheus/prometheus/cmd/promtool',
    version: 'v0.316.0',
    // 7.3 min measured cold here at -p 1; 9.4 min at -p 1 beside other builds.
    minutes: 8,
    ldflags: [],
  },
  // The default scanner of scan mode (docs/scan-mode.md, "The scanner contract"). Go 1.26 builds v0.74.0 only with the
  // jsonv2 experiment (its dependencies import encoding/json/jsontext). Its linker peaks near 3.3 GB.
  trivy: {
    pkg: 'github.com/aquasecurity/trivy/cmd/trivy',
    version: 'v0.74.0',
    minutes: 9,
    ldflags: ['-X github.com/aquasecurity/trivy/pkg/version/app.ver=0.74.0'],
    env: { GOEXPERIMENT: 'jsonv2' },
  },
  // A real registry that requires credentials (htpasswd), for the workers' pull secrets
  // (scripts/registry.mjs).
  registry: {
    pkg: 'github.com/distribution/distribution/v3/cmd/registry',
    version: 'v3.0.0',
    minutes: 2,
    ldflags: ['-X github.com/distribution/distribution/v3/version.version=v3.0.0'],
  },
  // CRI-O, the third runtime of the CRI and real-node tests (scripts/crio.mjs). The tags drop the C
  // libraries Debian does not have here (gpgme, btrfs, devmapper, libseccomp, ostree), so it builds
  // without cgo; its pinns helper (C, in the same module) is compiled by scripts/crio.mjs.
  crio: {
    pkg: 'github.com/cri-o/cri-o/cmd/crio',
    module: 'github.com/cri-o/cri-o',
    version: 'v1.34.0',
    // 4.4 min measured here with an empty Go build cache (modules already downloaded), at -p 1.
    minutes: 5,
    ldflags: [],
    tags: [
      'containers_image_openpgp',
      'containers_image_ostree_stub',
      'exclude_graphdriver_btrfs',
      'exclude_graphdriver_devicemapper',
      'btrfs_noversion',
    ],
  },
};

/** Go modules whose files the tests read (not built). */
export const modules = {
  // Its CRDs (example/prometheus-operator-crd/) are the monitoring.coreos.com/v1 API.
  'prometheus-operator': { module: 'github.com/prometheus-operator/prometheus-operator', version: 'v0.85.0' },
};

const log = (msg) => process.stderr.write(`tools: ${msg}\n`);

export function toolPath(name) {
  const t = tools[name];
  if (!t) throw new Error(`unknown tool ${name} (known: ${Object.keys(tools).join(', ')})`);
  // The build settings are part of the folder's name: changing them builds anew.
  const key = createHash('sha256')
    .update(
      JSON.stringify([t.pkg, t.version, t.ldflags, ...(t.env ? [t.env] : []), ...(t.tags ? [t.tags] : [])]),
    )
    .digest('hex')
    .slice(0, 8);
  return path.join(toolsDir, `${name}-${t.version}-${key}`, t.bin ?? name);
}

/**
 * Builds `name` unless it is cached; returns the binary's path. `jobs` is Go's -p: 1 when a test
 * or script builds a tool while other work runs beside it, 2 (both cores) from `tools.mjs build`,
 * which `npm test`'s pretest runs with nothing beside it (a cold machine's first run is mostly
 * these builds).
 */
export function build(name, { jobs = 1 } = {}) {
  const bin = toolPath(name);
  if (fs.existsSync(bin)) return bin;
  const t = tools[name];
  if (spawnSync('go', ['version']).status !== 0) throw new Error(`Go is required to build ${name}`);
  log(`building ${name} ${t.version} from Go modules (about ${t.minutes} min on 2 cores; cached after)...`);
  const started = Date.now();
  const dir = path.dirname(bin);
  // Into a temporary folder first: a concurrent user never runs a half-written binary.
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(toolsDir, { recursive: true });
  const flags = [
    '-p',
    process.env.CI ? '2' : String(jobs),
    '-trimpath',
    ...(t.tags ? [`-tags=${t.tags.join(',')}`] : []),
    `-ldflags=${['-s', '-w', ...t.ldflags].join(' ')}`,
  ];
  const env = { ...process.env, GOBIN: tmp, CGO_ENABLED: '0', ...t.env };
  let r;
  if (t.module) {
    // The proxy serves this module's exact version but not its version list, which `go install
    // pkg@version` reads (for deprecations): build inside the downloaded module instead, with its
    // own go.mod and go.sum (it has no replace directives, so the result is the same).
    const dir = downloadModule(t.module, t.version);
    fs.mkdirSync(tmp, { recursive: true });
    r = spawnSync(
      'go',
      ['build', ...flags, '-o', path.join(tmp, path.basename(bin)), `./${t.pkg.slice(t.module.length + 1)}`],
      {
        cwd: dir,
        env: { ...env, GOFLAGS: '-mod=mod' },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
  } else {
    r = spawnSync('go', ['install', ...flags, `${t.pkg}@${t.version}`], {
      cwd: toolsDir,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  if (r.status !== 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`go install ${t.pkg}@${t.version} failed (exit ${r.status})`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  log(`built ${name} in ${((Date.now() - started) / 1000).toFixed(0)}s`);
  return bin;
}

/** The folder of a Go module's files in the module cache (read-only), downloaded on first use. */
export function moduleDir(name) {
  const m = modules[name];
  if (!m) throw new Error(`unknown module ${name}`);
  return downloadModule(m.module, m.version);
}

function downloadModule(module, version) {
  const m = { module, version };
  const r = spawnSync('go', ['mod', 'download', '-json', `${m.module}@${m.version}`], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  let info;
  try {
    info = JSON.parse(r.stdout);
  } catch {
    throw new Error(`go mod download ${m.module}@${m.version} failed: ${r.stderr || r.stdout}`);
  }
  if (info.Error || !info.Dir) throw new Error(`go mod download ${m.module}@${m.version}: ${info.Error}`);
  return info.Dir;
}

function main() {
  const [cmd, ...names] = process.argv.slice(2);
  try {
    if (cmd === 'build') {
      for (const n of names.length ? names : Object.keys(tools)) build(n, { jobs: 2 });
    } else if (cmd === 'path' && names.length === 1) {
      process.stdout.write(`${toolPath(names[0])}\n`);
    } else if (cmd === 'module' && names.length === 1) {
      process.stdout.write(`${moduleDir(names[0])}\n`);
    } else {
      process.stderr.write('usage: tools.mjs build [name...] | path NAME | module NAME\n');
      process.exitCode = 2;
    }
  } catch (err) {
    log(err.message);
    process.exitCode = 1;
  }
}

if (isMain(import.meta.url)) main();
