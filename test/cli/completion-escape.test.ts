// Completion never runs what a name holds. A kubeconfig is a shared file: a context named
// `prod$(touch FILE)` (and others with ;, ` and quotes) is completed by TAB in real bash, zsh and
// fish, on a pseudo-terminal as a person types, and the line is run with Enter. Each shell
// inserts the candidate as one literal word: the file is never created, and the command the line
// runs receives the context's name as written. A candidate with a newline is left out. No cluster
// is needed: completion of contexts reads the kubeconfig only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatCompletion } from '../../src/cli/completion/complete.js';
import { repoRoot } from '../support/paths.js';
import { runOnPty } from '../support/pty.js';

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

describe('completion inserts hostile names as one literal word (bash, zsh, fish on a pty)', function () {
  this.timeout(120_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-complete-esc-'));
  const mark = path.join(tmp, 'pwned');
  const binDir = path.join(tmp, 'bin');
  fs.mkdirSync(binDir);
  // inv itself (its completion script, __complete); for `inv images`, the command line the
  // shell finally runs, a record of the words it received.
  const argsFile = path.join(tmp, 'args');
  fs.writeFileSync(
    path.join(binDir, 'inv'),
    [
      '#!/bin/sh',
      `[ "$1" = images ] && { printf '%s\\n' "$@" > ${JSON.stringify(argsFile)}; exit 0; }`,
      `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(repoRoot, 'bin', 'run.js'))} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  // The hostile context is the only one starting with "prod": TAB completes it whole.
  const hostile = `prod$(touch ${mark});\`touch ${mark}\`'x`;
  const kubeconfig = path.join(tmp, 'config');
  fs.writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [
        { name: hostile, context: { cluster: 'c', user: 'u' } },
        { name: 'staging', context: { cluster: 'c', user: 'u' } },
      ],
      'current-context': 'staging',
    }),
  );
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const env = {
    PATH: `${binDir}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: tmp,
    KUBECONFIG: kubeconfig,
    NO_COLOR: '1',
  };
  const PROMPT = 'PROMPT> ';
  const shells: Record<string, { argv: string[]; env?: Record<string, string>; load: string[] }> = {
    bash: {
      argv: ['bash', '--norc', '--noprofile', '-i'],
      env: { PS1: PROMPT },
      load: ['source <(inv completion bash)'],
    },
    zsh: {
      argv: ['zsh', '-f', '-i'],
      env: { PS1: PROMPT },
      load: ['autoload -U compinit && compinit -u', 'source <(inv completion zsh)'],
    },
    fish: {
      argv: ['fish', '--no-config', '-i', '-C', `function fish_prompt; echo -n '${PROMPT}'; end`],
      load: ['inv completion fish | source'],
    },
  };

  for (const [name, sh] of Object.entries(shells))
    it(`${name}: TAB then Enter runs nothing the context name holds`, async function () {
      if (!has(name)) this.skip(); // scripts/ensure-deps.mjs installs zsh and fish
      fs.rmSync(mark, { force: true });
      fs.rmSync(argsFile, { force: true });
      const prompt = PROMPT.replace(/[>]/g, '\\$&');
      const r = await runOnPty([], {
        argv: sh.argv,
        cwd: tmp,
        env: { ...env, ...sh.env },
        cols: 200,
        timeoutMs: 60_000,
        steps: [
          ...sh.load.map((cmd) => ({ wait: prompt, send: `${cmd}\r` })),
          { wait: prompt, send: 'inv images --context pro\t' },
          // The completed word, as the shell quoted it, then Enter.
          { wait: 'inv images --context \\S*prod\\S*touch', send: '\r' },
          { wait: prompt, send: 'exit\r' },
        ],
      });
      assert.equal(r.stepsDone, sh.load.length + 3, `${name} did not get through the steps:\n${r.output}`);
      assert.equal(fs.existsSync(mark), false, `${name} ran the command in the context's name:\n${r.output}`);
      assert.deepEqual(
        fs.readFileSync(argsFile, 'utf8').split('\n').slice(0, -1),
        ['images', '--context', hostile],
        `inv got the name as written (${name}):\n${r.output}`,
      );
    });

  it('a candidate with a control character is left out, not changed into another name', () => {
    assert.equal(
      formatCompletion(
        [{ value: 'a\nb' }, { value: 'ok', description: 'has\ttab' }, { value: '\u001b[31mred' }],
        4,
      ),
      'ok\thas tab\n:4\n',
    );
  });
});
