// src/hooks/command-not-found.ts: "did you mean" by edit distance.
import assert from 'node:assert/strict';
import { distance, suggestions } from '../../../src/hooks/command-not-found.js';

describe('command suggestions', () => {
  it('measures edits', () => {
    assert.equal(distance('scna', 'scan'), 2);
    assert.equal(distance('scan', 'scan'), 0);
    assert.equal(distance('', 'abc'), 3);
    assert.equal(distance('imgaes', 'images'), 2);
  });

  it('suggests commands within two edits or starting with the word, closest first', () => {
    const commands = ['check', 'erase', 'erase status', 'images', 'install', 'scan', 'uninstall', 'version'];
    assert.deepEqual(suggestions('scna', commands), ['scan']);
    assert.deepEqual(suggestions('erase stat', commands), ['erase status']);
    assert.deepEqual(suggestions('imges', commands), ['images']);
    assert.deepEqual(suggestions('xyzzy', commands), []);
  });
});
