// Pure decision rules of node-remove, with plain objects (no runtime involved).
import assert from 'node:assert/strict';
import {
  compileAll,
  decide,
  DEFAULT_SANDBOX_EXCLUSIONS,
  exitCodeFor,
  execute,
  parseTimeout,
  sandboxImageFromStatusInfo,
  terminationSummary,
  type ContainerView,
  type ImageView,
  type Report,
  type SandboxGuard,
} from '../../src/core/noderemove/index.js';
import { hex, img } from './fixtures.js';

const app = img('a', ['docker.io/library/app:1', 'docker.io/library/app:latest'], {
  repoDigests: [`docker.io/library/app@sha256:${hex('d')}`],
});
const other = img('b', ['quay.io/org/other:2']);
const pause = img('c', ['registry.k8s.io/pause:3.9']);
const portA = img('e', ['localhost:5000/app:1']);
const portB = img('f', ['localhost:5001/app:1']);
const images = [app, other, pause, portA, portB];
/** The sandbox image is known (Status named it): the rules below are the ordinary ones. */
const known: SandboxGuard = { determined: true, via: 'status', detail: 'registry.k8s.io/pause:3.9' };

const run = (
  targets: string[],
  opts: { containers?: ContainerView[]; exclude?: string[]; imgs?: ImageView[] } = {},
) =>
  decide({
    images: opts.imgs ?? images,
    containers: opts.containers ?? [],
    targets,
    exclusions: compileAll(opts.exclude ?? []),
    sandboxImages: compileAll(DEFAULT_SANDBOX_EXCLUSIONS),
    sandbox: known,
  }).map((d) => ({ target: d.target, id: d.imageId.slice(7, 8), outcome: d.outcome }));

describe('node-remove decisions (pure)', () => {
  it('matches a target by short tag, full tag, digest ref, ID and bare hex', () => {
    assert.deepEqual(run(['app:1', 'docker.io/library/app:latest', 'app']), [
      { target: 'app:1', id: 'a', outcome: 'remove' },
      { target: 'docker.io/library/app:latest', id: 'a', outcome: 'remove' },
      { target: 'app', id: 'a', outcome: 'remove' },
    ]);
    assert.deepEqual(run([`app@sha256:${hex('d')}`, `app:9@sha256:${hex('d')}`]), [
      { target: `app@sha256:${hex('d')}`, id: 'a', outcome: 'remove' },
      { target: `app:9@sha256:${hex('d')}`, id: 'a', outcome: 'remove' },
    ]);
    assert.deepEqual(run([`sha256:${hex('b')}`, hex('b')]), [
      { target: `sha256:${hex('b')}`, id: 'b', outcome: 'remove' },
      { target: hex('b'), id: 'b', outcome: 'remove' },
    ]);
  });

  it('reports aliases: every tag, digest ref and the ID', () => {
    const [d] = decide({ images, containers: [], targets: ['app:1'], exclusions: [], sandbox: known });
    assert.deepEqual(d!.aliases, [...app.repoTags, ...app.repoDigests, app.id]);
  });

  it('reports not-present and invalid targets without stopping the others', () => {
    assert.deepEqual(run(['nope:1', 'Bad/Name', '', 'quay.io/org/other:2']), [
      { target: 'nope:1', id: '', outcome: 'not-present' },
      { target: 'Bad/Name', id: '', outcome: 'invalid' },
      { target: '', id: '', outcome: 'invalid' },
      { target: 'quay.io/org/other:2', id: 'b', outcome: 'remove' },
    ]);
    // An ID prefix of another image, and a digest that matches no digest ref (digests do not match tags).
    assert.deepEqual(
      run([`sha256:${'7'.repeat(12)}`, `app@sha256:${hex('9')}`]).map((r) => r.outcome),
      ['not-present', 'not-present'],
    );
  });

  it('keeps images referenced by any container, by imageRef, imageId or image field, whatever the state', () => {
    const cases: ContainerView[] = [
      { id: 'c-ref', imageRef: app.id, state: 'CONTAINER_RUNNING' },
      { id: 'c-exited', imageRef: app.id, state: 'CONTAINER_EXITED' },
      { id: 'c-created', imageRef: '', image: 'app:1', state: 'CONTAINER_CREATED' },
      { id: 'c-imageid', imageRef: '', imageId: app.id, state: 'CONTAINER_UNKNOWN' },
      { id: 'c-digest', imageRef: `docker.io/library/app@sha256:${hex('d')}` }, // CRI-O style
      { id: 'c-bare', imageRef: hex('a') },
    ];
    for (const c of cases) {
      assert.deepEqual(
        run(['app:1'], { containers: [c] }),
        [{ target: 'app:1', id: 'a', outcome: 'in-use' }],
        c.id,
      );
    }
    // A container of another image does not protect this one.
    assert.deepEqual(run(['app:1'], { containers: [{ id: 'x', imageRef: other.id }] })[0]!.outcome, 'remove');
  });

  it('keeps pinned images, and in-use wins over pinned wins over excluded', () => {
    const pinned = { ...other, pinned: true };
    const imgs = [app, pinned];
    assert.equal(run(['quay.io/org/other:2'], { imgs })[0]!.outcome, 'pinned');
    assert.equal(
      run(['quay.io/org/other:2'], {
        imgs,
        containers: [{ id: 'x', imageRef: other.id }],
        exclude: ['quay.io/*'],
      })[0]!.outcome,
      'in-use',
    );
    assert.equal(run(['quay.io/org/other:2'], { imgs, exclude: ['quay.io/*'] })[0]!.outcome, 'pinned');
  });

  it('prunes with * everything except in-use, pinned, excluded and the sandbox image', () => {
    const imgs = [
      app,
      { ...other, pinned: true },
      pause,
      portA,
      portB,
      img('9', ['docker.io/library/free:1']),
    ];
    const out = run(['*'], {
      imgs,
      containers: [{ id: 'x', imageRef: app.id }],
      exclude: ['localhost:5000/app:*'],
    });
    assert.deepEqual(
      out.map((r) => `${r.id}=${r.outcome}`),
      ['a=in-use', 'b=pinned', 'c=sandbox-image', 'e=excluded', 'f=remove', '9=remove'],
    );
  });

  it('reports the sandbox image as sandbox-image, even when an exclusion also names it', () => {
    const out = decide({
      images: [pause],
      containers: [],
      targets: ['registry.k8s.io/pause:3.9'],
      exclusions: compileAll(['registry.k8s.io/*']),
      sandboxImages: compileAll(DEFAULT_SANDBOX_EXCLUSIONS),
      sandbox: known,
    });
    assert.equal(out[0]!.outcome, 'sandbox-image');
    assert.equal(out[0]!.detail, 'sandbox image (registry.k8s.io/pause:*)');
  });

  it('matches exclusion patterns with a registry port exactly', () => {
    const imgs = [portA, portB, img('1', ['localhost:5000/app2:1']), img('2', ['localhost:5000/app/sub:1'])];
    const out = run(['*'], { imgs, exclude: ['localhost:5000/app:*'] });
    assert.deepEqual(
      out.map((r) => `${r.id}=${r.outcome}`),
      ['e=excluded', 'f=remove', '1=remove', '2=remove'],
    );
  });

  it('excludes by ID and by digest too (patterns see every alias)', () => {
    assert.equal(run(['app:1'], { exclude: [app.id] })[0]!.outcome, 'excluded');
    assert.equal(run(['app:1'], { exclude: ['docker.io/library/app@*'] })[0]!.outcome, 'excluded');
    assert.equal(run(['app:1'], { exclude: ['docker.io/library/*'] })[0]!.outcome, 'excluded');
  });

  it('rejects invalid exclusion patterns', () => {
    assert.throws(() => compileAll(['Bad Pattern']), /invalid exclusion pattern/);
  });

  it('reports duplicate targets once', () => {
    assert.equal(run(['app:1', 'app:1']).length, 1);
  });

  it('finds the sandbox image in containerd verbose status info', () => {
    assert.equal(
      sandboxImageFromStatusInfo({
        golang: '"go1.20"',
        config: JSON.stringify({ sandboxImage: 'registry.k8s.io/pause:3.6' }),
      }),
      'registry.k8s.io/pause:3.6',
    );
    assert.equal(sandboxImageFromStatusInfo({ config: 'not json' }), undefined);
  });

  it('parses --call-timeout as a duration with its unit', () => {
    assert.throws(() => parseTimeout('750'), /has no unit/);
    assert.equal(parseTimeout('500ms'), 500);
    assert.equal(parseTimeout('5s'), 5000);
    assert.equal(parseTimeout('1.5s'), 1500);
    assert.equal(parseTimeout('1m'), 60000);
    assert.throws(() => parseTimeout('soon'), /--call-timeout: must be a duration/);
    assert.throws(() => parseTimeout('0'), /positive/);
  });
});

describe('node-remove executor (fake runtime)', () => {
  const decisions = decide({
    images,
    containers: [],
    targets: ['app:1', 'app:latest', 'quay.io/org/other:2'],
    exclusions: [],
    sandbox: known,
  });

  it('removes each image once by ID, even when several targets name it', async () => {
    const removed: string[] = [];
    const results = await execute(
      {
        listContainers: async () => [],
        listSandboxes: async () => [],
        removeImage: async (ref) => void removed.push(ref),
      },
      decisions,
      { dryRun: false },
    );
    assert.deepEqual(removed, [app.id, other.id]);
    assert.deepEqual(
      results.map((r) => [r.target, r.outcome]),
      [
        ['app:1', 'removed'],
        ['app:latest', 'removed'],
        ['quay.io/org/other:2', 'removed'],
      ],
    );
  });

  it('re-checks in-use status just before each removal', async () => {
    const removed: string[] = [];
    let calls = 0;
    const results = await execute(
      {
        // The second image gets a container between the decision and its removal.
        listContainers: async () => (++calls >= 2 ? [{ id: 'late-container', imageRef: other.id }] : []),
        listSandboxes: async () => [],
        removeImage: async (ref) => void removed.push(ref),
      },
      decisions,
      { dryRun: false },
    );
    assert.deepEqual(removed, [app.id]);
    assert.equal(results[2]!.outcome, 'in-use');
  });

  it('removals in flight share their re-reads, one at a time (a large answer is held once)', async () => {
    const many = Array.from({ length: 9 }, (_, i) => img(String(i), [`many-${i}:1`]));
    const ds = decide({
      images: many,
      containers: [],
      targets: many.map((m) => m.repoTags[0]!),
      exclusions: [],
      sandbox: known,
    });
    let inFlight = 0;
    let most = 0;
    let listings = 0;
    const results = await execute(
      {
        listContainers: async () => {
          listings++;
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return [];
        },
        listSandboxes: async () => [],
        removeImage: async () => undefined,
      },
      ds,
      { dryRun: false, concurrency: 4 },
    );
    assert.ok(results.every((r) => r.outcome === 'removed'));
    assert.equal(most, 1, 'one listing at a time');
    assert.ok(listings < many.length, `${listings} listings for ${many.length} removals`);
  });

  it('reports failures per image and removes nothing in dry-run', async () => {
    const failing = await execute(
      {
        listContainers: async () => [],
        listSandboxes: async () => [],
        removeImage: async () => {
          throw new Error('RemoveImage on unix:///x failed: UNKNOWN: boom');
        },
      },
      decisions,
      { dryRun: false },
    );
    assert.deepEqual(
      failing.map((r) => r.outcome),
      ['failed', 'failed', 'failed'],
    );
    assert.match(failing[0]!.error, /boom/);
    const report: Report = {
      node: 'n',
      runtime: { name: 'r', version: '1', apiVersion: 'v1' },
      results: failing,
    };
    assert.equal(exitCodeFor(report), 1);

    const dry = await execute(
      {
        listContainers: async () => assert.fail('dry run must not re-check'),
        listSandboxes: async () => [],
        removeImage: async () => assert.fail('dry run must not remove'),
      },
      decisions,
      { dryRun: true },
    );
    assert.deepEqual(
      dry.map((r) => r.outcome),
      ['would-remove', 'would-remove', 'would-remove'],
    );
  });
});

describe('node-remove termination summary', () => {
  const result = (i: number, outcome: 'removed' | 'failed') => ({
    target: `docker.io/library/image-${i}:1`,
    imageId: `sha256:${i.toString(16).padStart(64, '0')}`,
    aliases: [],
    size: 0,
    outcome,
    error: outcome === 'failed' ? `RemoveImage failed: ${'x'.repeat(300)}` : '',
    detail: '',
  });
  const report = (results: ReturnType<typeof result>[]): Report => ({
    node: 'node-1',
    runtime: { name: 'containerd', version: '1.6', apiVersion: 'v1' },
    results,
  });

  it('lists every result when it fits', () => {
    const s = JSON.parse(terminationSummary(report([result(1, 'removed'), result(2, 'failed')])));
    assert.equal(s.node, 'node-1');
    assert.deepEqual(s.counts, { removed: 1, failed: 1 });
    assert.equal(s.results.length, 2);
    assert.equal(s.truncated, undefined);
  });

  it('stays within 4 KB by summarising when longer', () => {
    const many = report(
      Array.from({ length: 500 }, (_, i) => result(i, i % 50 === 0 ? 'failed' : 'removed')),
    );
    const text = terminationSummary(many);
    assert.ok(Buffer.byteLength(text) <= 4096, `${Buffer.byteLength(text)} bytes`);
    const s = JSON.parse(text);
    assert.equal(s.truncated, true);
    assert.deepEqual(s.counts, { failed: 10, removed: 490 });
    assert.ok(s.results.every((r: { o: string }) => r.o === 'failed'));
    const allFailed = report(Array.from({ length: 500 }, (_, i) => result(i, 'failed')));
    assert.ok(Buffer.byteLength(terminationSummary(allFailed)) <= 4096);
  });
});
