// Keeps docs/image-refs.md true: every example in its tables is run through the normalizer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { normalizeRef, parseDigestOrId } from '../../../src/core/refs/normalize.js';
import { repoRoot } from '../../support/paths.js';

const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'image-refs.md'), 'utf8');
const section = (title: string) => doc.split(`## ${title}`)[1]!.split('\n## ')[0]!;
const rows = (text: string) =>
  [...text.matchAll(/^\|\s*`([^`]+)`\s*\|\s*`?([^`|]+?)`?\s*\|$/gm)].map((m) => [m[1]!, m[2]!] as const);
const HEX = 'a1'.repeat(32);

describe('docs/image-refs.md', () => {
  it('normalizes every example exactly as the table says', () => {
    const examples = rows(section('Examples'));
    assert.ok(examples.length >= 12);
    for (const [input, want] of examples) {
      const r = normalizeRef(input);
      assert.ok(r.ok, `${input}: ${r.ok ? '' : r.reason}`);
      assert.equal(r.ref.normalized, want, input);
    }
    const d = normalizeRef(`busybox@sha256:${HEX}`);
    assert.equal(d.ok && d.ref.normalized, `docker.io/library/busybox@sha256:${HEX}`);
    const td = normalizeRef(`busybox:1.36@sha256:${HEX}`);
    assert.equal(td.ok && td.ref.normalized, `docker.io/library/busybox:1.36@sha256:${HEX}`);
  });

  it('rejects every reference in the rejected table, and the two described in words', () => {
    const rejected = [...section('Rejected references').matchAll(/^\|\s*`([^`]+)`\s*\|/gm)].map((m) => [
      m[1]!,
    ]);
    assert.ok(rejected.length >= 8);
    for (const [input] of rejected) assert.equal(normalizeRef(input!).ok, false, input);
    assert.equal(normalizeRef(HEX).ok, false, 'bare 64-hex');
    assert.equal(normalizeRef(`example.com/${'a'.repeat(256)}`).ok, false, 'name too long');
  });

  it('accepts image IDs for erase, as it says', () => {
    assert.equal(parseDigestOrId(`sha256:${HEX}`).kind, 'id');
    assert.equal(parseDigestOrId(HEX).kind, 'id');
  });
});
