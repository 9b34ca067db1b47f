// Pure: the workers' inputs (names, digests, fresh names), the administrator's policy over
// requesters, the UID rule of the reconciler, and node-remove refusing an input whose bytes do
// not match the digest the controller recorded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CONFIG, parseConfig } from '../../../src/core/erase/config/config.js';
import {
  inputContents,
  jobInputs,
  planInputs,
  renamed,
  renames,
} from '../../../src/core/erase/worker/inputs.js';
import { sha256Hex } from '../../../src/core/contract/sha256.js';
import { policyProblem } from '../../../src/core/erase/config/policy.js';
import { workerArgs, workerPodSpec } from '../../../src/core/erase/worker/pod-spec.js';
import type { ImageJob } from '../../../src/core/erase/api/types.js';
import { type InventoryItem } from '../../../src/core/apply-inventory/items.js';
import { decodeItem, encodeItem } from '../../../src/core/apply-inventory/item-lines.js';
import { OWNER_LABEL, provenOwned } from '../../../src/core/apply-inventory/objects.js';
import {
  InputError,
  readExcludeFile,
  readImageList,
  readProtectedDir,
} from '../../../src/core/noderemove/inputs.js';

const job = (inputs?: ImageJob['status']): ImageJob => ({
  metadata: { name: 'j1', uid: 'u' },
  spec: {
    imageList: { name: 'l', uid: 'lu', generation: 1 },
    namespace: 'ns',
    images: ['nginx:1.25'],
    config: DEFAULT_CONFIG,
  },
  ...(inputs ? { status: inputs } : {}),
});
const settings = { worker: DEFAULT_CONFIG.worker, runtimeSocket: '/run/containerd/containerd.sock' };

describe('erase: the workers inputs and their digests (pure)', () => {
  it('records a name and the SHA-256 of each input; the worker Pod mounts those names and passes the digests', () => {
    const contents = inputContents(['nginx:1.25'], ['keep*'], ['{"a":1}', '{"b":2}']);
    const inputs = planInputs('j1', contents, () => 'bcdfghjklm');
    assert.deepEqual(
      inputs.map((i) => [i.role, i.name]),
      [
        ['images', 'j1-images-bcdfghjklm'],
        ['exclude', 'j1-exclude-bcdfghjklm'],
        ['protected-0', 'j1-protected-0-bcdfghjklm'],
        ['protected-1', 'j1-protected-1-bcdfghjklm'],
      ],
    );
    // Nobody can claim a name before the job is planned: each carries 10 random characters.
    const a = planInputs('j1', contents);
    assert.match(a[0]!.name, /^j1-images-[a-z0-9]{10}$/);
    assert.notEqual(a[0]!.name, planInputs('j1', contents)[0]!.name);
    assert.equal(renames(a[0]!), 0);
    assert.equal(inputs[0]!.sha256, sha256Hex('["nginx:1.25"]'));
    const j = job({ inputs, protectedChunks: 2 });
    const args = workerArgs(j, settings);
    assert.equal(args[args.indexOf('--imagelist-sha256') + 1], inputs[0]!.sha256);
    assert.equal(args[args.indexOf('--exclude-file-sha256') + 1], inputs[1]!.sha256);
    assert.equal(args[args.indexOf('--protected-sha256') + 1], `${inputs[2]!.sha256},${inputs[3]!.sha256}`);
    const spec = workerPodSpec(j, settings) as { volumes: { name: string; [k: string]: unknown }[] };
    const vol = (n: string) => spec.volumes.find((v) => v.name === n) as Record<string, unknown>;
    assert.deepEqual(vol('images').configMap, { name: 'j1-images-bcdfghjklm' });
    assert.deepEqual(
      (vol('protected').projected as { sources: { configMap: { name: string } }[] }).sources.map(
        (s) => s.configMap.name,
      ),
      ['j1-protected-0-bcdfghjklm', 'j1-protected-1-bcdfghjklm'],
    );
  });

  it('a job planned before inputs were recorded keeps its first names and runs without digests', () => {
    const args = workerArgs(job({ protectedChunks: 1 }), settings);
    assert.ok(!args.some((a) => a.endsWith('-sha256')));
    assert.deepEqual(
      jobInputs('j1', undefined, 1).map((i) => i.name),
      ['j1-images', 'j1-exclude', 'j1-protected-0'],
    );
  });

  it('a taken name moves to a fresh, unguessable one, counting the moves', () => {
    const [images] = planInputs('j1', inputContents(['x'], [], []));
    const once = renamed('j1', images!, 'bcdfg');
    assert.equal(once.name, 'j1-images-r1bcdfg');
    assert.equal(once.sha256, images!.sha256);
    assert.equal(renames(once), 1);
    const twice = renamed('j1', once);
    assert.match(twice.name, /^j1-images-r2[a-z0-9]{5}$/);
    assert.notEqual(renamed('j1', images!).name, renamed('j1', images!).name);
  });
});

describe('erase: the administrator policy over requesters (pure)', () => {
  it('allowPruneAll and allowUnprotected default to true and refuse, with the reason, when false', () => {
    const cfg = parseConfig('');
    assert.equal(cfg.allowPruneAll, true);
    assert.equal(cfg.allowUnprotected, true);
    assert.equal(policyProblem({ images: ['*'], protectInventory: false }, cfg), undefined);
    const strict = parseConfig('allowPruneAll: false\nallowUnprotected: false\n');
    assert.match(policyProblem({ images: ['*'] }, strict)!, /allowPruneAll is false/);
    assert.equal(policyProblem({ images: ['nginx:1'] }, strict), undefined);
    // A dry run removes nothing: not refused (inv check --nodes runs one for *).
    assert.equal(policyProblem({ images: ['*'], dryRun: true }, strict), undefined);
    const noUnprotected = parseConfig('allowUnprotected: false\n');
    assert.equal(policyProblem({ images: ['*'] }, noUnprotected), undefined);
    assert.match(
      policyProblem({ images: ['*'], protectInventory: false }, noUnprotected)!,
      /allowUnprotected/,
    );
    // protectInventory: false means nothing without *.
    assert.equal(policyProblem({ images: ['a:1'], protectInventory: false }, noUnprotected), undefined);
    assert.throws(() => parseConfig('allowPruneAll: "no"\n'), /allowPruneAll: must be true or false/);
  });
});

describe('reconciler: an existing object is ours only with the UID we recorded (pure)', () => {
  const owner = { uid: 'job-uid', description: 'x' };
  const item = (over: Partial<InventoryItem> = {}): InventoryItem => ({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    namespace: 'ns',
    name: 'j1-images',
    applyOrder: 0,
    deleteOrder: 1,
    deletePolicy: 'Delete',
    digest: 'd',
    phase: 'Creating',
    ...over,
  });
  const live = (uid: string, label = owner.uid) => ({
    metadata: { name: 'j1-images', uid, labels: { [OWNER_LABEL]: label } },
  });

  it('our label is not enough for a ConfigMap: the UID must be the recorded one', () => {
    assert.equal(provenOwned(item(), live('forged'), owner), false);
    assert.equal(provenOwned(item({ uid: 'ours' }), live('forged'), owner), false);
    assert.equal(provenOwned(item({ uid: 'ours' }), live('ours'), owner), true);
    assert.equal(provenOwned(item({ uid: 'ours' }), live('ours', 'other'), owner), false);
    // Applied before UIDs were recorded: the label decides, as it did then.
    assert.equal(provenOwned(item({ lastAppliedAt: '2026-01-01T00:00:00Z' }), live('x'), owner), true);
    // A worker Pod is adopted on its label (whoever may create Pods there is root already).
    assert.equal(provenOwned(item({ kind: 'Pod' }), live('x'), owner), true);
  });

  it('the UID round-trips through the compact encoding; lines without one still decode', () => {
    const withUid = item({ uid: '0b9c-uid', phase: 'Ready', lastAppliedAt: '2026-01-01T00:00:00Z' });
    assert.deepEqual(decodeItem(encodeItem(withUid)), withUid);
    const line = encodeItem(item());
    assert.equal(line.split('|').length, 9);
    assert.deepEqual(decodeItem(line), item());
  });
});

describe('node-remove: inputs verified against the controller digests', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-inputs-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads an input whose bytes match and refuses one that does not, saying so', () => {
    const list = path.join(dir, 'images.json');
    fs.writeFileSync(list, '["nginx:1.25"]');
    assert.deepEqual(readImageList(list, sha256Hex('["nginx:1.25"]')), ['nginx:1.25']);
    fs.writeFileSync(list, '["*"]');
    assert.throws(
      () => readImageList(list, sha256Hex('["nginx:1.25"]')),
      (e: unknown) =>
        e instanceof InputError && /does not match the digest the erase controller recorded/.test(e.message),
    );
    const ex = path.join(dir, 'excluded.json');
    fs.writeFileSync(ex, '[]');
    assert.throws(() => readExcludeFile(ex, sha256Hex('["keep*"]')), InputError);
  });

  it('checks each protected chunk in order, and the number of chunks', () => {
    const p = path.join(dir, 'protected');
    fs.mkdirSync(p);
    const chunk = (refs: string[]) =>
      JSON.stringify({ v: 1, refs: Object.fromEntries(refs.map((r) => [r, 'Deployment in a'])) });
    const c0 = chunk(['docker.io/library/a:1']);
    fs.writeFileSync(path.join(p, 'protected-0.json'), c0);
    assert.throws(
      () => readProtectedDir(p, [sha256Hex(c0), sha256Hex('x')]),
      /holds 1 file\(s\), the erase controller recorded 2/,
    );
    assert.throws(() => readProtectedDir(p, [sha256Hex('other')]), /does not match/);
  });
});
