#!/usr/bin/env node
// Writes oclif.manifest.json after `tsc`. Without a manifest, oclif imports every command
// module at start-up just to list them, so `inv --version` would pay for client-node and
// grpc-js; with it, only the command being run is loaded. The file is replaced in one rename, so
// an `inv` started during a rebuild (a test run beside it) never finds it missing or half
// written; a failed generation removes it, so a stale one never outlives a build.
import { Plugin } from '@oclif/core';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'oclif.manifest.json');
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
try {
  await plugin.load();
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(plugin.manifest));
  fs.renameSync(tmp, target);
} catch (e) {
  fs.rmSync(target, { force: true });
  throw e;
}
