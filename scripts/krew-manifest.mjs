#!/usr/bin/env node
// Fills plugins/inv.yaml (the krew manifest) for a release: its version from package.json, and
// every platform's uri and sha256 from the release tarball (what `npm pack` makes).
//   node scripts/krew-manifest.mjs inv-0.1.0.tgz [https://.../inv-0.1.0.tgz]
// Only these fields change; the rest of the manifest is kept as written.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [tarball, uriArg] = process.argv.slice(2);
if (!tarball) {
  process.stderr.write('usage: node scripts/krew-manifest.mjs TARBALL [URI]\n');
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const version = `v${pkg.version}`;
const sha256 = createHash('sha256').update(fs.readFileSync(tarball)).digest('hex');
const uri =
  uriArg ?? `https://github.com/imageinventory/inv/releases/download/${version}/${path.basename(tarball)}`;
const file = path.join(root, 'plugins', 'inv.yaml');
const doc = parseDocument(fs.readFileSync(file, 'utf8'));
doc.setIn(['spec', 'version'], version);
const platforms = doc.getIn(['spec', 'platforms']);
for (const p of platforms.items) {
  p.set('uri', uri);
  p.set('sha256', sha256);
}
fs.writeFileSync(file, doc.toString());
process.stdout.write(`plugins/inv.yaml: ${version}, ${uri}, sha256 ${sha256}\n`);
