#!/usr/bin/env node
// `npm run gen:reference`: writes docs/reference/ from the built oclif manifest (run
// `npm run build` first). See scripts/reference.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReference } from './reference.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'oclif.manifest.json'), 'utf8'));
const dir = path.join(root, 'docs', 'reference');
fs.mkdirSync(dir, { recursive: true });
const pages = renderReference(manifest);
for (const f of fs.readdirSync(dir)) if (f.endsWith('.md') && !pages.has(f)) fs.rmSync(path.join(dir, f));
for (const [f, text] of pages) fs.writeFileSync(path.join(dir, f), text);
console.log(`docs/reference: ${pages.size} pages`);
