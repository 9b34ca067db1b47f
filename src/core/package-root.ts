// The folder of the installed package: the one holding crds/ (and deploy/, package.json), found
// by walking up from this module, because the module sits at different depths in the tsc output
// (dist/src/core/) and in the production bundle (dist/bundle/chunks/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

export function packageRoot(): string {
  if (found) return found;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'crds')) && fs.existsSync(path.join(dir, 'package.json')))
      return (found = dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('the package folder (with crds/) was not found above the program');
    dir = parent;
  }
}
