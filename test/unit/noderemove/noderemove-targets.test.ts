// node-remove targets and exclusions, pure: image ID prefixes (as crictl reads them), garbage
// after `sha256:`, and the warning for an untagged exclusion that misses other tags.
import assert from 'node:assert/strict';
import {
  compileAll,
  decide,
  parseTarget,
  untaggedExclusionWarnings,
  type ImageView,
  type SandboxGuard,
} from '../../../src/core/noderemove/index.js';

const hex = (c: string) => c.repeat(64);
const img = (id: string, repoTags: string[], repoDigests: string[] = []): ImageView => ({
  id,
  repoTags,
  repoDigests,
  pinned: false,
});
const known: SandboxGuard = { determined: true, via: 'status' };

// Two images sharing their first 12 hex digits, one apart.
const twinA = img(`sha256:${'ab12'.repeat(3)}${'1'.repeat(52)}`, ['docker.io/library/twin:a']);
const twinB = img(`sha256:${'ab12'.repeat(3)}${'2'.repeat(52)}`, ['docker.io/library/twin:b']);
const solo = img(`sha256:${'c'.repeat(64)}`, ['quay.io/org/solo:1']);
const images = [twinA, twinB, solo];

const run = (targets: string[], imgs: ImageView[] = images) =>
  decide({ images: imgs, containers: [], targets, exclusions: [], sandbox: known }).map((d) => ({
    target: d.target,
    imageId: d.imageId,
    outcome: d.outcome,
    detail: d.detail,
  }));

describe('node-remove targets: image IDs and prefixes (pure)', () => {
  it('parses 12 to 63 hex digits as an ID prefix, with or without sha256:, and 64 as a full ID', () => {
    assert.deepEqual(parseTarget(`sha256:${'c'.repeat(12)}`), {
      kind: 'id-prefix',
      input: `sha256:${'c'.repeat(12)}`,
      prefix: 'c'.repeat(12),
    });
    assert.deepEqual(parseTarget('c'.repeat(12)), {
      kind: 'id-prefix',
      input: 'c'.repeat(12),
      prefix: 'c'.repeat(12),
      ref: `docker.io/library/${'c'.repeat(12)}:latest`,
    });
    assert.equal(parseTarget(`sha256:${hex('c')}`).kind, 'id');
    assert.equal(parseTarget(hex('c')).kind, 'id');
    // Shorter than 12 bare hex digits stays a name, like before.
    assert.equal(parseTarget('abc123').kind, 'tag');
  });

  it('removes the image an unambiguous 12-hex prefix names, with or without sha256:', () => {
    assert.deepEqual(
      run(['c'.repeat(12), `sha256:${'c'.repeat(20)}`]).map((r) => [r.target, r.imageId, r.outcome]),
      [
        ['c'.repeat(12), solo.id, 'remove'],
        [`sha256:${'c'.repeat(20)}`, solo.id, 'remove'],
      ],
    );
    // One more digit makes the twins' prefix unambiguous.
    assert.equal(run([`sha256:${'ab12'.repeat(3)}1`])[0]!.imageId, twinA.id);
  });

  it('refuses an ambiguous prefix as invalid, naming the matches', () => {
    const [r] = run(['ab12'.repeat(3)]);
    assert.equal(r!.outcome, 'invalid');
    assert.match(r!.detail, /ambiguous image ID prefix/);
    assert.ok(r!.detail.includes(twinA.id) && r!.detail.includes(twinB.id), r!.detail);
    assert.ok(r!.detail.includes('docker.io/library/twin:a'), r!.detail);
  });

  it('reports a prefix that matches nothing as not-present', () => {
    assert.equal(run([`sha256:${'0'.repeat(12)}`])[0]!.outcome, 'not-present');
  });

  it('prefers the name reading of bare hex when such a tag exists (as containerd resolves it)', () => {
    const named = img(`sha256:${hex('e')}`, [`docker.io/library/${'c'.repeat(12)}:latest`]);
    assert.equal(run(['c'.repeat(12)], [...images, named])[0]!.imageId, named.id);
  });

  it('rejects sha256: followed by anything but 12-64 lowercase hex digits, naming the rule', () => {
    for (const bad of [
      `sha256:${hex('c')}X`,
      `sha256:${hex('c')}0`,
      `sha256:${'c'.repeat(11)}`,
      'sha256:',
      'sha256:latest',
    ]) {
      const [r] = run([bad]);
      assert.equal(r!.outcome, 'invalid', bad);
      assert.match(r!.detail, /sha256: followed by 12 to 64 lowercase hex digits/, bad);
    }
    assert.match(run([`sha256:${'C'.repeat(64)}`])[0]!.detail, /lowercase/);
    // A repository really named sha256 is still reachable, written out in full.
    assert.equal(parseTarget('docker.io/library/sha256:latest').kind, 'tag');
  });
});

describe('node-remove: warning for an exclusion without a tag (pure)', () => {
  const delta1 = img(`sha256:${hex('1')}`, ['docker.io/library/delta:1.0']);
  const delta2 = img(
    `sha256:${hex('2')}`,
    ['docker.io/library/delta:2.0'],
    [`docker.io/library/delta@sha256:${hex('9')}`],
  );
  const deltaLatest = img(`sha256:${hex('3')}`, ['docker.io/library/delta:latest']);
  const other = img(`sha256:${hex('4')}`, ['docker.io/library/deltaforce:1']);
  const warn = (patterns: string[], imgs: ImageView[]) =>
    untaggedExclusionWarnings(compileAll(patterns), imgs);

  it('warns when an untagged pattern matches nothing but other tags of its repository exist', () => {
    const [w, ...rest] = warn(['delta'], [delta1, delta2, other]);
    assert.deepEqual(rest, []);
    assert.match(w!, /exclusion "delta" has no tag, so it protects only docker\.io\/library\/delta:latest/);
    assert.ok(w!.includes('docker.io/library/delta:1.0') && w!.includes('docker.io/library/delta:2.0'), w);
    assert.ok(!w!.includes('deltaforce'), 'another repository is not "the same repository"');
    assert.match(w!, /Write "delta:\*"/);
  });

  it('stays silent when the pattern matches, has a tag, digest or a wildcard repository, or no other tag exists', () => {
    assert.deepEqual(warn(['delta'], [delta1, deltaLatest]), []);
    assert.deepEqual(
      warn(['delta:1.0', 'delta:*', `delta@sha256:${hex('9')}`, 'docker.io/library/*'], [delta1, delta2]),
      [],
    );
    assert.deepEqual(warn(['delta'], [other]), []);
  });

  it('keeps the documented meaning: an untagged exclusion protects only :latest', () => {
    const out = decide({
      images: [delta1, deltaLatest],
      containers: [],
      targets: ['*'],
      exclusions: compileAll(['delta']),
      sandbox: known,
    }).map((d) => [d.imageId, d.outcome]);
    assert.deepEqual(out, [
      [delta1.id, 'remove'],
      [deltaLatest.id, 'excluded'],
    ]);
  });
});
