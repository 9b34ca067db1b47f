import assert from 'node:assert/strict';
import { withListedSizes } from '../../../src/core/noderemove/trigger/image-fs.js';

describe('image file system usage when the runtime counts only metadata (CRI-O)', () => {
  const usage = {
    used: 10_553,
    capacity: 1_000_000_000,
    available: 500_000_000,
    mountPoint: '/s/overlay-images',
  };

  it('uses the listed sizes of the distinct images when the count is below the largest image, with a warning', () => {
    const r = withListedSizes(usage, [
      { id: 'a', size: 30_000_000 },
      { id: 'a', size: 30_000_000 },
      { id: 'b', size: 2_000_000 },
    ]);
    assert.equal(r.usage.used, 32_000_000);
    assert.match(
      r.warning!,
      /counts 10553 bytes at \/s\/overlay-images, less than its largest image \(30000000 bytes\)/,
    );
  });

  it("keeps the runtime's count when it can be the images' bytes (containerd)", () => {
    const r = withListedSizes({ ...usage, used: 40_000_000 }, [{ id: 'a', size: 30_000_000 }]);
    assert.equal(r.usage.used, 40_000_000);
    assert.equal(r.warning, undefined);
    assert.equal(withListedSizes(usage, []).usage.used, 10_553);
  });
});
