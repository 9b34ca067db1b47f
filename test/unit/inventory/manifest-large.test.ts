// Large manifests read one object at a time: JSON arrays and Lists element by element, large
// YAML sequences and Lists entry by entry, and a named limit for what cannot be split.
import assert from 'node:assert/strict';
import { MAX_VALUES } from '../../../src/core/inventory/manifests/json.js';
import { parseDocuments } from '../../../src/core/inventory/manifests/parse.js';

const docs = (text: string) => [...parseDocuments(text, 'f')];
const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: `img-${name}` }] },
});

describe('large manifests, one object at a time (pure)', () => {
  it('reads a JSON List item by item, and a top-level JSON array element by element', () => {
    const list = JSON.stringify({ apiVersion: 'v1', items: [pod('a'), pod('b'), {}], kind: 'PodList' });
    assert.deepEqual(
      docs(list).map((d) => [d.where, d.value]),
      [
        ['document 1, items[0]', pod('a')],
        ['document 1, items[1]', pod('b')],
        ['document 1, items[2]', {}],
      ],
    );
    // Not a List: one document, items and all.
    const other = { kind: 'Thing', items: [1, 2] };
    assert.deepEqual(docs(JSON.stringify(other)), [{ value: other, where: 'document 1' }]);
    assert.deepEqual(
      docs(' [ {} , {"a": [1, "]"]} ]\n').map((d) => d.value),
      [{}, { a: [1, ']'] }],
    );
  });

  it('falls back to YAML when a JSON-looking text is not JSON, with nothing collected twice', () => {
    assert.deepEqual(
      docs('[{"a": 1}, {b: 2}]').map((d) => d.value),
      [{ a: 1 }, { b: 2 }],
    );
    assert.deepEqual(
      docs('{"kind": "List", "items": [{"a": 1}]} # a comment').map((d) => d.value),
      [{ kind: 'List', items: [{ a: 1 }] }],
    );
  });

  it('refuses one JSON object of more than MAX_VALUES values, naming the limit', () => {
    const big = `{"a": [${'0,'.repeat(MAX_VALUES)}0]}`;
    assert.throws(() => docs(big), /f: document 1: more than 1,000,000 values in one object/);
    // The same values spread over elements are fine.
    assert.equal(docs(`[${'{},'.repeat(MAX_VALUES)}{}]`).length, MAX_VALUES + 1);
  });

  it('reads a large YAML sequence and a large kubectl-style YAML List entry by entry', () => {
    const n = MAX_VALUES / 2 + 12;
    const seq = docs(`# comment\n${'- {}\n'.repeat(n)}- {apiVersion: v1, kind: Pod}\n`);
    assert.equal(seq.length, n + 1);
    assert.deepEqual(seq[n], { value: { apiVersion: 'v1', kind: 'Pod' }, where: `document 1[${n}], line 1` });
    const entry = '- apiVersion: v1\n  kind: ConfigMap\n  data: {a: "x"}\n';
    const list = docs(
      `apiVersion: v1\nitems:\n${entry.repeat(n / 4)}kind: List\nmetadata: {resourceVersion: ""}\n`,
    );
    assert.equal(list.length, n / 4);
    assert.deepEqual(list[1], {
      value: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'x' } },
      where: 'document 1, line 1, items[1]',
    });
    // Indented entries, after other documents.
    const indented = docs(`a: 1\n---\nitems:\n${'  - {x: 1}\n'.repeat(n / 2)}kind: List\n`);
    assert.equal(indented.length, 1 + n / 2);
  });

  it('refuses a large YAML document of another shape, and reads empty documents without a parser', () => {
    assert.throws(
      () => docs(`[${'{}, '.repeat(MAX_VALUES)}{}] # flow YAML`),
      /f: line 1: a document of more than 1,000,000 values that is neither a sequence nor a List/,
    );
    assert.throws(
      () => docs(`kind: Thing\nitems:\n${'- 1\n'.repeat(MAX_VALUES)}`),
      /neither a sequence nor a List/,
    );
    assert.deepEqual(
      docs('--- {}\n---\n--- ~\n--- {a: 1}\n').map((d) => d.value),
      [{}, null, null, { a: 1 }],
    );
  });
});
