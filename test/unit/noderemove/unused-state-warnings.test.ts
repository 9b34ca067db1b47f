import { strict as assert } from 'node:assert';
import { parseState } from '../../../src/core/noderemove/trigger/unused-state.js';
import { formatPercent } from '../../../src/core/noderemove/trigger/image-fs.js';

// Issue 39: a corrupt record's bytes never reach a warning; small percentages keep their digits.
describe('unused-image record warnings and percent formatting', () => {
  const secret = 'SECRETBYTES\u001b[31m';
  it('does not echo the bytes of a record that is not JSON', () => {
    const r = parseState(`{"x": ${secret}`, Date.now());
    assert.ok(r.warning?.includes('not valid JSON'), r.warning);
    assert.ok(!r.warning?.includes('SECRET'), r.warning);
  });
  it('does not echo a bad entry key or an odd format', () => {
    const bad = JSON.stringify({
      format: 'inv.imageinventory.dev/unused-images/v1',
      images: { [secret]: 1 },
    });
    const r = parseState(bad, Date.now());
    assert.ok(r.warning?.includes('entry 1 of 1'), r.warning);
    assert.ok(!r.warning?.includes('SECRET'), r.warning);
    const f = parseState(JSON.stringify({ format: secret, images: {} }), Date.now());
    assert.ok(!f.warning?.includes('SECRET'), f.warning);
  });
  it('keeps two significant digits under 1%', () => {
    assert.equal(formatPercent(0.0072), '0.0072%');
    assert.equal(formatPercent(0.0068), '0.0068%');
    assert.equal(formatPercent(41.234), '41.23%');
    assert.equal(formatPercent(0), '0.00%');
    assert.equal(formatPercent(1.2e-7), '0.00000012%');
    assert.equal(formatPercent(0.5), '0.50%');
  });
});
