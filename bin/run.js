#!/usr/bin/env node
// oclif entry point: commands are loaded from the compiled dist/src/commands.
import module from 'node:module';
import { readdirSync, rmSync, statSync } from 'node:fs';
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

// `npm run build` writes oclif.manifest.json so start-up loads only the command being run.
// A bare `tsc` recompiles commands without refreshing it: drop a stale manifest, so oclif
// falls back to discovering commands instead of missing new ones.
try {
  const manifest = fileURLToPath(new URL('../oclif.manifest.json', import.meta.url));
  const built = statSync(manifest).mtimeMs;
  const dir = fileURLToPath(new URL('../dist/src/commands/', import.meta.url));
  if (readdirSync(dir).some((f) => statSync(dir + f).mtimeMs > built)) rmSync(manifest);
} catch {
  // No manifest, or a read-only install: nothing to refresh.
}

// Imported only now, so the compile cache covers oclif and everything it loads. Errors go
// through our handler (one `error: ...` line, never wrapped), not oclif's.
const { run, flush } = await import('@oclif/core');
const { handleError } = await import('../dist/src/cli/handle-error.js');
try {
  await run(process.argv.slice(2), import.meta.url);
  await flush();
} catch (e) {
  handleError(e);
}
