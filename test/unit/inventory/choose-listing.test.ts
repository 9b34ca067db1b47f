// Which listing a scan of every namespace takes (core/inventory/cluster-scan/choose-listing.ts):
// merged for many small namespaces, one at a time for few large ones, merged when not known.
import assert from 'node:assert/strict';
import {
  listingFor,
  MERGED_MAX_PER_NAMESPACE,
} from '../../../src/core/inventory/cluster-scan/choose-listing.js';

describe('the listing of a scan of every namespace', () => {
  it('is merged for many small namespaces', () => {
    assert.equal(listingFor(40_000, 10_000), 'merged');
    assert.equal(listingFor(MERGED_MAX_PER_NAMESPACE * 10, 10), 'merged');
  });
  it('is one namespace at a time for few large ones', () => {
    assert.equal(listingFor(150_000, 300), 'per-namespace');
    assert.equal(listingFor(MERGED_MAX_PER_NAMESPACE * 10 + 1, 10), 'per-namespace');
  });
  it('is merged when the count is not known, or there is no namespace', () => {
    assert.equal(listingFor(undefined, 300), 'merged');
    assert.equal(listingFor(5, 0), 'merged');
  });
  it('takes another bound', () => {
    assert.equal(listingFor(1, 1, 0), 'per-namespace');
  });
});
