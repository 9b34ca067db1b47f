// The threshold and minimum-age rules of a `*` prune (pure): the removal order, the node's record
// of unused images (missing, corrupt and older records fail closed), and what the trigger keeps.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removalOrder, takeUntil } from '../../../src/core/noderemove/trigger/removal-order.js';
import {
  parseState,
  serializeState,
  STATE_FORMAT,
  updateState,
  withoutImages,
} from '../../../src/core/noderemove/trigger/unused-state.js';
import {
  readStateFile,
  STATE_FILE,
  writeStateFile,
} from '../../../src/core/noderemove/trigger/unused-state-file.js';
import { applyTrigger } from '../../../src/core/noderemove/trigger/trigger.js';
import { formatDurationMs, parseDurationMs } from '../../../src/core/duration.js';
import { pendingResult, resultFromPod } from '../../../src/core/contract/results.js';
import { imageFsSummary } from '../../../src/core/contract/trigger-results.js';
import { decodeNode, toNodeStatus } from '../../../src/core/erase/api/node-status.js';
import type { Decision } from '../../../src/core/noderemove/types.js';
import { parseQuantity, prescreenFacts, surelyBelow } from '../../../src/core/erase/nodes/prescreen.js';
import { selectNodes } from '../../../src/core/erase/nodes/selection.js';
import { DEFAULT_CONFIG } from '../../../src/core/erase/config/config.js';
import { stripNode } from '../../../src/core/erase/cluster/reader.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('removal order (never seen in use, longest unused, largest)', () => {
  const c = (imageId: string, size: number, seenInUse: boolean, unusedSinceMs?: number) => ({
    imageId,
    size,
    seenInUse,
    unusedSinceMs,
  });
  it('puts images never seen in use first, then the longest unused, then the largest, then by ID', () => {
    const order = removalOrder([
      c('a', 10, true, NOW - 9 * DAY),
      c('b', 5, false, NOW - DAY),
      c('c', 50, false, NOW - DAY),
      c('d', 1, false, NOW - 3 * DAY),
      c('e', 99, true, NOW - 2 * DAY),
      c('f', 7, true, undefined),
      c('g', 50, false, NOW - DAY),
    ]).map((x) => x.imageId);
    assert.deepEqual(order, ['d', 'c', 'g', 'b', 'a', 'e', 'f']);
  });
  it('takes candidates until their sizes reach the bytes to free, then stops', () => {
    const o = [c('x', 30, false), c('y', 20, false), c('z', 10, false)];
    assert.deepEqual(
      takeUntil(o, 0).map((x) => x.imageId),
      [],
    );
    assert.deepEqual(
      takeUntil(o, 30).map((x) => x.imageId),
      ['x'],
    );
    assert.deepEqual(
      takeUntil(o, 31).map((x) => x.imageId),
      ['x', 'y'],
    );
    assert.deepEqual(
      takeUntil(o, 1000).map((x) => x.imageId),
      ['x', 'y', 'z'],
    );
  });
});

describe('the record of unused images', () => {
  it('starts the clock of an unused image, keeps it, resets it when the image is used again, drops gone images', () => {
    const first = updateState(
      new Map(),
      [
        { imageId: 'a', inUse: false },
        { imageId: 'b', inUse: true },
      ],
      NOW,
    );
    assert.deepEqual(first.get('a'), { seenInUse: false, unusedSince: NOW });
    assert.deepEqual(first.get('b'), { seenInUse: true });
    const later = updateState(
      first,
      [
        { imageId: 'a', inUse: false },
        { imageId: 'b', inUse: false },
      ],
      NOW + DAY,
    );
    assert.equal(later.get('a')!.unusedSince, NOW, 'the first time is kept');
    assert.deepEqual(later.get('b'), { seenInUse: true, unusedSince: NOW + DAY });
    const used = updateState(later, [{ imageId: 'a', inUse: true }], NOW + 2 * DAY);
    assert.deepEqual(used.get('a'), { seenInUse: true }, 'in use again: clock reset');
    assert.equal(used.has('b'), false, 'gone: dropped');
    assert.equal(withoutImages(later, ['a']).has('a'), false);
  });
  it('round-trips through its text', () => {
    const s = updateState(
      new Map(),
      [
        { imageId: 'sha256:1', inUse: false },
        { imageId: 'sha256:2', inUse: true },
      ],
      NOW,
    );
    const read = parseState(serializeState(s), NOW + 1);
    assert.equal(read.trusted, true);
    assert.equal(read.warning, undefined);
    assert.deepEqual([...read.state], [...s]);
  });
  for (const [what, text, why] of [
    ['missing', undefined, /no record of unused images/],
    ['corrupt JSON', '{"format": "inv', /corrupt/],
    ['not an object', '[1,2]', /corrupt/],
    // A corrupt record's bytes never reach the warning (escape sequences, a disguised format).
    ['corrupt JSON with escapes', '\u001b[2J{', /^\P{Cc}*corrupt \(not valid JSON, 5 bytes\)\P{Cc}*$/u],
    [
      'a hostile format',
      JSON.stringify({ format: '\u001b]0;x\u0007', images: {} }),
      /^\P{Cc}*format of another kind\P{Cc}*$/u,
    ],
    ['an older format', JSON.stringify({ images: { a: '2026-01-01' } }), /format none.*older or unknown/],
    ['another format', JSON.stringify({ format: 'inv/v0', images: {} }), /format "inv\/v0"/],
    [
      'a bad entry',
      JSON.stringify({ format: STATE_FORMAT, images: { a: { unusedSince: 'yesterday', seenInUse: false } } }),
      /corrupt \(entry 1 of 1\)/,
    ],
    [
      'a time in the future',
      JSON.stringify({
        format: STATE_FORMAT,
        images: { a: { unusedSince: '2027-01-01T00:00:00Z', seenInUse: false } },
      }),
      /future/,
    ],
  ] as const) {
    it(`fails closed when ${what}: nothing counts as unused for long, with a warning`, () => {
      const read = parseState(text, NOW);
      assert.equal(read.trusted, false);
      assert.match(read.warning ?? '', why);
      assert.match(read.warning ?? '', /no image counts as unused for long this run/);
      // Nothing aged: every image starts its clock now, and a 1d minimum keeps them all.
      const state = updateState(read.state, [{ imageId: 'a', inUse: false }], NOW);
      const out = applyTrigger({
        decisions: [dec('a', 10)],
        state,
        now: NOW,
        options: { minUnusedAgeMs: DAY },
      });
      assert.equal(out[0]!.outcome, 'recently-unused');
    });
  }
  it('is written owner-only in an owner-only folder, replaced whole, and read back', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'inv-state-')), 'inv');
    try {
      const s = updateState(new Map(), [{ imageId: 'sha256:1', inUse: false }], NOW);
      writeStateFile(dir, s);
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
      assert.equal(fs.statSync(path.join(dir, STATE_FILE)).mode & 0o777, 0o600);
      assert.deepEqual([...readStateFile(dir, NOW).state], [...s]);
      assert.deepEqual(fs.readdirSync(dir), [STATE_FILE], 'no temporary file left');
      fs.writeFileSync(path.join(dir, STATE_FILE), 'garbage');
      assert.match(readStateFile(dir, NOW).warning ?? '', /corrupt.*unused-images\.json/);
      fs.rmSync(path.join(dir, STATE_FILE));
      fs.symlinkSync('/etc/passwd', path.join(dir, STATE_FILE));
      const link = readStateFile(dir, NOW);
      assert.equal(link.trusted, false);
      assert.match(link.warning ?? '', /not a regular file/);
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});

function dec(imageId: string, size: number, action: Decision['action'] = 'remove'): Decision {
  return {
    target: '*',
    imageId,
    aliases: [imageId],
    size,
    action,
    outcome: action === 'remove' ? 'remove' : 'in-use',
    detail: '',
  };
}

describe('the trigger (thresholds and minimum age)', () => {
  const state = updateState(
    new Map([
      ['old', { seenInUse: true, unusedSince: NOW - 9 * DAY }],
      ['new', { seenInUse: false, unusedSince: NOW - 2 * 3_600_000 }],
      ['big', { seenInUse: false, unusedSince: NOW - DAY }],
    ]),
    [
      { imageId: 'old', inUse: false },
      { imageId: 'new', inUse: false },
      { imageId: 'big', inUse: false },
      { imageId: 'run', inUse: true },
    ],
    NOW,
  );
  const decisions = [dec('old', 100), dec('new', 40), dec('big', 300), dec('run', 50, 'keep')];
  const usage = (used: number) => ({
    used,
    capacity: 1000,
    available: 500,
    mountPoint: '/var/lib/containerd',
  });
  it('below the high mark removes nothing: below-threshold with the usage', () => {
    const out = applyTrigger({
      decisions,
      state,
      now: NOW,
      options: { imageFs: { highPercent: 80, lowPercent: 70 } },
      usage: usage(799),
    });
    assert.deepEqual(
      out.map((d) => d.outcome),
      ['below-threshold', 'below-threshold', 'below-threshold', 'in-use'],
    );
    assert.match(out[0]!.detail, /at 79\.90%, under 80%/);
  });
  it('at or above the high mark removes in order down to the low mark, then stops', () => {
    const out = applyTrigger({
      decisions,
      state,
      now: NOW,
      options: { imageFs: { highPercent: 80, lowPercent: 70 } },
      usage: usage(1000),
    });
    // 300 bytes to free: big (never seen in use, unused 1d) = 300 is enough.
    const byId = Object.fromEntries(out.map((d) => [d.imageId, d.outcome]));
    assert.deepEqual(byId, {
      big: 'remove',
      new: 'low-mark-reached',
      old: 'low-mark-reached',
      run: 'in-use',
    });
    assert.equal(out[0]!.imageId, 'big', 'removals first, in removal order');
    const more = applyTrigger({
      decisions,
      state,
      now: NOW,
      options: { imageFs: { highPercent: 80, lowPercent: 50 } },
      usage: usage(900),
    });
    // 400 to free: big (300), then new (never seen in use), 340 < 400, then old.
    assert.deepEqual(
      more.filter((d) => d.action === 'remove').map((d) => d.imageId),
      ['big', 'new', 'old'],
    );
  });
  it('fails closed when usage is unknown', () => {
    const out = applyTrigger({
      decisions,
      state,
      now: NOW,
      options: { imageFs: { highPercent: 1, lowPercent: 0 } },
      usage: new Error('no statfs'),
    });
    assert.ok(
      out
        .filter((d) => d.imageId !== 'run')
        .every((d) => d.outcome === 'failed' && /usage unknown: no statfs/.test(d.detail)),
    );
  });
  it('keeps images unused for less than the minimum age and says how long', () => {
    const out = applyTrigger({ decisions, state, now: NOW, options: { minUnusedAgeMs: 7 * DAY } });
    const byId = Object.fromEntries(out.map((d) => [d.imageId, d]));
    assert.equal(byId.old!.action, 'remove');
    assert.equal(byId.old!.unusedForMs, 9 * DAY);
    assert.equal(byId.new!.outcome, 'recently-unused');
    assert.equal(byId.new!.detail, 'unused for 2h, under 7d');
    assert.equal(byId.big!.detail, 'unused for 1d, under 7d');
  });
  it('reads 7d and prints ages as people read them', () => {
    assert.equal(parseDurationMs('7d', 'x'), 7 * DAY);
    assert.equal(parseDurationMs('1d12h', 'x'), 1.5 * DAY);
    assert.equal(formatDurationMs(9 * DAY + 5_000_000), '9d');
    assert.equal(formatDurationMs(DAY + 6 * 3_600_000), '1d6h');
    assert.equal(formatDurationMs(40_000), '40s');
    assert.equal(formatDurationMs(10), '0s');
  });
});

describe('node results of a threshold run', () => {
  it('reads the worker summary, keeps the fields through the status line, and summarizes per node', () => {
    const r = resultFromPod('node-1', {
      phase: 'Succeeded',
      message: JSON.stringify({
        node: 'node-1',
        counts: { removed: 2, 'low-mark-reached': 1, 'recently-unused': 3 },
        bytes: 20,
        fs: { u: 812, c: 1000, a: 699 },
      }),
    });
    assert.deepEqual(
      { u: r.imageFsBefore, a: r.imageFsAfter, b: r.belowThreshold, y: r.recentlyUnused },
      { u: 8120, a: 6990, b: 1, y: 3 },
    );
    assert.deepEqual(decodeNode(JSON.parse(JSON.stringify(toNodeStatus(r)))), r);
    const plain = pendingResult('node-2');
    assert.deepEqual(
      Object.keys(toNodeStatus(plain)),
      ['node', 'outcome'],
      'a plain run stores no trigger field',
    );
    assert.equal(
      imageFsSummary([r, plain, { ...r, node: 'node-3', imageFsAfter: 8120 }]),
      'node-1 81.20%->69.90%, node-3 81.20%',
    );
    const many = Array.from({ length: 30 }, (_, i) => ({ ...r, node: `node-${i}` }));
    const s = imageFsSummary(many);
    assert.ok(s.length <= 200 && /\+\d+ more$/.test(s), s);
  });
});

describe("the controller's screen (no worker for a node surely under the high mark)", () => {
  const node = (name: string, images: number, size: number, capacity?: string) =>
    stripNode({
      metadata: { name },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        ...(capacity ? { capacity: { 'ephemeral-storage': capacity } } : {}),
        images: Array.from({ length: images }, () => ({ sizeBytes: size })),
      },
    });
  it('reads quantities', () => {
    assert.equal(parseQuantity('100Gi'), 100 * 2 ** 30);
    assert.equal(parseQuantity('102400Ki'), 102400 * 1024);
    assert.equal(parseQuantity('1e9'), 1e9);
    assert.equal(parseQuantity('12G'), 12e9);
    assert.equal(parseQuantity('lots'), undefined);
    assert.equal(parseQuantity(undefined), undefined);
  });
  it('skips only what it can tell: a complete image list, a capacity, and five times the listed bytes under the mark', () => {
    assert.equal(
      surelyBelow(
        prescreenFacts({ images: [{ sizeBytes: 10 }], capacity: { 'ephemeral-storage': '1000' } }),
        80,
      ),
      true,
    );
    // 5 x 170 = 850 of 1000 is 85%: not surely under 80%.
    assert.equal(surelyBelow({ listedBytes: 170, listedImages: 1, capacity: 1000 }, 80), false);
    assert.equal(
      surelyBelow({ listedBytes: 1, listedImages: 50, capacity: 1000 }, 80),
      false,
      'a list cut at 50',
    );
    assert.equal(surelyBelow({ listedBytes: 1, listedImages: 1 }, 80), false, 'no capacity');
    assert.equal(surelyBelow(undefined, 80), false);
    const nodes = [
      node('empty-ish', 20, 150e6, '100Gi'),
      node('full', 40, 2e9, '100Gi'),
      node('many', 50, 1e6, '100Gi'),
      node('unknown', 3, 1e6),
    ];
    const sel = selectNodes(nodes, DEFAULT_CONFIG, '', 80);
    assert.deepEqual(sel.selected, ['full', 'many', 'unknown']);
    assert.deepEqual(sel.skipped, [{ node: 'empty-ish', reason: 'below-threshold' }]);
    assert.deepEqual(selectNodes(nodes, DEFAULT_CONFIG).selected.length, 4, 'no screen without a threshold');
  });
});

describe('inv erase --image-fs-above / --image-fs-down-to / --unused-for', () => {
  it('reads them into spec.imageFs and spec.minUnusedAge, with every problem named', async () => {
    const { completeTrigger } = await import('../../../src/cli/erase/trigger.js');
    const ok = completeTrigger({ 'image-fs-above': '80', 'image-fs-down-to': '70.5%', 'unused-for': '7d' }, [
      '*',
    ]);
    assert.deepEqual(ok, {
      spec: { imageFs: { highPercent: 80, lowPercent: 70.5 }, minUnusedAge: '7d' },
      problems: [],
    });
    assert.deepEqual(completeTrigger({}, ['a:1']), { spec: {}, problems: [] });
    const bad = completeTrigger({ 'image-fs-above': '70', 'image-fs-down-to': '80', 'unused-for': '7' }, [
      'a:1',
    ]);
    assert.deepEqual(bad.problems, [
      '--image-fs-down-to (80) must be lower than --image-fs-above (70)',
      '--unused-for: "7" has no unit: write e.g. 7s or 7ms (units: ms, s, m, h, d)',
      '--image-fs-above, --image-fs-down-to and --unused-for go with --all-unused alone',
    ]);
    assert.match(
      completeTrigger({ 'image-fs-above': '101', 'image-fs-down-to': '1' }, ['*']).problems[0]!,
      /percentage from 0 to 100/,
    );
  });
});
