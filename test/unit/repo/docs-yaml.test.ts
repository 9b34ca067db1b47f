// Every YAML a page shows parses, and what inv reads is what inv accepts: each ImageList passes
// the controllers' own checks (docs/examples too), each exclusion list parses as the controllers
// read it, each SourceKinds as the daemon reads it, each inv-erase-config fragment as the
// configuration parser reads it; and the example files are shown in the docs as they are.
// test/docs/examples.test.ts applies the inv kinds to the real API server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { parseExclusionData } from '../../../src/core/erase/spec/images.js';
import { parseConfig } from '../../../src/core/erase/config/config.js';
import { parseSourceKinds } from '../../../src/core/inventory/declared-kinds.js';
import { acceptedConfigKeys } from '../../../src/docs/config-table.js';
import {
  docsYaml,
  EXAMPLES_DIR,
  imageListProblems,
  isExclusionList,
  isImageList,
  isSourceKinds,
  type Manifest,
} from '../../support/docs/docs-manifests.js';
import { docsPages } from '../../support/docs/docs-pages.js';

describe('YAML in the docs', () => {
  const all = docsYaml();
  const each = (f: (d: Manifest, where: string) => void) => {
    for (const y of all) for (const d of y.docs) f(d as Manifest, y.where);
  };

  it('every block and example parses', () => {
    assert.ok(all.length >= 10, `${all.length} YAML texts`);
    assert.deepEqual(
      all.filter((y) => y.errors.length).map((y) => `${y.where}: ${y.errors.join('; ')}`),
      [],
    );
  });

  it('every ImageList passes the checks the controllers run before a job', () => {
    const seen: string[] = [];
    each((d, where) => {
      if (!isImageList(d)) return;
      seen.push(where);
      assert.deepEqual(imageListProblems(d), [], where);
    });
    assert.ok(seen.length >= 4, `ImageLists in ${seen.join(', ')}`);
    // ... and the checks do refuse what the controllers refuse
    const bad = {
      metadata: { name: 'x' },
      spec: { images: ['nginx:1.25'], schedule: '0 25 * * *', jobTimeout: '30' },
    };
    assert.equal(imageListProblems(bad).length, 2, imageListProblems(bad).join('; '));
  });

  it('every exclusion list parses as the controllers read it', () => {
    let n = 0;
    each((d, where) => {
      if (!isExclusionList(d)) return;
      n++;
      const patterns = parseExclusionData(where, d.data);
      assert.ok(patterns.length > 0, where);
    });
    assert.ok(n >= 2);
  });

  it('every SourceKinds parses as the daemon reads it', () => {
    let n = 0;
    each((d, where) => {
      if (!isSourceKinds(d)) return;
      n++;
      assert.ok(parseSourceKinds(stringify(d), where).length > 0, where);
    });
    assert.ok(n >= 1);
  });

  it('every fragment of inv-erase-config is accepted by its parser', () => {
    const top = new Set(acceptedConfigKeys().map((k) => k.split('.')[0]!));
    let n = 0;
    each((d, where) => {
      if (d.kind || !Object.keys(d).every((k) => top.has(k))) return;
      n++;
      assert.doesNotThrow(() => parseConfig(stringify(d)), where);
    });
    assert.ok(n >= 2, `${n} fragments`);
  });

  it('each example an erase page shows is the file as it is (so what is tested is what is read)', () => {
    const pages = docsPages()
      .map((p) => p.text)
      .join('\n');
    for (const f of ['exclusion-list.yaml', 'imagelist-once.yaml', 'imagelist-scheduled.yaml']) {
      const text = fs.readFileSync(path.join(EXAMPLES_DIR, f), 'utf8').trimEnd();
      assert.ok(pages.includes('```yaml\n' + text + '\n```'), `docs/examples/${f} is shown whole in a page`);
    }
  });
});
