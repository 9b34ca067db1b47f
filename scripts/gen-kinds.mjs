#!/usr/bin/env node
// `npm run gen:kinds`: rewrites the regions of deploy/clusterrole.yaml and docs/inventory.md that are
// generated from the kind registry (src/core/inventory/source-kinds.ts). Run after `npm run
// build`; test/unit/inventory/source-kinds.test.ts fails while they are stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { GENERATED, replaceRegion } = await import(
  path.join(root, 'dist', 'src', 'core', 'inventory', 'generated-kinds.js')
);
for (const g of GENERATED) {
  const file = path.join(root, g.file);
  const before = fs.readFileSync(file, 'utf8');
  const after = replaceRegion(before, g.region, g.body());
  if (after !== before) {
    fs.writeFileSync(file, after);
    console.log(`gen:kinds: wrote ${g.file}`);
  }
}
