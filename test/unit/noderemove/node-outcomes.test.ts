// The node outcomes of contract/node-outcomes.ts against their other statements, written by hand:
// the ImageJob CRD's enum of status.nodes[].outcome (crds/ and its copy in deploy/) and the
// EraseReport schema's, which adds Running (a Pending node whose worker Pod runs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { NODE_OUTCOMES } from '../../../src/core/contract/node-outcomes.js';
import { reportNodeTraits } from '../../../src/core/erase-request/report.js';
import { repoRoot } from '../../support/paths.js';

/** The enum of the first `outcome` property whose object also has `node`, searched depth first. */
function nodeOutcomeEnum(o: unknown): unknown[] | undefined {
  if (!o || typeof o !== 'object') return undefined;
  const p = (o as { properties?: Record<string, { enum?: unknown[] }> }).properties;
  if (p?.outcome?.enum && p.node) return p.outcome.enum;
  for (const v of Object.values(o)) {
    const r = nodeOutcomeEnum(v);
    if (r) return r;
  }
  return undefined;
}

describe('erase: the node outcomes (pure)', () => {
  for (const file of [
    'crds/erase.imageinventory.dev_imagejobs.yaml',
    'deploy/crds/erase.imageinventory.dev_imagejobs.yaml',
  ])
    it(`${file} accepts exactly the node outcomes`, () => {
      const crd = parse(fs.readFileSync(path.join(repoRoot, file), 'utf8')) as unknown;
      assert.deepEqual(nodeOutcomeEnum(crd), [...NODE_OUTCOMES]);
    });

  it('docs/schemas/EraseReport.json lists the node outcomes and Running, which reads as Pending', () => {
    const schema = JSON.parse(
      fs.readFileSync(path.join(repoRoot, 'docs/schemas/EraseReport.json'), 'utf8'),
    ) as unknown;
    const listed = nodeOutcomeEnum(schema) as string[];
    assert.deepEqual([...listed].sort(), [...NODE_OUTCOMES, 'Running'].sort());
    assert.deepEqual(reportNodeTraits('Running'), reportNodeTraits('Pending'));
  });
});
