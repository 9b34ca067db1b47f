#!/usr/bin/env node
// `npm run gen:docs`: rewrites the docs' regions generated from the code (src/docs/generated.ts:
// the metrics, configuration, exit codes and printer columns tables). Run after `npm run build`;
// test/unit/repo/docs-generated.test.ts fails while a page is stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { GENERATED_DOCS } = await import(path.join(root, 'dist', 'src', 'docs', 'generated.js'));
const { replaceRegion } = await import(path.join(root, 'dist', 'src', 'docs', 'regions.js'));
for (const g of GENERATED_DOCS) {
  const file = path.join(root, g.file);
  const before = fs.readFileSync(file, 'utf8');
  const after = replaceRegion(before, g.region, g.body());
  if (after !== before) {
    fs.writeFileSync(file, after);
    console.log(`gen:docs: wrote ${g.file} (${g.region})`);
  }
}
