// The pure parts of reading manifests: document splitting, JSON and YAML parsing with the
// nesting limit, the collector (Lists, skipped and ignored documents), decoding, sizes, and
// abbreviating hostile refs.
import assert from 'node:assert/strict';
import { decode, ManifestError } from '../../../src/core/inventory/manifests/input.js';
import { MAX_NESTING, parseDocuments, yamlDocuments } from '../../../src/core/inventory/manifests/parse.js';
import { ManifestCollector } from '../../../src/core/inventory/manifests/collect.js';
import { abbreviate, limitMessage } from '../../../src/core/refs/abbreviate.js';
import { formatSize, parseSize } from '../../../src/core/size.js';

const values = (text: string) => [...parseDocuments(text, 'f')].map((d) => d.value);

describe('manifest parsing (pure)', () => {
  it('cuts YAML at document markers only, with the line each document starts on', () => {
    const text = 'a: 1\n---\nb: |\n  --- not a marker\n--- \nc: 3\n---x: no\n';
    assert.deepEqual(
      [...yamlDocuments(text)].map((d) => d.line),
      [1, 2, 5],
    );
    assert.deepEqual(values(text), [{ a: 1 }, { b: '--- not a marker\n' }, { c: 3, '---x': 'no' }]);
  });

  it('takes the JSON fast path, splits top-level arrays, and falls back to YAML for flow YAML', () => {
    assert.deepEqual(values(' {"kind":"Pod"}'), [{ kind: 'Pod' }]);
    assert.deepEqual(values('[{"a":1},{"b":2}]'), [{ a: 1 }, { b: 2 }]);
    assert.deepEqual(values('{a: 1}'), [{ a: 1 }]);
  });

  it('names the nesting limit instead of overflowing the stack', () => {
    const deep = '['.repeat(MAX_NESTING + 1) + ']'.repeat(MAX_NESTING + 1);
    assert.throws(() => values(deep), /nested more than 100 levels deep/);
    assert.throws(() => values(`x: 1\n---\ny: ${deep}`), /f: line 3: nested more than 100 levels deep/);
    assert.deepEqual(values('['.repeat(50) + ']'.repeat(50)).length, 1);
    // Brackets inside strings do not count.
    assert.deepEqual(values(`{"s": "${'['.repeat(500)}"}`), [{ s: '['.repeat(500) }]);
  });

  it('reports invalid YAML with its line in the whole file', () => {
    assert.throws(
      () => values('a: 1\n---\nb: [unclosed\n'),
      (e: Error) => {
        assert.ok(e instanceof ManifestError);
        assert.match(e.message, /^f: line \d+: not valid YAML or JSON/);
        return true;
      },
    );
  });

  it('collects sources by namespace, flattens Lists without recursion, and reports the rest', () => {
    const c = new ManifestCollector('team');
    const pod = (name: string, ns?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, ...(ns ? { namespace: ns } : {}) },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    let nested: unknown = pod('deep');
    for (let i = 0; i < 5000; i++) nested = { apiVersion: 'v1', kind: 'List', items: [nested] };
    c.add(nested, 'f', 'document 1');
    c.add({ apiVersion: 'v1', kind: 'PodList', items: [pod('a', 'x'), pod('b')] }, 'f', 'document 2');
    c.add(
      { apiVersion: 'extensions/v1beta1', kind: 'DaemonSet', metadata: { name: 'ds' } },
      'f',
      'document 3',
    );
    c.add({ apiVersion: 'v1', kind: 'ConfigMap' }, 'f', 'document 4');
    c.add(null, 'f', 'document 5');
    c.add('text', 'f', 'document 6');
    const r = c.read;
    assert.equal(r.objects, 4);
    assert.deepEqual(r.ignored, { ConfigMap: 1 });
    assert.deepEqual([...r.byNamespace.keys()].sort(), ['team', 'x']);
    assert.equal(r.byNamespace.get('team')!.pods!.length, 2);
    assert.deepEqual(
      r.skipped.map((s) => [s.where, s.kind, s.reason]),
      [
        ['document 3', 'DaemonSet', 'DaemonSet is read only as apps/v1, not extensions/v1beta1'],
        ['document 6', undefined, 'not a Kubernetes object (a string)'],
      ],
    );
  });

  it('decodes UTF-8 and UTF-16 byte-order marks and refuses NUL characters', () => {
    assert.equal(decode(Buffer.from([0xef, 0xbb, 0xbf, 0x61]), 'f'), 'a');
    assert.equal(
      decode(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('kind: Pod', 'utf16le')]), 'f'),
      'kind: Pod',
    );
    assert.equal(
      decode(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('é', 'utf16le').swap16()]), 'f'),
      'é',
    );
    assert.throws(() => decode(Buffer.from('a\0b'), 'f'), /f: contains NUL characters/);
  });

  it('parses and formats sizes', () => {
    assert.deepEqual(parseSize('256Mi'), { ok: true, bytes: 256 * 1024 * 1024 });
    assert.deepEqual(parseSize('50MB'), { ok: true, bytes: 50e6 });
    assert.deepEqual(parseSize('1.5Gi'), { ok: true, bytes: 1.5 * 1024 ** 3 });
    assert.deepEqual(parseSize('100'), { ok: true, bytes: 100 });
    assert.equal(parseSize('10X').ok, false);
    assert.equal(parseSize('0').ok, false);
    assert.equal(formatSize(100), '100 B');
    assert.equal(formatSize(1024), '1 KiB');
    assert.equal(formatSize(256 * 1024 * 1024), '256 MiB');
  });

  it('abbreviates long refs with their start, length and hash, and bounds messages', () => {
    assert.equal(abbreviate('nginx:1'), 'nginx:1');
    const a = abbreviate('x'.repeat(10_000));
    const b = abbreviate(`${'x'.repeat(9_999)}y`);
    assert.ok(a.length <= 200);
    assert.match(a, /^x+… \(10000 characters, sha256 [0-9a-f]{12}\)$/);
    assert.notEqual(a, b, 'two long values stay apart');
    assert.equal(limitMessage('m'.repeat(5000)).length, 1024);
  });
});
