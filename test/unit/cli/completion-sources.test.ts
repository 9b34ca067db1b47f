// Completion reads where a flag's values come from off the flag itself (cli/completion/sources.ts),
// never from its name: every command publishes the table its flags and arguments declare (oclif
// keeps it in the manifest `inv __complete` reads), and every flag or argument that takes the name
// of a namespace, a context, a kind, an ImageList, an ImageJob or a Lease declares a source, so a
// new one cannot be left out of TAB by accident.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  commandCompletion,
  completionOf,
  readCommandCompletion,
} from '../../../src/cli/completion/sources.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
// The manifest `npm run build` writes (the bundle ships the same commands).
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, { relativePath: string[]; completion?: unknown }>;
};

/** Flag and argument names that take the name of something the cluster or the kubeconfig has. */
const NAMED = /(^|-)(namespaces?|context|kinds?|name|id|lease)$/;
const NAMED_ARG = /^(job|name|namespace|context|kind)$/;

type Defs = Record<string, { type?: string } & object>;
interface Loaded {
  flags?: Defs;
  args?: Defs;
}

async function commands(): Promise<[string, Loaded, unknown][]> {
  return Promise.all(
    Object.entries(manifest.commands).map(async ([id, c]) => {
      const mod = (await import(pathToFileURL(path.join(root, ...c.relativePath)).href)) as {
        default: Loaded;
      };
      return [id, mod.default, c.completion] as [string, Loaded, unknown];
    }),
  );
}

describe('completion sources, declared on the flags', function () {
  this.timeout(60_000);

  it('every command publishes the sources its flags and arguments declare (the manifest holds them)', async () => {
    const all = await commands();
    assert.ok(all.length > 10);
    for (const [id, cmd, published] of all)
      assert.deepEqual(
        readCommandCompletion(published),
        commandCompletion(cmd.flags, cmd.args),
        `${id}: static completion = commandCompletion(this.flags, this.args)`,
      );
  });

  it('every flag or argument that takes a namespace, context, kind or resource name declares a source', async () => {
    const missing: string[] = [];
    for (const [id, cmd] of await commands()) {
      for (const [name, flag] of Object.entries(cmd.flags ?? {}))
        if (flag.type === 'option' && NAMED.test(name) && !completionOf(flag))
          missing.push(`${id} --${name}`);
      for (const [name, arg] of Object.entries(cmd.args ?? {}))
        if (NAMED_ARG.test(name) && !completionOf(arg)) missing.push(`${id} ${name.toUpperCase()}`);
    }
    assert.deepEqual(
      missing,
      [],
      "declare it with completes() (cli/completion/sources.ts); 'text' if nothing can be offered",
    );
  });

  it('reads back what a flag declares, and nothing from a flag that declares nothing', () => {
    const table = commandCompletion(
      { a: { completion: 'namespaces' }, b: { type: 'option' }, c: { completion: 'bogus' } },
      { job: { completion: 'imagejobs' } },
    );
    assert.deepEqual(table, { flags: { a: 'namespaces' }, args: { job: 'imagejobs' } });
    assert.deepEqual(readCommandCompletion(undefined), { flags: {}, args: {} });
    assert.deepEqual(readCommandCompletion(JSON.parse(JSON.stringify(table))), table);
  });
});
