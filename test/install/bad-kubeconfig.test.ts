// A kubeconfig that cannot be used, as a user meets it through the built CLI: one line naming the
// file and the problem, exit 2, for an empty file, malformed YAML, an unreadable file, a missing
// file, a --context that is not there, one bad file among several in $KUBECONFIG, an endless
// file, and a malformed impersonation entry.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../support/paths.js';
import { runCli } from '../cli/run-cli.js';

const GOOD = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`;

describe('bad kubeconfigs', function () {
  this.timeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-badkc-'));
  fs.chmodSync(dir, 0o755); // the file's own mode is what refuses the reader
  const file = (name: string, text: string, mode = 0o644) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text, { mode });
    fs.chmodSync(f, mode);
    return f;
  };
  const empty = file('empty', '');
  const malformed = file('malformed', 'apiVersion: v1\nclusters:\n  - name: a\n   cluster: {}\n');
  const good = file('good', GOOD);
  const unreadable = file('unreadable', GOOD, 0o000);
  const env = { HOME: dir, KUBECONFIG: undefined, KUBERNETES_SERVICE_HOST: undefined };
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** One line on stderr, exit 2, nothing on stdout. */
  function oneLine(args: string[], want: string, extraEnv: NodeJS.ProcessEnv = {}) {
    const r = runCli(args, { env: { ...env, ...extraEnv } });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `error: ${want}\n`);
  }

  for (const command of [['scan', '-n', 'default'], ['images'], ['check']]) {
    describe(`inv ${command[0]}`, () => {
      it('an empty file', () =>
        oneLine([...command, '--kubeconfig', empty], `kubeconfig ${empty}: the file is empty`));
      it('malformed YAML', () =>
        oneLine(
          [...command, '--kubeconfig', malformed],
          `kubeconfig ${malformed}: not valid YAML: bad indentation of a sequence entry (line 4, column 4)`,
        ));
      it('a file that does not exist', () =>
        oneLine(
          [...command, '--kubeconfig', path.join(dir, 'nope')],
          `kubeconfig ${path.join(dir, 'nope')} does not exist (--kubeconfig)`,
        ));
      it('a --context that is not there', () =>
        oneLine(
          [...command, '--kubeconfig', good, '--context', 'other'],
          `context "other" is not in the kubeconfig (${good}) (--context; known: ctx)`,
        ));
      it('one bad file among several in $KUBECONFIG', () =>
        oneLine(
          command,
          `kubeconfig ${malformed}: not valid YAML: bad indentation of a sequence entry (line 4, column 4)`,
          {
            KUBECONFIG: [good, malformed].join(path.delimiter),
          },
        ));
    });
  }

  it('an unreadable file (permission), as a user who may not read it', function () {
    // Root reads any file through its DAC capabilities: run the CLI as root without them, so it
    // still reaches a checkout in a private (0700) folder but not the file (mode 000).
    const r = spawnSync(
      'setpriv',
      [
        '--bounding-set=-dac_override,-dac_read_search',
        '--inh-caps=-dac_override,-dac_read_search',
        process.execPath,
        path.join(repoRoot, 'bin', 'run.js'),
        'images',
        '--kubeconfig',
        unreadable,
      ],
      { encoding: 'utf8', env: { ...process.env, ...env, NO_COLOR: '1' }, cwd: '/' },
    );
    if (r.error) this.skip();
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `error: kubeconfig ${unreadable}: cannot read it: permission denied\n`);
  });

  it('an endless file (/dev/zero): refused at the size limit, not read into memory', () =>
    oneLine(
      ['images', '--kubeconfig', '/dev/zero'],
      'kubeconfig /dev/zero: cannot read it: larger than 16 MiB, too large for a kubeconfig',
    ));

  it('a user entry whose as-groups is not a list', () =>
    oneLine(
      [
        'images',
        '--kubeconfig',
        file('bad-groups', GOOD.replace('{token: t}', '{token: t, as: x, as-groups: qa}')),
      ],
      `kubeconfig ${path.join(dir, 'bad-groups')}: not a kubeconfig: user "u": as-groups is not a list of strings`,
    ));

  it('inv version: a broken file fails the command, not just the Server line', () => {
    const r = runCli(['version', '--kubeconfig', empty], { env });
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`error: kubeconfig ${empty}: the file is empty`));
  });
});
