// plugins/inv.yaml against krew's own rules, as krew's validation code states them
// (internal/index/validation/validate.go, cmd/validate-krew-manifest, internal/installation):
// the checks are ours, the facts theirs. Then the install layout: krew's file operations applied
// to what `npm pack` puts in the release tarball give a kubectl-inv bin and a license file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../support/paths.js';

interface Selector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: { key: string; operator: string; values?: string[] }[] | null;
}
interface Platform {
  uri?: string;
  sha256?: string;
  selector?: Selector | null;
  files?: { from?: string; to?: string }[] | null;
  bin?: string;
}
interface Plugin {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string };
  spec?: { version?: string; shortDescription?: string; platforms?: Platform[] };
}

// krew's facts.
const API_VERSION = 'krew.googlecontainertools.github.com/v1alpha2';
const SAFE_NAME = /^[\w-]+$/;
const WINDOWS_FORBIDDEN = [
  'CON',
  'PRN',
  'AUX',
  'NUL',
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`COM${n}`, `LPT${n}`]),
];
const SHA256 = /^[a-f0-9]{64}$/;
/** k8s.io/apimachinery's ParseSemantic, behind krew's leading "v". */
const SEMVER =
  /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
const PLATFORMS: [string, string][] = [
  ['windows', '386'],
  ['windows', 'amd64'],
  ['windows', 'arm64'],
  ['linux', '386'],
  ['linux', 'amd64'],
  ['linux', 'arm'],
  ['linux', 'arm64'],
  ['linux', 'ppc64le'],
  ['darwin', '386'],
  ['darwin', 'amd64'],
  ['darwin', 'arm64'],
];
const LICENSE_FILES = [
  'license',
  'license.txt',
  'license.md',
  'licenses',
  'licenses.txt',
  'licenses.md',
  'copying',
  'copying.txt',
];

/** krew's ValidatePlugin: the first problem, or undefined. */
export function validatePlugin(name: string, p: Plugin): string | undefined {
  if (p.apiVersion !== API_VERSION) return `apiVersion=${p.apiVersion} is not ${API_VERSION}`;
  if (p.kind !== 'Plugin') return `kind=${p.kind}, only Plugin is supported`;
  if (!SAFE_NAME.test(name) || WINDOWS_FORBIDDEN.some((f) => f.toLowerCase() === name.toLowerCase()))
    return `the plugin name ${name} is not allowed`;
  if (p.metadata?.name !== name) return `plugin should be named ${name}, not ${p.metadata?.name}`;
  const s = p.spec ?? {};
  if (!s.shortDescription) return 'should have a short description';
  if (/[\r\n]/.test(s.shortDescription)) return 'should not have line breaks in short description';
  if (!s.platforms?.length) return 'should have a platform specified';
  if (!s.version) return 'should have a version specified';
  if (!SEMVER.test(s.version)) return `failed to parse plugin version ${s.version}`;
  for (const pl of s.platforms) {
    if (!pl.uri) return '`uri` has to be set';
    if (!pl.sha256) return '`sha256` sum has to be set';
    if (!SHA256.test(pl.sha256)) return `\`sha256\` value ${pl.sha256} is not valid`;
    if (!pl.bin) return '`bin` has to be set';
    if (pl.files !== undefined && pl.files !== null) {
      if (pl.files.length === 0) return '`files` has to be unspecified or non-empty';
      for (const op of pl.files) {
        if (!op.from) return '`from` field has to be set';
        if (!op.to) return '`to` field has to be set';
      }
    }
    const sel = pl.selector;
    if (!sel) return 'nil selector is not supported';
    if (!sel.matchLabels && !sel.matchExpressions?.length) return 'empty selector is not supported';
    const keys = [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((e) => e.key)];
    const bad = keys.find((k) => k !== 'os' && k !== 'arch');
    if (bad) return `key ${bad} not supported`;
    if (sel.matchLabels && Object.keys(sel.matchLabels).length === 0)
      return '`matchLabels` specified but empty';
    if (sel.matchExpressions && sel.matchExpressions.length === 0)
      return '`matchExpressions` specified but empty';
  }
  return undefined;
}

/** A label selector over {os, arch}, as metav1.LabelSelectorAsSelector matches it. */
function matches(sel: Selector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = e.key in labels;
    const inValues = has && (e.values ?? []).includes(labels[e.key]!);
    if (e.operator === 'In' && !inValues) return false;
    if (e.operator === 'NotIn' && inValues) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** krew's file operations (internal/installation/move.go) over a list of archive paths. */
function install(archive: string[], ops: { from: string; to: string }[]): string[] {
  const out: string[] = [];
  const clean = (p: string) => path.posix.normalize(p).replace(/\/$/, '');
  for (const op of ops ?? [{ from: '*', to: '.' }]) {
    assert.equal(op.to, clean(op.to), `the provided path is not clean: ${op.to}`);
    assert.ok(
      !op.to.startsWith('..') && !path.posix.isAbsolute(op.to),
      `move target ${op.to} leaves the install dir`,
    );
    const from = clean(op.from);
    const direct = archive.filter((f) => f === from || f.startsWith(`${from}/`));
    if (direct.length) {
      const to = op.to === '.' ? path.posix.basename(from) : op.to;
      for (const f of direct) out.push(clean(path.posix.join(to, f.slice(from.length))));
      continue;
    }
    // filepath.Glob: "*" never crosses a "/"; a match may be a directory.
    const depth = from.split('/').length;
    const re = new RegExp(
      `^${from
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}$`,
    );
    const moved = archive.filter((f) => re.test(f.split('/').slice(0, depth).join('/')));
    assert.ok(moved.length, `no files in the plugin archive matched the glob pattern=${op.from}`);
    for (const f of moved) {
      const parts = f.split('/');
      out.push(clean(path.posix.join(op.to, ...parts.slice(depth - 1))));
    }
  }
  return out;
}

describe('krew plugin manifest plugins/inv.yaml', function () {
  this.timeout(60_000);
  const file = path.join(repoRoot, 'plugins', 'inv.yaml');
  const plugin = parse(fs.readFileSync(file, 'utf8')) as Plugin;
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };

  it("passes krew's structural validation, named for its file", () => {
    assert.equal(path.extname(file), '.yaml');
    assert.equal(validatePlugin(path.basename(file, '.yaml'), plugin), undefined);
    assert.equal(plugin.spec!.version, `v${pkg.version}`, 'the version of package.json');
    for (const pl of plugin.spec!.platforms!) assert.match(pl.uri!, /^https:\/\//);
  });

  it('every platform selects a platform krew supports, none the same one twice, and never Windows', () => {
    const platforms = plugin.spec!.platforms!;
    platforms.forEach((pl, i) =>
      assert.ok(
        PLATFORMS.some(([os, arch]) => matches(pl.selector!, { os, arch })),
        `platforms[${i}] matches no supported platform`,
      ),
    );
    for (const [os, arch] of PLATFORMS) {
      const picked = platforms.filter((pl) => matches(pl.selector!, { os, arch }));
      assert.ok(picked.length <= 1, `${os}/${arch} is selected by ${picked.length} platforms`);
      // The bin is a Node.js script: krew on Windows links kubectl-inv.exe.
      if (os === 'windows') assert.equal(picked.length, 0, `${os}/${arch} cannot run bin/kubectl-inv`);
    }
    assert.ok(
      platforms.some((pl) => matches(pl.selector!, { os: 'linux', arch: 'amd64' })) &&
        platforms.some((pl) => matches(pl.selector!, { os: 'darwin', arch: 'arm64' })),
    );
    // Checks that fail on purpose: the validation above is not a rubber stamp.
    const bad = (change: (p: Plugin) => void) => {
      const p = structuredClone(plugin);
      change(p);
      return validatePlugin('inv', p);
    };
    assert.match(
      bad((p) => (p.spec!.version = '0.1.0'))!,
      /version/,
    );
    assert.match(
      bad((p) => (p.spec!.platforms![0]!.sha256 = 'ABC'))!,
      /sha256/,
    );
    assert.match(
      bad((p) => (p.spec!.platforms![0]!.selector = { matchLabels: { region: 'x' } }))!,
      /key region/,
    );
    assert.match(
      bad((p) => (p.spec!.shortDescription = 'a\nb'))!,
      /line breaks/,
    );
    assert.match(
      bad((p) => (p.spec!.platforms![0]!.files = []))!,
      /files/,
    );
    assert.match(
      bad((p) => (p.metadata!.name = 'kubectl-inv'))!,
      /should be named inv/,
    );
  });

  it("krew's file operations over the npm pack tarball give bin/kubectl-inv, the bundle and a license", () => {
    // What `npm pack` would put in the release tarball, under package/ (no build run here).
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 50_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const packed = (JSON.parse(r.stdout) as { files: { path: string; mode: number }[] }[])[0]!.files;
    const archive = packed.map((f) => `package/${f.path}`);
    for (const pl of plugin.spec!.platforms!) {
      const installed = install(archive, pl.files as { from: string; to: string }[]);
      const bin = path.posix.normalize(pl.bin!);
      assert.ok(!bin.startsWith('..'), `bin ${bin} is inside the install dir`);
      assert.ok(installed.includes(bin), `${bin} is installed (from ${installed.length} files)`);
      assert.equal(path.posix.basename(bin), 'kubectl-inv');
      // The bin is executable in the tarball, and bin/run.js finds the bundle next to it.
      const mode = packed.find((f) => `package/${f.path}`.endsWith(`/${bin}`))!.mode;
      assert.ok(mode & 0o111, `${bin} is executable (mode ${mode.toString(8)})`);
      assert.ok(installed.includes('dist/bundle/run.js') && installed.includes('package.json'));
      assert.ok(
        installed.some((f) => LICENSE_FILES.includes(path.posix.basename(f).toLowerCase())),
        'a LICENSE file is installed (krew checks the archive for one)',
      );
    }
  });
});
