// The command reference cannot go stale: docs/reference/ is what scripts/reference.mjs makes of
// the built oclif manifest, page for page (run `npm run build && npm run gen:reference` after
// changing a command's flags, help or examples).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/paths.js';

describe('docs: the generated command reference', () => {
  it('docs/reference/ equals a fresh generation from the commands', async () => {
    const { renderReference } = (await import(path.join(repoRoot, 'scripts', 'reference.mjs'))) as {
      renderReference(m: unknown): Map<string, string>;
    };
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8'));
    const fresh = renderReference(manifest);
    const dir = path.join(repoRoot, 'docs', 'reference');
    const onDisk = fs.readdirSync(dir).filter((f) => f.endsWith('.md'));
    assert.deepEqual(onDisk.sort(), [...fresh.keys()].sort(), 'the pages (npm run gen:reference)');
    for (const [file, text] of fresh)
      assert.equal(
        fs.readFileSync(path.join(dir, file), 'utf8'),
        text,
        `${file} is stale: npm run gen:reference`,
      );
    // Every visible command has its page, and the index links it.
    assert.match(fresh.get('README.md')!, /\[`inv erase status`\]\(inv-erase-status\.md\)/);
  });
});
