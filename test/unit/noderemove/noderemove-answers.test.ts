// Pure: node-remove with runtime answers it cannot take at face value (runtime-answers.ts):
// a container that names no image refuses every removal on the node; an image without an ID is
// never removed; entries sharing one ID are one image, with all their names.
import assert from 'node:assert/strict';
import {
  compileAll,
  decide,
  DEFAULT_SANDBOX_EXCLUSIONS,
  execute,
  runtimeAnswerWarnings,
  vetImages,
  type ContainerView,
  type ImageView,
  type SandboxGuard,
} from '../../../src/core/noderemove/index.js';
import { hex, img } from '../../noderemove/fixtures.js';

const known: SandboxGuard = { determined: true, via: 'status', detail: 'registry.k8s.io/pause:3.9' };
const images = Array.from({ length: 20 }, (_, i) => img(String.fromCharCode(97 + i), [`app-${i}:1`]));
const garbage: ContainerView = {
  id: 'c0ffee0000001111',
  image: '',
  imageRef: '',
  imageId: '',
  state: 'CONTAINER_RUNNING',
};
const run = (targets: string[], imgs: ImageView[], containers: ContainerView[] = []) =>
  decide({
    images: imgs,
    containers,
    targets,
    exclusions: [],
    sandboxImages: compileAll(DEFAULT_SANDBOX_EXCLUSIONS),
    sandbox: known,
  });

describe('node-remove: runtime answers that cannot be taken at face value (pure)', () => {
  it('a container with no image name refuses every removal on the node, with the reason', () => {
    const d = run(['*', 'app-3:1'], images, [garbage]);
    assert.equal(d.length, 21);
    assert.ok(d.every((x) => x.action === 'keep' && x.outcome === 'failed'));
    assert.match(
      d[0]!.detail,
      /container c0ffee0000001 \(CONTAINER_RUNNING\) with no image .*nothing is removed on this node this run/,
    );
    // Only removals are refused: what is kept for a reason stays reported as such.
    const used = { id: 'c2', imageRef: images[0]!.id };
    assert.deepEqual(
      run(['app-0:1', 'app-1:1'], images, [used, garbage]).map((x) => x.outcome),
      ['in-use', 'failed'],
    );
    // Whitespace is no name either; one usable field is enough.
    assert.equal(run(['app-1:1'], images, [{ id: 'c3', image: ' ', imageRef: '' }])[0]!.outcome, 'failed');
    assert.equal(
      run(['app-1:1'], images, [{ id: 'c4', image: 'other:1', imageRef: '' }])[0]!.outcome,
      'remove',
    );
    assert.match(
      runtimeAnswerWarnings(images, [garbage, { ...garbage, id: 'x' }])[0]!,
      /and 1 more with no image/,
    );
  });

  it('the executor refuses too when such a container appears after the decision', async () => {
    const removed: string[] = [];
    const results = await execute(
      {
        listContainers: async () => [garbage],
        listSandboxes: async () => [],
        removeImage: async (ref) => void removed.push(ref),
      },
      run(['app-2:1'], images),
      { dryRun: false },
    );
    assert.deepEqual(removed, []);
    assert.equal(results[0]!.outcome, 'failed');
    assert.match(results[0]!.error, /nothing is removed on this node this run/);
  });

  it('an image without an ID is never removed (no RemoveImage("")), whatever matches it', async () => {
    const noId = { ...img('z', ['ghost:1']), id: '' };
    const d = run(['*', 'ghost:1'], [images[0]!, noId]);
    assert.deepEqual(
      d.map((x) => [x.target, x.imageId, x.outcome]),
      [
        ['*', images[0]!.id, 'remove'],
        ['*', '', 'failed'],
        ['ghost:1', '', 'failed'],
      ],
    );
    assert.match(d[1]!.detail, /without an ID, and inv removes images only by ID/);
    assert.deepEqual(d[1]!.aliases, ['ghost:1']);
    const removed: string[] = [];
    const forced = await execute(
      {
        listContainers: async () => [],
        listSandboxes: async () => [],
        removeImage: async (r) => void removed.push(r),
      },
      [{ ...d[1]!, action: 'remove', outcome: 'remove' }],
      { dryRun: false },
    );
    assert.deepEqual(removed, []);
    assert.equal(forced[0]!.outcome, 'failed');
    assert.match(runtimeAnswerWarnings([noId], [])[0]!, /1 image\(s\) without an ID/);
  });

  it('entries sharing one ID are one image: every alias on its row, one pin pins it, removed once', () => {
    const a = img('d', ['one:1'], { repoDigests: [`one@sha256:${hex('1')}`], size: 10 });
    const b = img('d', ['two:2'], { size: 12 });
    const v = vetImages([a, b]);
    assert.equal(v.images.length, 1);
    assert.deepEqual(v.duplicates, [{ id: a.id, count: 2 }]);
    const d = run(['two:2', 'one:1'], [a, b]);
    assert.deepEqual(
      d.map((x) => [x.target, x.outcome, x.aliases]),
      [
        ['two:2', 'remove', ['one:1', 'two:2', `one@sha256:${hex('1')}`, a.id]],
        ['one:1', 'remove', ['one:1', 'two:2', `one@sha256:${hex('1')}`, a.id]],
      ],
    );
    assert.equal(d[0]!.size, 12);
    assert.equal(run(['one:1'], [a, { ...b, pinned: true }])[0]!.outcome, 'pinned');
    assert.match(runtimeAnswerWarnings([a, b], [])[0]!, /lists image sha256:d+ 2 times/);
  });
});
