// Help that reads right: erase's usage lines are written out (oclif's derived one read
// `[--vulnerable |  |  | [--all-unused ...`) and name only flags the commands have; every
// --[no-]flag says its default; no command's usage has an empty alternative; and there is one
// completion command. Read from the built oclif manifest, as `--help` and docs/reference read it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ERASE_USAGE } from '../../../src/cli/erase/help.js';
import { repoRoot } from '../../support/paths.js';

interface ManifestFlag {
  name: string;
  char?: string;
  type: string;
  allowNo?: boolean;
  description?: string;
}
interface ManifestCommand {
  hidden?: boolean;
  usage?: string | string[];
  flags: Record<string, ManifestFlag>;
}

const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>;
};

describe('help that reads right', () => {
  it("erase's usage lines name only flags of the command they start", () => {
    const bad: string[] = [];
    for (const line of ERASE_USAGE) {
      const id = /^erase (status|cancel)\b/.exec(line) ? `erase:${line.split(' ')[1]}` : 'erase';
      const cmd = manifest.commands[id]!;
      const longs = new Set(Object.values(cmd.flags).map((f) => f.name));
      const chars = new Set(Object.values(cmd.flags).flatMap((f) => (f.char ? [f.char] : [])));
      for (const m of line.matchAll(/(?:^|[\s([|])--([a-z][a-z-]*)/g))
        if (!longs.has(m[1]!)) bad.push(`${id}: --${m[1]}`);
      for (const m of line.matchAll(/(?:^|[\s([|])-([a-zA-Z])\b/g))
        if (!chars.has(m[1]!)) bad.push(`${id}: -${m[1]}`);
    }
    assert.deepEqual(bad, []);
    assert.deepEqual(manifest.commands.erase!.usage, ERASE_USAGE);
  });

  it('no written usage has an empty alternative or a dangling bracket', () => {
    for (const [id, c] of Object.entries(manifest.commands))
      for (const u of [c.usage ?? []].flat()) assert.doesNotMatch(u, /\|\s*\||\(\s*\||\|\s*\)|\s\]/, id);
  });

  it('every boolean that defaults to true says so', () => {
    // oclif's manifest keeps no boolean default; showBooleanDefaults writes it into the help.
    assert.match(manifest.commands.watch!.flags['erase-controllers']!.description!, /^\[default: true\]/);
    assert.match(manifest.commands.erase!.flags['protect-inventory']!.description!, /^\[default: true\]/);
    assert.match(manifest.commands['erase:cancel']!.flags.wait!.description!, /^\[default: true\]/);
    const silent = Object.entries(manifest.commands).flatMap(([id, c]) =>
      Object.values(c.flags)
        .filter(
          (f) =>
            f.type === 'boolean' &&
            f.allowNo &&
            !/\[default: |\(the default|the default\)/.test(f.description ?? ''),
        )
        .map((f) => `${id} --[no-]${f.name}`),
    );
    assert.deepEqual(silent, []);
  });

  it('one completion command: completion, as kubectl spells it', () => {
    assert.ok(manifest.commands.completion);
    assert.deepEqual(
      Object.keys(manifest.commands).filter((id) => id.startsWith('autocomplete')),
      [],
    );
  });
});
