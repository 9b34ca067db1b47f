// The heap pacer of a long scan (cli/process/heap-pacer.ts): V8's full collection is reachable
// on the Node this runs on, and the pacer asks for it once garbage has piled up.
import assert from 'node:assert/strict';
import { fullCollection, paceHeap } from '../../../src/cli/process/heap-pacer.js';
import { waitFor } from '../../support/cri.js';

describe('heap pacer', () => {
  it('reaches V8’s full collection', () => {
    const gc = fullCollection();
    assert.equal(typeof gc, 'function');
    gc!();
  });

  it('collects once the heap has grown past the slack', async () => {
    const pacer = paceHeap({ everyMs: 10, slackBytes: 8 * 1024 * 1024, liveShare: 0 });
    // 2 MB arrays kept a little while, as a page's text is: garbage the heap grows by.
    const keep: number[][] = [];
    const grow = setInterval(() => {
      keep.push(Array.from({ length: 262_144 }, (_, i) => i + 0.5));
      if (keep.length > 8) keep.shift();
    }, 1);
    try {
      await waitFor('a paced collection', async () => pacer.collections > 0 || undefined);
    } finally {
      clearInterval(grow);
      pacer.stop();
    }
    assert.ok(pacer.collections >= 1);
  });
});
