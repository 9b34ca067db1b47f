// docs/inventory.md: the client-side limits a user tunes a first full write by are the ones in
// the code (--concurrency's default and bound, the writes of one namespace in flight, the
// connections to the API server), and so is the size at which -A reads namespace by namespace.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { inventoryScanFlags } from '../../../src/cli/scan/scan-flags.js';
import { MERGED_MAX_PER_NAMESPACE } from '../../../src/core/inventory/cluster-scan/choose-listing.js';
import { NAMESPACE_WRITES } from '../../../src/core/inventory/rebuild.js';
import { MAX_CONNECTIONS } from '../../../src/core/kube/rest.js';
import { repoRoot } from '../../support/paths.js';

describe('the docs of a writing scan', () => {
  it('state its client-side limits as the code has them', () => {
    const text = fs.readFileSync(path.join(repoRoot, 'docs', 'inventory.md'), 'utf8').replace(/\s+/g, ' ');
    const flag = inventoryScanFlags.concurrency as unknown as { default: number; max: number };
    for (const phrase of [
      `\`--concurrency\` is how many namespaces are rebuilt at once (default ${flag.default}, at most ${flag.max})`,
      `up to ${NAMESPACE_WRITES} writes of one namespace go in parallel`,
      `the client keeps at most ${MAX_CONNECTIONS} connections to the API server`,
      `more than ${MERGED_MAX_PER_NAMESPACE} source objects per namespace on average is read namespace by namespace`,
    ])
      assert.ok(text.includes(phrase), `docs/inventory.md lacks: ${phrase}`);
  });
});
