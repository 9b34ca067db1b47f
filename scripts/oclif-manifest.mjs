#!/usr/bin/env node
// Writes oclif.manifest.json after `tsc`. Without a manifest, oclif imports every command
// module at start-up just to list them, so `inv --version` would pay for client-node and
// grpc-js; with it, only the command being run is loaded.
import { Plugin } from '@oclif/core';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'oclif.manifest.json');
fs.rmSync(target, { force: true });
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
fs.writeFileSync(target, JSON.stringify(plugin.manifest));
