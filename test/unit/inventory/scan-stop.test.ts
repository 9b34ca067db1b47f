// Stopping `inv scan` between namespaces (src/core/inventory/scan-stop.ts): no write phase starts
// after stop(), and stop() resolves only once the ones in progress have left.
import assert from 'node:assert/strict';
import { ScanStop } from '../../../src/core/inventory/scan-stop.js';

describe('ScanStop', () => {
  it('resolves at once when nothing is being written', async () => {
    const s = new ScanStop();
    await s.stop();
    assert.equal(s.isStopped, true);
    assert.equal(s.enter(), false);
    assert.equal(s.written, 0);
  });

  it('waits for every namespace being written, counts the completed ones', async () => {
    const s = new ScanStop();
    assert.equal(s.enter(), true);
    assert.equal(s.enter(), true);
    let resolved = false;
    const stopped = s.stop().then(() => (resolved = true));
    assert.equal(s.enter(), false, 'no namespace starts once stopped');
    s.leave(true);
    await Promise.resolve();
    assert.equal(resolved, false, 'one namespace is still being written');
    s.leave(false);
    await stopped;
    assert.equal(s.written, 1, 'a write phase that threw is not counted as written');
  });
});
