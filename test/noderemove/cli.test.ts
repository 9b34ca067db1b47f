// `inv node-remove` end to end: the CLI as a subprocess against the run's real private
// containerd, with images built and imported by the test and real pods keeping some in use.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CriClient } from '../../src/core/cri/index.js';
import {
  connect,
  criAvailable,
  criEndpoint,
  RUNTIMES,
  useRuntime,
  runPod,
  waitForImages,
  type RunningPod,
} from '../support/cri.js';
import { addImages, type BuiltImage } from '../support/oci.js';
import { outcomes, runNodeRemove } from './helpers.js';

for (const runtime of RUNTIMES)
  describe(`inv node-remove against a real containerd [${runtime}]`, function () {
    before(() => useRuntime(runtime));
    after(() => useRuntime('containerd'));
    let cri: CriClient;
    let endpoint: string;
    let tmp: string;
    const pods: RunningPod[] = [];
    // Unique repository names per run, so nothing collides with other test files' images.
    const run = randomBytes(3).toString('hex');
    const repo = (name: string) => `docker.io/invtest${run}/${name}`;

    before(async function () {
      if (!criAvailable()) this.skip();
      endpoint = criEndpoint();
      cri = await connect();
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-noderemove-'));
    });

    after(async () => {
      for (const p of pods) await p.cleanup();
      cri?.close();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    async function images(...defs: { refs: string[]; digestRefs?: boolean }[]): Promise<BuiltImage[]> {
      const built = await addImages(defs.map((d, i) => ({ ...d, distinct: `${run}-${d.refs[0]}-${i}` })));
      await waitForImages(
        cri,
        built.map((b) => b.id),
      );
      return built;
    }

    const present = async (id: string) => (await cri.listImages()).some((i) => i.id === id);

    it('removes targets by tag, by digest and by ID (with and without sha256:)', async () => {
      const [byTag, byDigest, byId, byHex] = await images(
        { refs: [`${repo('bytag')}:1`] },
        { refs: [`${repo('bydigest')}:1`], digestRefs: true },
        { refs: [`${repo('byid')}:1`] },
        { refs: [`${repo('byhex')}:1`] },
      );
      const digestRef = `${repo('bydigest')}@${byDigest!.manifestDigest}`;
      // The tag target is written short (no docker.io/): it is normalized before matching.
      const shortTag = `invtest${run}/bytag:1`;
      const r = await runNodeRemove(endpoint, [
        '--images',
        `${shortTag},${digestRef},${byId!.id}`,
        '--images',
        byHex!.id.slice(7),
        '-o',
        'json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(outcomes(r), {
        [shortTag]: 'removed',
        [digestRef]: 'removed',
        [byId!.id]: 'removed',
        [byHex!.id.slice(7)]: 'removed',
      });
      assert.equal(r.json!.node, 'test-node');
      assert.deepEqual(r.json!.runtime.name, 'containerd');
      assert.equal(r.json!.runtime.apiVersion, 'v1');
      for (const b of [byTag!, byDigest!, byId!, byHex!]) assert.equal(await present(b.id), false, b.refs[0]);
      // Exactly the documented keys, in order; a real run that removed images also says what the
      // runtime measured, or why it could not (this private containerd has no image file system
      // of its own: not-image-bytes).
      const measured = 'imageFsUsed' in r.json! ? 'imageFsUsed' : 'freedNotMeasured';
      assert.deepEqual(Object.keys(r.json!), [
        'node',
        'runtime',
        'results',
        'bytesFreed',
        measured,
        'warnings',
      ]);
      assert.deepEqual(r.json!.warnings, []);
      assert.deepEqual(Object.keys(r.json!.results[0]!), [
        'target',
        'imageId',
        'aliases',
        'size',
        'outcome',
        'error',
        'reason',
      ]);
    });

    it('removes the whole image when one of its tags is the target, and names every alias', async () => {
      const [shared] = await images({
        refs: [`${repo('alias-a')}:1`, `${repo('alias-b')}:2`],
        digestRefs: true,
      });
      const r = await runNodeRemove(endpoint, ['--images', `${repo('alias-a')}:1`, '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      const [res] = r.json!.results;
      assert.equal(res!.outcome, 'removed');
      assert.equal(res!.imageId, shared!.id);
      assert.deepEqual([...res!.aliases].sort(), [...shared!.refs, shared!.id].sort());
      assert.equal(await cri.imageStatus(`${repo('alias-b')}:2`), null, 'the other tag went with the image');
    });

    it('keeps the image of a running container and of an exited one', async () => {
      const [running, exited] = await images(
        { refs: [`${repo('running')}:1`] },
        { refs: [`${repo('exited')}:1`] },
      );
      pods.push(await runPod(cri, `${repo('running')}:1`));
      pods.push(await runPod(cri, `${repo('exited')}:1`, { exit: true }));
      const r = await runNodeRemove(endpoint, [
        '--images',
        `${repo('running')}:1,${repo('exited')}:1`,
        '-o',
        'json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(outcomes(r), {
        [`${repo('running')}:1`]: 'in-use',
        [`${repo('exited')}:1`]: 'in-use',
      });
      assert.ok(await present(running!.id));
      assert.ok(await present(exited!.id));
    });

    it('honours exclusion patterns, including a registry port', async () => {
      const tag = `p${run}`;
      const [same, otherPort, otherRepo] = await images(
        { refs: [`localhost:5000/app:${tag}`] },
        { refs: [`localhost:5001/app:${tag}`] },
        { refs: [`localhost:5000/app2:${tag}`] },
      );
      const excludeFile = path.join(tmp, 'exclude.json');
      fs.writeFileSync(excludeFile, JSON.stringify({ excluded: ['quay.io/never/*'] }));
      const targets = [
        `localhost:5000/app:${tag}`,
        `localhost:5001/app:${tag}`,
        `localhost:5000/app2:${tag}`,
      ];
      const r = await runNodeRemove(endpoint, [
        '--images',
        targets.join(','),
        '--exclude',
        'localhost:5000/app:*',
        '--exclude-file',
        excludeFile,
        '-o',
        'json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(outcomes(r), {
        [targets[0]!]: 'excluded',
        [targets[1]!]: 'removed',
        [targets[2]!]: 'removed',
      });
      assert.ok(await present(same!.id));
      assert.equal(await present(otherPort!.id), false);
      assert.equal(await present(otherRepo!.id), false);
    });

    it('reports a target that is not present (exit 0) and an invalid one (exit 2) without stopping the others', async () => {
      const [victim] = await images({ refs: [`${repo('after-invalid')}:1`] });
      const listFile = path.join(tmp, 'list.json');
      fs.writeFileSync(
        listFile,
        JSON.stringify([`${repo('never-there')}:1`, 'Not A Ref', `${repo('after-invalid')}:1`]),
      );
      const r = await runNodeRemove(endpoint, ['--imagelist', listFile, '-o', 'json']);
      assert.equal(r.code, 2, 'an invalid target is bad input');
      assert.deepEqual(outcomes(r), {
        [`${repo('never-there')}:1`]: 'not-present',
        'Not A Ref': 'invalid',
        [`${repo('after-invalid')}:1`]: 'removed',
      });
      assert.match(r.json!.results[1]!.error, /whitespace/);
      assert.equal(await present(victim!.id), false);

      const alone = await runNodeRemove(endpoint, ['--images', `${repo('never-there')}:1`, '-o', 'json']);
      assert.equal(alone.code, 0);
      assert.equal(alone.json!.results[0]!.outcome, 'not-present');
    });

    it('changes nothing with --dry-run', async () => {
      const [a, b] = await images({ refs: [`${repo('dry-a')}:1`] }, { refs: [`${repo('dry-b')}:1`] });
      const r = await runNodeRemove(endpoint, [
        '--images',
        `${repo('dry-a')}:1,${repo('dry-b')}:1`,
        '--dry-run',
        '-o',
        'json',
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(Object.values(outcomes(r)), ['would-remove', 'would-remove']);
      assert.ok(await present(a!.id));
      assert.ok(await present(b!.id));
      const table = await runNodeRemove(endpoint, ['--images', `${repo('dry-a')}:1`, '--dry-run']);
      assert.equal(table.code, 0);
      assert.match(table.stdout, /Node test-node/);
      assert.match(table.stdout, /would-remove/);
      assert.ok(!table.stdout.includes('\u001b['), 'NO_COLOR is respected');
      // kubectl-style: borderless, short image IDs; -o wide the full ID; --no-headers rows only.
      const short = a!.id.replace(/^sha256:/, '').slice(0, 12);
      assert.match(table.stdout, /^TARGET {3,}IMAGE ID {3,}OUTCOME {3,}NAMES {3,}DETAIL/m);
      assert.match(table.stdout, new RegExp(`^\\S+dry-a:1 {3,}${short} {3,}would-remove `, 'm'));
      assert.doesNotMatch(table.stdout, /[│┌└]/);
      const wide = await runNodeRemove(endpoint, [
        '--images',
        `${repo('dry-a')}:1`,
        '--dry-run',
        '-o',
        'wide',
      ]);
      assert.ok(wide.stdout.includes(a!.id), wide.stdout);
      const rows = await runNodeRemove(endpoint, [
        '--images',
        `${repo('dry-a')}:1`,
        '--dry-run',
        '--no-headers',
      ]);
      assert.deepEqual(
        rows.stdout
          .trimEnd()
          .split('\n')
          .map((l) => l.split(/ {3,}/).slice(1, 3)),
        [[short, 'would-remove']],
      );
    });

    it('writes a compact summary to the termination-message path', async () => {
      const [img] = await images({ refs: [`${repo('termlog')}:1`] });
      const file = path.join(tmp, 'termination-log');
      const r = await runNodeRemove(endpoint, [
        '--images',
        `${repo('termlog')}:1`,
        '--termination-message-path',
        file,
      ]);
      assert.equal(r.code, 0, r.stderr);
      const s = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.equal(s.node, 'test-node');
      assert.deepEqual(s.counts, { removed: 1 });
      // Each row names the image and its size (what `inv erase` shows per image).
      const size = s.results[0]?.s;
      assert.ok(typeof size === 'number' && size > 0, JSON.stringify(s.results));
      assert.deepEqual(s.results, [
        { t: `${repo('termlog')}:1`, i: img!.id, o: 'removed', n: [`${repo('termlog')}:1`], s: size },
      ]);
    });

    it('refuses inputs whose SHA-256 is not the one the controller passed: exit 2, nothing removed', async () => {
      const [img] = await images({ refs: [`${repo('digest-check')}:1`] });
      const list = path.join(tmp, 'forged-images.json');
      fs.writeFileSync(list, JSON.stringify([`${repo('digest-check')}:1`]));
      const exclude = path.join(tmp, 'forged-exclude.json');
      fs.writeFileSync(exclude, '[]');
      // What the controller recorded: other content than the mounted files'.
      const recorded = (text: string) => createHash('sha256').update(text).digest('hex');
      const forgedList = await runNodeRemove(endpoint, [
        '--imagelist',
        list,
        '--imagelist-sha256',
        recorded('["*"]'),
      ]);
      assert.equal(forgedList.code, 2, forgedList.stderr);
      assert.match(
        forgedList.stderr,
        /image list .*forged-images\.json does not match the digest the erase controller recorded.*nothing was removed/,
      );
      const forgedExclude = await runNodeRemove(endpoint, [
        '--imagelist',
        list,
        '--imagelist-sha256',
        recorded(fs.readFileSync(list, 'utf8')),
        '--exclude-file',
        exclude,
        '--exclude-file-sha256',
        recorded(JSON.stringify([`${repo('digest-check')}:1`])),
      ]);
      assert.equal(forgedExclude.code, 2, forgedExclude.stderr);
      assert.match(forgedExclude.stderr, /exclude file .* does not match the digest/);
      assert.ok(await present(img!.id), 'nothing removed');
      // The same files with their own digests: removed.
      const ok = await runNodeRemove(endpoint, [
        '--imagelist',
        list,
        '--imagelist-sha256',
        recorded(fs.readFileSync(list, 'utf8')),
        '--exclude-file',
        exclude,
        '--exclude-file-sha256',
        recorded('[]'),
      ]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.ok(!(await present(img!.id)), 'removed with the right digests');
    });

    it('fails with exit 2 on bad input before touching the runtime', async () => {
      const none = await runNodeRemove(endpoint, []);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /nothing to remove/);
      const badPattern = await runNodeRemove(endpoint, ['--images', 'x:1', '--exclude', 'Bad Pattern']);
      assert.equal(badPattern.code, 2);
      assert.match(badPattern.stderr, /invalid exclusion pattern/);
      const badList = path.join(tmp, 'bad.json');
      fs.writeFileSync(badList, '{"not": "an array"}');
      const r = await runNodeRemove(endpoint, ['--imagelist', badList]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /JSON array/);
    });
  });
