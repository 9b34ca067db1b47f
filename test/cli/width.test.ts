/* eslint-disable no-control-regex -- the raw terminal output is matched for escape sequences */
// 80 columns on a real pseudo-terminal (issue 29 §4): refs cut in the middle keeping their tag
// or digest start, a column of one value collapsed, long warnings wrapped at word boundaries,
// every command's --help within the width, and the spinner fitted to its line and without any
// colour escape under NO_COLOR. Piped output stays whole.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CTRL_C, runOnPty as driveOnPty } from '../support/pty.js';
import { silentApiServer, type SilentApiServer } from '../support/servers/silent-apiserver.js';
import { runOnPty } from './pty.js';
import { runCli } from './run-cli.js';

const LONG = 'registry.example.com:5000/platform/team-observability/very-long-service-name:2024.11.05-rc1';
const DIGEST =
  'ghcr.io/acme/migrate:v2@sha256:4c1e6a1b0d6ec2d58e74b1e8f4a8d07b7dd4e1b5e1a7f66a2f4c8b9e0d3a2f11';
const lines = (s: string) => s.split('\n').filter((l) => l !== '');
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

describe('80 columns on a terminal (pseudo-terminal)', function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-width-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const deployment = (name: string, images: string[]) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'shop' },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
      },
    },
  });
  fs.writeFileSync(
    path.join(dir, 'shop.json'),
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        deployment('web', [LONG, 'docker.io/nicolaka/netshoot:v0.13']),
        deployment('migrate', [DIGEST]),
        deployment('broken', [`Invalid/UPPER-case-${'x'.repeat(40)}:tag with spaces`]),
      ],
    }),
  );

  it('cuts refs in the middle, keeping the tag or the digest’s start; piped output is whole', () => {
    const r = runOnPty(['images', '--offline', '-f', dir], { columns: 80 });
    assert.equal(r.status, 0, r.output);
    for (const l of lines(r.output)) assert.ok(l.length <= 80, `${l.length} > 80: ${l}`);
    const rows = lines(r.output);
    const long = rows.find((l) => l.startsWith('registry.example.com'))!;
    assert.match(long, /^registry\.example\.com\S*…\S*:2024\.11\.05-rc1 /, long);
    const digest = rows.find((l) => l.startsWith('ghcr.io'))!;
    assert.match(digest, /^ghcr\.io\S*:v2@(sha256:[0-9a-f]{7,}…|…) /, digest);
    const piped = runCli(['images', '--offline', '-f', dir]);
    assert.ok(piped.stdout.includes(LONG) && piped.stdout.includes(DIGEST));
    assert.doesNotMatch(piped.stdout, /…/);
  });

  it('collapses a column of one value on a terminal, and keeps it when piped', () => {
    const r = runOnPty(['images', '--offline', '-f', dir], { columns: 80 });
    assert.match(r.output, /^NAMESPACES: shop \(every row\)$/m);
    assert.match(r.output, /^IMAGE {3,}USERS {3}KINDS$/m);
    const piped = runCli(['images', '--offline', '-f', dir]);
    assert.match(piped.stdout, /^IMAGE {3,}USERS {3}KINDS {3,}NAMESPACES$/m);
  });

  it('wraps a long warning at word boundaries within 80 columns', () => {
    const piped = runCli(['scan', '-f', dir]);
    const warning = piped.stderr.split('\n').find((l) => l.includes('invalid image'))!;
    assert.ok(warning.length > 80, warning);
    const r = runOnPty(['scan', '-f', dir], { columns: 80 });
    for (const l of lines(r.output)) assert.ok(l.length <= 80, `${l.length} > 80: ${l}`);
    const at = r.output.indexOf('warning: ');
    const shown = r.output.slice(at);
    assert.ok(squash(shown).includes(squash(warning)), `${shown}\n---\n${warning}`);
    // Continuation lines are indented under the warning.
    assert.match(r.output, /^warning: .*\n {2}\S/m);
  });

  it('fits every command’s --help in 80 columns', () => {
    // The commands with the longest flag descriptions and summaries (each start costs seconds).
    for (const c of [[], ['erase'], ['erase', 'status'], ['watch'], ['uninstall'], ['version']]) {
      const r = runOnPty([...c, '--help'], { columns: 80 });
      assert.equal(r.status, 0, r.output);
      for (const l of lines(r.output)) assert.ok(l.length <= 80, `${c.join(' ')} --help: ${l.length}: ${l}`);
    }
  });

  describe('the spinner (inv check against an API server that never answers)', () => {
    let hung: SilentApiServer;
    let kubeconfig: string;
    before(async () => {
      hung = await silentApiServer();
      kubeconfig = hung.kubeconfig;
    });
    after(async () => {
      await hung.close();
    });
    const spin = (env: NodeJS.ProcessEnv) =>
      driveOnPty(['check', '--kubeconfig', kubeconfig], {
        cols: 9,
        env,
        steps: [{ wait: 'Check', send: CTRL_C }],
        timeoutMs: 30_000,
      });

    it('is fitted to a narrow terminal, and NO_COLOR leaves no colour escape', async () => {
      const r = await spin({ NO_COLOR: '1' });
      assert.equal(r.stepsDone, 1, r.output);
      // "Checking" is 8 characters: after the frame and a space, 7 fit in 9 columns.
      const drawn = r.raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
      assert.match(drawn, /Checki…/);
      assert.doesNotMatch(drawn, /Checking/);
      assert.doesNotMatch(r.raw, /\u001b\[(3\d|9\d)m/, JSON.stringify(r.raw.slice(0, 300)));
    });

    it('is cyan without NO_COLOR', async () => {
      const r = await spin({ NO_COLOR: '' });
      assert.equal(r.stepsDone, 1, r.output);
      assert.match(r.raw, /\u001b\[36m/);
    });
  });
});
