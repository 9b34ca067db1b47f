#!/usr/bin/env node
// The production build: bundles the compiled program (dist/src, the output of tsc) into
// dist/bundle/ with esbuild, so what ships (the npm package, the image of scripts/inv-image.mjs)
// runs without node_modules:
//
//   dist/bundle/package.json         the package.json oclif reads (no plugins: our hooks are entries
//                                    of the bundle; commands: ./commands)
//   dist/bundle/oclif.manifest.json  the manifest of `npm run build`, pointing at the bundle's files
//   dist/bundle/run.js               what bin/run.js imports when there is no dist/src
//   dist/bundle/direct.js            the worker's start without oclif (src/bundle/direct.ts)
//   dist/bundle/commands/<id>.js     one entry point per command (oclif's pattern discovery),
//   dist/bundle/hooks/<event>.js      and the hooks of package.json (command_not_found)
//   dist/bundle/chunks/*.js          code shared by entries (ESM code splitting), so each command
//                                    loads only the modules it reaches, and one oclif instance
//
// Tree-shaken and minified; no source maps (stack traces name chunk files). Run after tsc and
// scripts/oclif-manifest.mjs (`npm run build` does all three).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMain } from './process.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Packages replaced by smaller stand-ins (scripts/bundle-stubs/: why, in each file).
const stubs = {
  name: 'inv-stubs',
  setup(build) {
    const files = {
      'whatwg-url': 'whatwg-url.mjs',
      '@inquirer/prompts': 'inquirer-prompts.mjs',
      '@grpc/proto-loader': 'proto-loader.mjs',
      '@oclif/core': 'oclif-core.cjs',
    };
    const filter = new RegExp(
      `^(${Object.keys(files)
        .map((k) => k.replace(/[/@.-]/g, '\\$&'))
        .join('|')})$`,
    );
    build.onResolve({ filter }, (args) => ({
      path: path.join(repoRoot, 'scripts', 'bundle-stubs', files[args.path]),
    }));
    // yaml's ES module build (its "default" export condition; the "node" one is CommonJS): a
    // CommonJS module that a command imports dynamically becomes a chunk exporting only
    // `default`, so `const { stringify } = await import('yaml')` would find nothing.
    build.onResolve({ filter: /^yaml$/ }, () => ({
      path: path.join(repoRoot, 'node_modules', 'yaml', 'browser', 'index.js'),
    }));
  },
};

/**
 * The licence texts of the packages whose code is in the bundle (esbuild drops their comments):
 * each distinct LICENSE text once, after the packages (name, version, licence) it belongs to.
 */
function notices(root, metafile) {
  const pkgs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) pkgs.add(m[1]);
  }
  const byText = new Map();
  for (const dir of [...pkgs].sort((a, b) => a.localeCompare(b))) {
    const pj = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
    const file = fs.readdirSync(path.join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file
      ? fs.readFileSync(path.join(root, dir, file), 'utf8').trim()
      : `(no licence file in the package; package.json says ${pj.license ?? 'nothing'})`;
    if (!byText.has(text)) byText.set(text, []);
    byText.get(text).push(`${pj.name}@${pj.version} (${pj.license ?? 'see text'})`);
  }
  const parts = [...byText].map(([text, names]) => `${names.join('\n')}\n\n${text}\n`);
  return `Third-party code bundled into inv (scripts/bundle.mjs)\n\n${parts.join(`\n${'-'.repeat(72)}\n\n`)}`;
}

/**
 * Every name the bundled code imports from '@oclif/core' must be one the lazy stand-in
 * (bundle-stubs/oclif-core.cjs) exports: an import it lacks would be undefined at run time.
 */
function checkOclifImports(root, metafile) {
  const stub = fs.readFileSync(path.join(repoRoot, 'scripts', 'bundle-stubs', 'oclif-core.cjs'), 'utf8');
  const offered = new Set([...stub.matchAll(/^\s+(\w+): lazy\(/gm)].map((m) => m[1]));
  const missing = [];
  for (const [input, meta] of Object.entries(metafile.inputs)) {
    if (!meta.imports.some((i) => i.original === '@oclif/core')) continue;
    const text = fs.readFileSync(path.join(root, input), 'utf8');
    for (const m of text.matchAll(/import\s*(\*\s*as\s*\w+|\{[^}]*\})\s*from\s*['"]@oclif\/core['"]/g)) {
      if (m[1].startsWith('*')) missing.push(`${input}: import * (use named imports)`);
      else
        for (const part of m[1].slice(1, -1).split(',')) {
          const name = part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0];
          if (name && !part.trim().startsWith('type ') && !offered.has(name))
            missing.push(`${input}: ${name}`);
        }
    }
    if (/require\(\s*['"]@oclif\/core['"]\s*\)/.test(text)) missing.push(`${input}: require('@oclif/core')`);
  }
  if (missing.length)
    throw new Error(`imports from @oclif/core that bundle-stubs/oclif-core.cjs lacks: ${missing.join('; ')}`);
}

/** Whether two folders hold the same files with the same bytes. */
function sameTree(a, b) {
  const list = (d) =>
    fs.existsSync(d) ? fs.readdirSync(d, { recursive: true }).map(String).sort() : undefined;
  const la = list(a);
  const lb = list(b);
  if (!la || !lb || la.join('\n') !== lb.join('\n')) return false;
  return la.every((f) => {
    const pa = path.join(a, f);
    const pb = path.join(b, f);
    if (fs.statSync(pa).isDirectory()) return fs.statSync(pb).isDirectory();
    return fs.statSync(pb).isFile() && fs.readFileSync(pa).equals(fs.readFileSync(pb));
  });
}

/** Builds dist/bundle/ from dist/src/ and the oclif manifest. Returns { dir, bytes, ms }. */
export async function buildBundle(root = repoRoot) {
  const started = Date.now();
  const final = path.join(root, 'dist', 'bundle');
  // Built aside, then swapped in only if it differs: a program running from dist/bundle (a test,
  // a benchmark) never sees it half-written, and an unchanged build touches nothing.
  const out = `${final}.tmp-${process.pid}`;
  const manifestFile = path.join(root, 'oclif.manifest.json');
  for (const need of ['dist/src/commands', 'oclif.manifest.json']) {
    if (!fs.existsSync(path.join(root, need)))
      throw new Error(`${need} is missing: run tsc and scripts/oclif-manifest.mjs first (npm run build)`);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));

  const entryPoints = [
    { in: path.join(root, 'dist/src/bundle/oclif.js'), out: 'oclif' },
    { in: path.join(root, 'dist/src/bundle/direct.js'), out: 'direct' },
  ];
  const commands = {};
  for (const [id, c] of Object.entries(manifest.commands)) {
    const name = `commands/${id.split(':').join('/')}`;
    entryPoints.push({ in: path.join(root, ...c.relativePath), out: name });
    commands[id] = { ...c, relativePath: [...name.split('/').slice(0, -1), `${name.split('/').pop()}.js`] };
  }
  // Our command_not_found hook (kubectl's answer to a mistyped command), from package.json.
  for (const [event, file] of Object.entries(pkg.oclif?.hooks ?? {}))
    entryPoints.push({ in: path.join(root, file), out: `hooks/${event}` });

  fs.rmSync(out, { recursive: true, force: true });
  for (const f of fs.readdirSync(path.dirname(final))) {
    // Leftovers of a build that was killed half-way.
    if (/^bundle\.(tmp|old)-\d+$/.test(f) && !f.endsWith(`-${process.pid}`)) {
      const pid = Number(f.split('-').pop());
      let alive = true;
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (!alive) fs.rmSync(path.join(path.dirname(final), f), { recursive: true, force: true });
    }
  }
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    chunkNames: 'chunks/[name]-[hash]',
    minify: true,
    // Command classes are found by shape, but error messages and oclif's debug output name classes.
    keepNames: true,
    legalComments: 'none',
    // Only oclif's TypeScript support (never used by the bundle) requires typescript; left out,
    // that require fails and oclif goes on with the compiled code.
    external: ['typescript'],
    plugins: [stubs],
    metafile: true,
    logLevel: 'warning',
    // CommonJS packages inside an ES module bundle still call require() for Node built-ins.
    banner: {
      js: "import { createRequire as __invCreateRequire } from 'node:module'; const require = __invCreateRequire(import.meta.url);",
    },
  });

  const bundlePkg = {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    type: 'module',
    license: pkg.license,
    oclif: {
      ...pkg.oclif,
      commands: './commands',
      plugins: [],
      hooks: Object.fromEntries(Object.keys(pkg.oclif?.hooks ?? {}).map((e) => [e, `./hooks/${e}.js`])),
    },
  };
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(bundlePkg, null, 2)}\n`);
  fs.writeFileSync(path.join(out, 'oclif.manifest.json'), JSON.stringify({ ...manifest, commands }));
  fs.writeFileSync(
    path.join(out, 'run.js'),
    [
      '// Written by scripts/bundle.mjs: runs the bundled program (bin/run.js imports this).',
      "// The worker's node-remove starts without oclif when it can (src/bundle/direct.ts).",
      "import { runDirect } from './direct.js';",
      "if (!(await runDirect(process.argv.slice(2), new URL('./oclif.manifest.json', import.meta.url)))) {",
      "  const { run } = await import('./oclif.js');",
      "  await run(new URL('./package.json', import.meta.url).href);",
      '}',
      '',
    ].join('\n'),
  );
  checkOclifImports(root, result.metafile);
  fs.writeFileSync(path.join(out, 'THIRD-PARTY-NOTICES.txt'), notices(root, result.metafile));
  if (sameTree(out, final)) fs.rmSync(out, { recursive: true, force: true });
  else {
    const old = `${final}.old-${process.pid}`;
    if (fs.existsSync(final)) fs.renameSync(final, old);
    fs.renameSync(out, final);
    fs.rmSync(old, { recursive: true, force: true });
  }
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  return { dir: final, bytes, ms: Date.now() - started, metafile: result.metafile };
}

if (isMain(import.meta.url)) {
  try {
    const r = await buildBundle();
    if (process.argv.includes('--meta'))
      fs.writeFileSync(path.join(r.dir, '..', 'bundle-meta.json'), JSON.stringify(r.metafile));
    process.stderr.write(
      `bundle: ${path.relative(repoRoot, r.dir)} ${(r.bytes / 2 ** 20).toFixed(2)} MiB in ${r.ms} ms\n`,
    );
  } catch (err) {
    process.stderr.write(`bundle: ${err.message}\n`);
    process.exitCode = 1;
  }
}
