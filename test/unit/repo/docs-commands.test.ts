// Every `inv ...` line the docs show is one inv accepts: the command exists and its flags and
// arguments parse with the command's own definitions (oclif's parser, in-process: exclusive
// flags, flags that depend on others, options). test/docs/commands.test.ts runs the lines that
// need no cluster.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Parser } from '@oclif/core';
import { docsCommands, shellWords } from '../../support/docs/docs-commands.js';
import { repoRoot } from '../../support/paths.js';

interface CommandClass {
  flags?: Record<string, never>;
  args?: Record<string, never>;
  strict?: boolean;
}

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { relativePath: string[] }>;
};

/** The command an argv names (the longest run of leading words that is a command) and the rest. */
function commandOf(argv: string[]): { id: string; rest: string[] } | undefined {
  for (let n = Math.min(argv.length, 3); n >= 1; n--) {
    const id = argv.slice(0, n).join(':');
    if (manifest.commands[id]) return { id, rest: argv.slice(n) };
  }
  return undefined;
}

async function load(id: string): Promise<CommandClass> {
  const file = path.join(repoRoot, ...manifest.commands[id]!.relativePath);
  return ((await import(pathToFileURL(file).href)) as { default: CommandClass }).default;
}

describe('inv command lines in the docs', () => {
  const lines = docsCommands();

  it('finds them: the README, every task page, synopsis lines left out', () => {
    assert.ok(lines.length >= 50, `${lines.length} lines`);
    assert.ok(lines.some((l) => l.where.startsWith('README.md')));
    assert.ok(!lines.some((l) => l.argv.includes('[JOB]')));
  });

  it('cuts lines as a shell does', () => {
    assert.deepEqual(
      shellWords(`images -n shop -o jsonpath='{range .rows[*]}{.image}{"\\n"}{end}'  # x`).words,
      ['images', '-n', 'shop', '-o', 'jsonpath={range .rows[*]}{.image}{"\\n"}{end}'],
    );
    assert.deepEqual(shellWords('install --daemon --dry-run > inv.yaml'), {
      words: ['install', '--daemon', '--dry-run'],
      stop: '>',
      rest: 'inv.yaml',
    });
    assert.deepEqual(shellWords(`erase --schedule '0 3 * * *' --name "night ly"`).words, [
      'erase',
      '--schedule',
      '0 3 * * *',
      '--name',
      'night ly',
    ]);
  });

  it('each names a command whose flags and arguments parse', async () => {
    const bad: string[] = [];
    for (const l of lines) {
      const c = commandOf(l.argv);
      if (!c) {
        bad.push(`${l.where}: no command in "${l.line}"`);
        continue;
      }
      const cmd = await load(c.id);
      try {
        // install reads kubectl's bare --dry-run as --dry-run=client before parsing (install.ts);
        // test/docs/commands.test.ts runs that line for real.
        const argv =
          c.id === 'install' ? c.rest.map((a) => (a === '--dry-run' ? '--dry-run=client' : a)) : c.rest;
        await Parser.parse(argv, {
          flags: cmd.flags ?? {},
          args: cmd.args ?? {},
          strict: cmd.strict ?? true,
        });
      } catch (e) {
        bad.push(`${l.where}: ${(e as Error).message.split('\n').slice(0, 3).join(' ')} (${l.line})`);
      }
    }
    assert.deepEqual(bad, []);
  });
});
