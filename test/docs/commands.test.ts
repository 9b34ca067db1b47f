// The `inv ...` lines of the docs that need no cluster, run as a user runs them: with no
// kubeconfig at all (KUBECONFIG names a missing file), so a line that quietly needed a cluster
// fails here; each must exit 0 and, when the page redirects it to a file, print something. Which
// lines need a cluster is decided by what they ask for (completion, a client-side dry run,
// offline manifests); test/unit/repo/docs-commands.test.ts parses every other line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXIT_UNKNOWN_COMMAND } from '../../src/cli/process/exit-codes.js';
import { docsCommands, type DocCommand } from '../support/docs/docs-commands.js';
import { repoRoot } from '../support/paths.js';

/** A line that runs without a cluster, by what it asks for. */
function clusterless(argv: string[]): boolean {
  const [cmd] = argv;
  if (cmd === 'completion' || argv.includes('--help') || argv.includes('--client')) return true;
  if (cmd === 'install') return argv.includes('--dry-run') || argv.includes('--dry-run=client');
  if (cmd === 'scan' || cmd === 'images') return argv.includes('-f') || argv.includes('--offline');
  return false;
}

describe('inv lines of the docs that need no cluster, run', function () {
  this.timeout(60_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-docs-commands-'));
  // What the pages' offline lines read: `manifests/` (the repository's examples).
  fs.cpSync(path.join(repoRoot, 'examples'), path.join(dir, 'manifests'), { recursive: true });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (argv: string[]) =>
    spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...argv], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', HOME: dir, KUBECONFIG: path.join(dir, 'no-such-kubeconfig') },
      timeout: 30_000,
    });

  const lines = docsCommands().filter((l) => clusterless(l.argv));
  // One run per distinct command line.
  const distinct = [...new Map(lines.map((l) => [l.argv.join('\0'), l] as const)).values()];

  it('finds them (completion, a client-side install dry run, offline manifests)', () => {
    const cmds = new Set(distinct.map((l) => l.argv[0]));
    for (const c of ['completion', 'install', 'scan']) assert.ok(cmds.has(c), `a ${c} line`);
  });

  for (const l of distinct as DocCommand[])
    it(`${l.where}: inv ${l.argv.join(' ')}`, () => {
      const r = run(l.argv);
      assert.equal(r.status, 0, `${l.line}\n${r.stderr}`);
      if (l.redirect) assert.ok(r.stdout.length > 0, `${l.line} prints what the page saves`);
    });

  it('a mistyped command exits with EXIT_UNKNOWN_COMMAND (docs/cli.md), as the hook writes it', () => {
    const r = run(['scna']);
    assert.equal(r.status, EXIT_UNKNOWN_COMMAND);
    assert.match(r.stderr, /unknown command "scna" for "inv"/);
  });
});
