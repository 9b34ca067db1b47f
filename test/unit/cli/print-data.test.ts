// kubectl's output habits over our documents (src/cli/output/jsonpath.ts, src/cli/output/print-data.ts): the
// JSONPath template dialect of `kubectl get -o jsonpath`, custom-columns, and --sort-by. The
// expected strings are what kubectl prints for the same template over the same JSON.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execute, parseTemplate } from '../../../src/cli/output/jsonpath.js';
import {
  naturalCompare,
  parseOutputValue,
  renderData,
  sortItems,
} from '../../../src/cli/output/print-data.js';

const doc = {
  kind: 'List',
  items: [
    { metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 3 }, ok: true },
    { metadata: { name: 'db', labels: {} }, spec: { replicas: 1 }, ok: false },
  ],
};
const tpl = (t: string, d: unknown = doc) => execute(parseTemplate(t), d);

describe('kubectl output habits: jsonpath, custom-columns, --sort-by', () => {
  it('prints paths, wildcards, literals and text as kubectl does', () => {
    assert.equal(tpl('{.items[*].metadata.name}'), 'web db');
    assert.equal(tpl('{.kind}'), 'List');
    assert.equal(tpl('names: {.items[0].metadata.name}!'), 'names: web!');
    assert.equal(tpl('{.items[0].metadata.labels}'), '{"app":"web"}');
    assert.equal(tpl('{.items[*].spec.replicas}'), '3 1');
    assert.equal(tpl('{.items[*].ok}'), 'true false');
    assert.equal(tpl('{.items[-1:].metadata.name}'), 'db');
    assert.equal(tpl('{..name}'), 'web db');
    assert.equal(tpl(`{.items[0].metadata['name']}`), 'web');
    assert.equal(tpl('{.nothing.here}'), '', 'missing keys print nothing (allow-missing-template-keys)');
    assert.equal(tpl('{@.kind}'), 'List');
  });

  it('ranges with {range}{end}, {"\\n"} strings and filters', () => {
    assert.equal(
      tpl('{range .items[*]}{.metadata.name}{"\\t"}{.spec.replicas}{"\\n"}{end}'),
      'web\t3\ndb\t1\n',
    );
    assert.equal(tpl('{.items[?(@.spec.replicas>1)].metadata.name}'), 'web');
    assert.equal(tpl('{.items[?(@.metadata.name=="db")].spec.replicas}'), '1');
    assert.equal(
      tpl('{range .items[*]}[{range .metadata.labels.*}{@}{end}]{$.kind}{end}'),
      '[web]List[]List',
      'nested ranges, @ the current item, $ the document',
    );
    assert.equal(tpl('{range .none[*]}x{end}'), '');
  });

  it('refuses bad templates with kubectl-like reasons', () => {
    assert.throws(() => parseTemplate('{.items'), /error parsing jsonpath \{\.items: unclosed action/);
    assert.throws(() => parseTemplate('{end}'), /not in range, nothing to end/);
    assert.throws(() => parseTemplate('{range .items[*]}{.a}'), /range without end/);
    assert.throws(() => parseTemplate('{items}'), /unrecognized identifier/);
    assert.throws(() => parseTemplate('{"unterminated}'), /unclosed action|invalid string/);
  });

  it('custom-columns: a row per item, <none> for a missing value, comma-joined lists, --no-headers', () => {
    const out = renderData(
      doc,
      'custom-columns=NAME:.metadata.name,REPLICAS:spec.replicas,APP:{.metadata.labels.app}',
      { items: doc.items },
    );
    assert.equal(out, 'NAME   REPLICAS   APP\nweb    3          web\ndb     1          <none>\n');
    assert.equal(
      renderData(doc, 'custom-columns=N:.items[*].metadata.name', { noHeaders: true }),
      'web,db\n',
      'a document without items is one row',
    );
    assert.throws(() => parseOutputValue('custom-columns=NAME', []), /expected <header>:<json-path-expr>/);
    assert.throws(() => parseOutputValue('custom-columns=', []), /no custom columns given/);
  });

  it('reads jsonpath-file and custom-columns-file, bounded, and rejects unknown formats', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-print-'));
    try {
      const cols = path.join(dir, 'cols');
      fs.writeFileSync(cols, 'NAME        REPLICAS\n.metadata.name   .spec.replicas\n');
      assert.equal(
        parseOutputValue(`custom-columns-file=${cols}`, []),
        'custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas',
      );
      fs.writeFileSync(cols, 'A B\n.a\n');
      assert.throws(
        () => parseOutputValue(`custom-columns-file=${cols}`, []),
        /number of headers \(2\) does not match number of columns \(1\)/,
      );
      const jp = path.join(dir, 'tpl');
      fs.writeFileSync(jp, '{.kind}');
      assert.equal(parseOutputValue(`jsonpath-file=${jp}`, []), 'jsonpath={.kind}');
      fs.writeFileSync(jp, 'x'.repeat(70_000));
      assert.throws(() => parseOutputValue(`jsonpath-file=${jp}`, []), /larger than 65536 bytes/);
      assert.throws(() => parseOutputValue(`jsonpath-file=${dir}`, []), /jsonpath-file/);
      assert.throws(() => parseOutputValue(`jsonpath-file=${path.join(dir, 'none')}`, []), /ENOENT/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(parseOutputValue('json', ['json', 'yaml']), 'json');
    assert.throws(() => parseOutputValue('xml', ['json']), /allowed formats are: json, jsonpath=\.\.\./);
    assert.throws(() => parseOutputValue('jsonpath', ['json']), /no template given/);
  });

  it('--sort-by: numbers by value, text in natural order, missing first, stable, typos refused', () => {
    const rows = [
      { name: 'node-10', n: 2 },
      { name: 'node-2', n: 10 },
      { name: 'node-1' },
      { name: 'node-2b', n: 2 },
    ];
    assert.deepEqual(
      sortItems([...rows], '.name').map((r) => r.name),
      ['node-1', 'node-2', 'node-2b', 'node-10'],
    );
    assert.deepEqual(
      sortItems([...rows], '.n').map((r) => r.name),
      ['node-1', 'node-10', 'node-2b', 'node-2'],
    );
    assert.throws(() => sortItems([...rows], '.nope'), /couldn't find any field with path "\.nope"/);
    assert.ok(
      naturalCompare('a9', 'a10') < 0 && naturalCompare('b', 'a') > 0 && naturalCompare('x', 'x') === 0,
    );
  });
});
