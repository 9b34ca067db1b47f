#!/usr/bin/env node
// oclif entry point. Two layouts:
// - shipped (the npm package, the image of scripts/inv-image.mjs): no dist/src, only the
//   production bundle in dist/bundle/ (scripts/bundle.mjs), which needs no node_modules;
// - a checkout: the tsc output in dist/src/ with node_modules, which is what the tests run;
//   INV_BUNDLE=1 runs the checkout's bundle instead (`npm run build` makes both).
import module from 'node:module';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Node 22.1+ (and 24 LTS) can cache the compiled code of every module it loads, which cuts
// start-up; Node 20 has no such cache and simply skips this. A read-only file system (the
// worker Pod) makes the call report failure, and start-up goes on uncached. Opt out with
// NODE_DISABLE_COMPILE_CACHE=1.
try {
  module.enableCompileCache?.();
} catch {
  // never let a cache problem stop the command
}

// oclif's help wraps flag descriptions two columns past the width it is given (a 6-space
// indent against a wrap at width - 4): give it two fewer, so `--help` fits the terminal.
if (!process.env.OCLIF_COLUMNS && process.stdout.isTTY) {
  const columns = Number(process.env.COLUMNS) || process.stdout.columns || 80;
  process.env.OCLIF_COLUMNS = String(Math.max(40, columns - 2));
}

const commandsDir = fileURLToPath(new URL('../dist/src/commands/', import.meta.url));
if (process.argv[2] === '--version') {
  // `inv --version` is typed often and needs nothing of oclif: answered here, in oclif's format
  // (<name>/<version> <platform>-<arch> node-<version>), before any module is loaded.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const arch = process.arch === 'ia32' ? 'x86' : process.arch;
  process.stdout.write(
    `${pkg.oclif?.bin ?? pkg.name}/${pkg.version} ${process.platform}-${arch} node-${process.version}\n`,
  );
} else if (process.env.INV_BUNDLE === '1' || !existsSync(commandsDir)) {
  await import('../dist/bundle/run.js');
} else {
  // `npm run build` writes oclif.manifest.json so start-up loads only the command being run.
  // A bare `tsc` recompiles commands without refreshing it: drop a stale manifest, so oclif
  // falls back to discovering commands instead of missing new ones.
  try {
    const manifest = fileURLToPath(new URL('../oclif.manifest.json', import.meta.url));
    const built = statSync(manifest).mtimeMs;
    if (readdirSync(commandsDir).some((f) => statSync(commandsDir + f).mtimeMs > built)) rmSync(manifest);
  } catch {
    // No manifest, or a read-only install: nothing to refresh.
  }

  // oclif loads the plugins of oclif.plugins only from "dependencies"; the package has none (it
  // ships the bundle, where the plugins are entries), so the checkout names them here from
  // devDependencies.
  const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  for (const p of pjson.oclif?.plugins ?? []) {
    pjson.dependencies = { ...pjson.dependencies, [p]: pjson.devDependencies?.[p] ?? '*' };
  }

  // Imported only now, so the compile cache covers oclif and everything it loads. Errors go
  // through our handler (one `error: ...` line, never wrapped), not oclif's; it exits only once
  // stdout and stderr are drained, so a slow pipe gets the whole output.
  const { run, flush } = await import('@oclif/core');
  const { handleError } = await import('../dist/src/cli/process/handle-error.js');
  try {
    await run(process.argv.slice(2), { root: fileURLToPath(new URL('..', import.meta.url)), pjson });
    await flush();
  } catch (e) {
    await handleError(e);
  }
}
