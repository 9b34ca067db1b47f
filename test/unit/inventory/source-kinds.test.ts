// The kind registry is the one source of what the inventory reads: everything that repeats it
// (the ClusterRole, docs/inventory.md's table, `inv check`'s access list, help texts, the CRD's pattern
// for status.kinds) is generated or checked from it here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SCAN_ACCESS } from '../../../src/core/check/checks.js';
import { GENERATED, replaceRegion } from '../../../src/core/inventory/generated-kinds.js';
import { BUILTIN, BUILTIN_SOURCE_KINDS, OWNER_KINDS } from '../../../src/core/inventory/source-kinds.js';
import { readKinds } from '../../../src/core/inventory/sources.js';
import { emptyNamespaceObjects } from '../../../src/core/inventory/source-fields.js';
import { repoRoot } from '../../support/paths.js';
import Scan from '../../../src/commands/scan.js';
import Watch from '../../../src/commands/watch.js';

const read = (f: string) => fs.readFileSync(path.join(repoRoot, f), 'utf8');

describe('the kind registry', () => {
  it('generated regions (ClusterRole rules, docs/inventory.md table) are current: npm run gen:kinds', () => {
    for (const g of GENERATED) {
      const text = read(g.file);
      assert.ok(text.includes(g.begin) && text.includes(g.end), `${g.file}: markers missing`);
      assert.equal(
        replaceRegion(text, g.region, g.body()),
        text,
        `${g.file} is stale: run npm run gen:kinds`,
      );
    }
  });

  it('the ClusterRole grants list and watch on every source and owner kind', () => {
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    const role = parse(read('deploy/clusterrole.yaml')) as { rules: Rule[] };
    for (const k of readKinds()) {
      assert.ok(
        role.rules.some(
          (r) =>
            r.apiGroups.includes(k.group) &&
            r.resources.includes(k.plural) &&
            r.verbs.includes('list') &&
            r.verbs.includes('watch'),
        ),
        `${k.kind}: no list/watch rule`,
      );
    }
  });

  it("`inv check`'s scan access lists every kind", () => {
    for (const k of readKinds())
      assert.ok(
        SCAN_ACCESS.some((a) => (a.group ?? '') === k.group && a.resource === k.plural && a.verb === 'list'),
        k.kind,
      );
  });

  it('help texts name every built-in kind', () => {
    for (const text of [Scan.description, Watch.description])
      for (const k of BUILTIN_SOURCE_KINDS) assert.ok(text!.includes(`${k.kind}s`), `${k.kind} missing`);
  });

  it("the Image CRD's status.kinds pattern takes every kind (and owners' kinds)", () => {
    for (const f of ['crds/imageinventory.dev_images.yaml', 'deploy/crds/imageinventory.dev_images.yaml']) {
      const crd = parse(read(f)) as {
        spec: {
          versions: {
            schema: {
              openAPIV3Schema: { properties: { status: { properties: { kinds: { pattern: string } } } } };
            };
          }[];
        };
      };
      const re = new RegExp(
        crd.spec.versions[0]!.schema.openAPIV3Schema.properties.status.properties.kinds.pattern,
      );
      const all = [...readKinds().map((k) => k.kind), 'Workflow', 'Node'].sort().join(',');
      assert.ok(re.test(all), `${f}: ${all}`);
      assert.ok(!re.test('Deployment,Pod/x'));
    }
  });

  it('keys, plurals and kinds are unique, and empty namespaces have every key', () => {
    const all = readKinds();
    for (const field of ['key', 'plural', 'kind'] as const)
      assert.equal(new Set(all.map((k) => k[field])).size, all.length, field);
    assert.deepEqual(Object.keys(emptyNamespaceObjects()).sort(), all.map((k) => k.key).sort());
    assert.equal(BUILTIN.all.length, BUILTIN_SOURCE_KINDS.length);
    assert.ok(OWNER_KINDS.every((o) => !BUILTIN.isSource(`${o.group}/${o.version}`, o.kind)));
  });
});
