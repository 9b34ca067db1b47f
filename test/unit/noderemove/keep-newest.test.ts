// Keep the newest N of each repository (--keep-newest, spec.keepNewest) as pure logic: tags read
// as versions, the order of a repository (version, else creation time, else tag), the ranks, what
// the worker makes of the `*` decisions, and the bounds of N.
import assert from 'node:assert/strict';
import { compareNatural, compareVersions, parseTagVersion } from '../../../src/core/refs/tag-version.js';
import {
  applyKeepNewest,
  createdFromInfo,
  keptNewest,
  needCreated,
} from '../../../src/core/noderemove/remove/keep-newest.js';
import { MAX_KEEP_NEWEST, parseKeepNewest } from '../../../src/core/contract/keep-newest-bound.js';
import { narrowingProblems } from '../../../src/core/erase/spec/images.js';
import { completeNarrowing } from '../../../src/cli/erase/scope-flags.js';
import type { ImageView } from '../../../src/core/noderemove/remove/in-use.js';
import type { Decision } from '../../../src/core/noderemove/types.js';

const id = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
const img = (n: number, ...repoTags: string[]): ImageView => ({
  id: id(n),
  repoTags,
  repoDigests: [],
  pinned: false,
});
const app = (n: number, tag: string) => img(n, `docker.io/library/app:${tag}`);
const removal = (image: ImageView, target = '*'): Decision => ({
  target,
  imageId: image.id,
  aliases: [...image.repoTags, image.id],
  size: 1,
  action: 'remove',
  outcome: 'remove',
  detail: '',
});

describe('tags as versions', () => {
  it('reads SemVer with a leading v and missing minor or patch; refuses the rest', () => {
    assert.deepEqual(parseTagVersion('1.4')?.core, [1, 4, 0]);
    assert.deepEqual(parseTagVersion('v2.0.1')?.core, [2, 0, 1]);
    assert.deepEqual(parseTagVersion('3')?.core, [3, 0, 0]);
    assert.deepEqual(parseTagVersion('1.0.0-rc.1')?.pre, ['rc', '1']);
    for (const bad of ['latest', '2024-05-01', '1.0+b7', '1.2.3.4', '01.2', 'v', '1.0.0-01', ''])
      assert.equal(parseTagVersion(bad), undefined, bad);
  });
  it('orders by SemVer precedence (a release after its pre-releases; build metadata ignored)', () => {
    const sorted = [
      '1.10',
      '1.2',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '2.0.0+b7',
      '0.9',
    ].sort((a, b) => compareVersions(parseTagVersion(a)!, parseTagVersion(b)!));
    assert.deepEqual(sorted, [
      '0.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-rc.1',
      '1.0.0',
      '1.2',
      '1.10',
      '2.0.0+b7',
    ]);
    assert.equal(compareVersions(parseTagVersion('1.0.0+a')!, parseTagVersion('1.0.0+b')!), 0);
  });
  it('the fallback order compares digits as numbers', () => {
    assert.deepEqual(['build-10', 'build-9', 'build-009a', 'alpha'].sort(compareNatural), [
      'alpha',
      'build-9',
      'build-009a',
      'build-10',
    ]);
  });
});

describe('keep-newest', () => {
  const five = [app(10, '1.0'), app(11, '1.1'), app(12, '1.2'), app(13, '1.3'), app(14, '1.4')];

  it('keeps the N newest of each repository by version; the older ones stay candidates', () => {
    const out = applyKeepNewest(
      five.map((i) => removal(i)),
      five,
      2,
    );
    assert.deepEqual(
      out.map((d) => d.outcome),
      ['remove', 'remove', 'remove', 'kept-newest', 'kept-newest'],
    );
    assert.equal(out[4]!.detail, 'newest 1 of 5 in docker.io/library/app (by version)');
    assert.equal(out[3]!.detail, 'newest 2 of 5 in docker.io/library/app (by version)');
  });

  it('an image in use counts in the ranking and keeps its own outcome; named targets are untouched', () => {
    const decisions = five.map((i) => removal(i));
    decisions[4] = { ...decisions[4]!, action: 'keep', outcome: 'in-use' };
    decisions.push(removal(five[3]!, 'docker.io/library/app:1.3'));
    const out = applyKeepNewest(decisions, five, 2);
    assert.deepEqual(
      out.map((d) => d.outcome),
      ['remove', 'remove', 'remove', 'kept-newest', 'in-use', 'remove'],
    );
  });

  it('a tag that is not a version: by creation time when the runtime gives every one, else by tag', () => {
    const imgs = [app(1, '1.0'), app(2, 'latest'), app(3, '0.9')];
    assert.deepEqual(needCreated(imgs, 2).sort(), [id(1), id(2), id(3)]);
    assert.deepEqual(needCreated(five, 2), [], 'versions need no creation time');
    assert.deepEqual(needCreated(imgs, 3), [], 'a repository of N or fewer needs none');
    const created = new Map([
      [id(1), 3000],
      [id(2), 2000],
      [id(3), 1000],
    ]);
    const byTime = keptNewest(imgs, 1, created);
    assert.deepEqual([...byTime], [[id(1), 'newest 1 of 3 in docker.io/library/app (by created)']]);
    const byTag = keptNewest(imgs, 1, new Map([[id(1), 3000]]));
    assert.deepEqual([...byTag], [[id(2), 'newest 1 of 3 in docker.io/library/app (by tag)']]);
  });

  it('repositories apart; an image in two repositories is kept by either; a nameless image by none', () => {
    const imgs = [
      img(1, 'ci.example.com/a:1', 'ci.example.com/b:9'),
      img(2, 'ci.example.com/a:2'),
      img(3, 'ci.example.com/b:10'),
      { id: id(4), repoTags: [], repoDigests: [], pinned: false },
    ];
    const kept = keptNewest(imgs, 1, new Map());
    assert.deepEqual([...kept.keys()].sort(), [id(2), id(3)]);
    const kept2 = keptNewest(imgs, 2, new Map());
    assert.equal(kept2.get(id(1)), 'newest 2 of 2 in ci.example.com/a (by version)');
    assert.equal(kept2.has(id(4)), false);
  });

  it("reads the creation time from ImageStatus's verbose info (containerd's and CRI-O's imageSpec.created)", () => {
    const info = { info: JSON.stringify({ imageSpec: { created: '2026-01-02T03:04:05Z' } }) };
    assert.equal(createdFromInfo(info), Date.parse('2026-01-02T03:04:05Z'));
    assert.equal(createdFromInfo({}), undefined);
    assert.equal(createdFromInfo({ info: '{not json' }), undefined);
    assert.equal(createdFromInfo({ info: '{"imageSpec":{}}' }), undefined);
  });

  it('N: a whole number from 1 to the bound, refused otherwise with the reason', () => {
    assert.equal(parseKeepNewest(' 2 ', '--keep-newest'), 2);
    assert.throws(() => parseKeepNewest('0', '--keep-newest'), /at least 1 \(0 would keep no version/);
    assert.throws(() => parseKeepNewest('-3', '--keep-newest'), /at least 1/);
    assert.throws(() => parseKeepNewest('2.5', '--keep-newest'), /whole number from 1 to 1000, got "2.5"/);
    assert.throws(() => parseKeepNewest('two', '--keep-newest'), /whole number/);
    assert.throws(() => parseKeepNewest(String(MAX_KEEP_NEWEST + 1), '--keep-newest'), /at most 1000/);
    assert.throws(() => parseKeepNewest('99999999999999999999', '--keep-newest'), /whole number/);
    assert.deepEqual(narrowingProblems({ images: ['*'], keepNewest: 0 }), [
      'spec.keepNewest must be at least 1 (0 would keep no version: use a plain prune)',
    ]);
    const r = completeNarrowing({ only: undefined, except: undefined, 'keep-newest': '1001' }, ['*']);
    assert.deepEqual(r.problems, ['--keep-newest must be at most 1000, got "1001"']);
    assert.deepEqual(
      completeNarrowing({ only: undefined, except: undefined, 'keep-newest': '2' }, ['*']).spec,
      { keepNewest: 2 },
    );
  });
});
