// Targets and exclusions end to end, against the run's real containerd: image ID prefixes as
// crictl shows them, garbage after a full `sha256:` ID, and the warning for an exclusion
// without a tag that misses the tags the node has.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { CriClient } from '../../src/core/cri/index.js';
import { connect, criAvailable, criEndpoint, RUNTIMES, useRuntime, waitForImages } from '../support/cri.js';
import { addImages, type BuiltImage } from '../support/oci.js';
import { outcomes, runNodeRemove } from './helpers.js';

for (const runtime of RUNTIMES)
  describe(`inv node-remove targets against a real containerd [${runtime}]`, function () {
    before(() => useRuntime(runtime));
    after(() => useRuntime('containerd'));
    let cri: CriClient;
    let endpoint: string;
    const run = randomBytes(3).toString('hex');
    const repo = (name: string) => `docker.io/invtest${run}/${name}`;
    const created: BuiltImage[] = [];

    before(async function () {
      if (!criAvailable()) this.skip();
      endpoint = criEndpoint();
      cri = await connect();
    });

    after(async () => {
      if (!cri) return;
      for (const b of created) await cri.removeImage(b.id).catch(() => undefined);
      cri.close();
    });

    async function images(...names: string[]): Promise<BuiltImage[]> {
      const built = await addImages(names.map((n, i) => ({ refs: [n], distinct: `${run}-${n}-${i}` })));
      created.push(...built);
      await waitForImages(
        cri,
        built.map((b) => b.id),
      );
      return built;
    }

    const present = async (id: string) => (await cri.listImages()).some((i) => i.id === id);

    it('removes images named by a 12-hex short ID and by sha256: plus 12 hex digits', async () => {
      const [bare, prefixed] = await images(`${repo('short-bare')}:1`, `${repo('short-prefixed')}:1`);
      const short = bare!.id.slice(7, 19);
      const shortPrefixed = prefixed!.id.slice(0, 19);
      const r = await runNodeRemove(endpoint, ['--images', `${short},${shortPrefixed}`, '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(outcomes(r), { [short]: 'removed', [shortPrefixed]: 'removed' });
      assert.equal(r.json!.results[0]!.imageId, bare!.id);
      assert.equal(r.json!.results[1]!.imageId, prefixed!.id);
      assert.equal(await present(bare!.id), false);
      assert.equal(await present(prefixed!.id), false);
    });

    it('reports garbage after a full sha256: ID as invalid (exit 2), naming the rule', async () => {
      const [img] = await images(`${repo('garbage')}:1`);
      const target = `${img!.id}X`;
      const r = await runNodeRemove(endpoint, ['--images', target, '-o', 'json']);
      assert.equal(r.code, 2);
      assert.deepEqual(outcomes(r), { [target]: 'invalid' });
      assert.match(r.json!.results[0]!.error, /sha256: followed by 12 to 64 lowercase hex digits/);
      assert.ok(await present(img!.id));
    });

    it('warns (stderr and JSON) when an exclusion without a tag misses the tags of its repository', async () => {
      const [one, two] = await images(`${repo('delta')}:1.0`, `${repo('delta')}:2.0`);
      const shortRepo = `invtest${run}/delta`;
      const r = await runNodeRemove(endpoint, [
        '--images',
        `${repo('delta')}:1.0`,
        '--exclude',
        shortRepo,
        '--dry-run',
        '-o',
        'json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      // Documented meaning unchanged: the exclusion is delta:latest, so 1.0 is not protected.
      assert.deepEqual(outcomes(r), { [`${repo('delta')}:1.0`]: 'would-remove' });
      assert.equal(r.json!.warnings.length, 1, JSON.stringify(r.json!.warnings));
      const [w] = r.json!.warnings;
      assert.match(
        w!,
        new RegExp(`exclusion "${shortRepo}" has no tag, so it protects only ${repo('delta')}:latest`),
      );
      assert.ok(w!.includes(`${repo('delta')}:1.0`) && w!.includes(`${repo('delta')}:2.0`), w);
      assert.ok(r.stderr.includes(`warning: ${w}`), r.stderr);
      // With `:*` it protects every tag, and says nothing.
      const ok = await runNodeRemove(endpoint, [
        '--images',
        `${repo('delta')}:1.0`,
        '--exclude',
        `${shortRepo}:*`,
        '-o',
        'json',
      ]);
      assert.deepEqual(outcomes(ok), { [`${repo('delta')}:1.0`]: 'excluded' });
      assert.deepEqual(ok.json!.warnings, []);
      assert.ok(await present(one!.id));
      assert.ok(await present(two!.id));
    });
  });
