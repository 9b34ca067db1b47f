#!/usr/bin/env node
// oclif entry point: commands are loaded from the compiled dist/src/commands.
import { execute } from '@oclif/core';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

await execute({ dir: import.meta.url });
