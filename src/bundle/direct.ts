// The bundle's fast start for the worker: `inv node-remove …` as the erase controller writes it
// runs without loading oclif (whose configuration and parser took about as long as Node's own
// start-up, on every node of every erase). The flags are read against the command's entry in
// the bundle's oclif manifest (src/cli/node-remove/direct-args.ts); a command line that reader does not
// fully understand, `--help` included, goes to oclif as before. Both paths run the same code
// (src/cli/node-remove/node-remove-run.ts) and end in the same error handler.
// Every command of the bundle passes through here first, so our own modules are imported only
// once the command is one of the direct ones.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import type { ManifestFlag } from '../cli/node-remove/direct-args.js';
import type { NodeRemoveFlags } from '../core/contract/worker-command.js';

interface DirectCommand {
  /**
   * node-remove's flags: its manifest entry is made from the worker's command line as the contract
   * declares it (src/cli/node-remove/node-remove-flags.ts; test/unit/cli/direct-args.test.ts compares them),
   * so the reader returns the flags the contract types.
   */
  run: (flags: NodeRemoveFlags) => Promise<number>;
  /**
   * V8 flags set before the command's modules load. node-remove is a short batch of CRI calls:
   * V8's optimizing compilers (Maglev, TurboFan) cost it more memory than they save it time (a
   * 200-image removal peaks at about 100 MB with them and 67 MB without, at the same wall time;
   * `npm run bench node-remove`). These tiering flags are read whenever V8 decides to optimize,
   * so setting them now works; --jitless would do the same from the start but makes Node
   * compile its own built-in modules again (about 25 ms more for HTTP/2 alone). The compile
   * cache made for the worker image (scripts/compile-cache.mjs) is made under the same flags.
   */
  v8Flags: string[];
}

/** Commands with a direct start, and what runs them. */
const DIRECT: Record<string, DirectCommand> = {
  'node-remove': {
    run: async (flags) => (await import('../cli/node-remove/node-remove-run.js')).runNodeRemove(flags),
    v8Flags: ['--no-opt', '--no-maglev'],
  },
};

/**
 * Runs `argv` directly when it can; returns false when oclif must (another command, help, or a
 * command line the direct reader leaves to oclif). `manifest`: the bundle's oclif.manifest.json.
 */
export async function runDirect(argv: readonly string[], manifest: URL): Promise<boolean> {
  const [id, ...rest] = argv;
  const command = id !== undefined && Object.hasOwn(DIRECT, id) ? DIRECT[id] : undefined;
  if (!command || process.env.INV_NO_DIRECT === '1') return false;
  const [{ parseDirect }, { handleError }] = await Promise.all([
    import('../cli/node-remove/direct-args.js'),
    import('../cli/process/handle-error.js'),
  ]);
  let spec: Record<string, ManifestFlag> | undefined;
  try {
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as {
      commands?: Record<string, { flags?: Record<string, ManifestFlag>; args?: object; strict?: boolean }>;
    };
    const c = m.commands?.[id!];
    // Commands that take arguments are oclif's: the direct reader knows flags only.
    if (c?.flags && Object.keys(c.args ?? {}).length === 0) spec = c.flags;
  } catch {
    return false; // no manifest: oclif finds the commands itself
  }
  const flags = spec && parseDirect(rest, spec, process.env);
  if (!flags) return false;
  for (const f of command.v8Flags) setFlagsFromString(f);
  try {
    process.exitCode = await command.run(flags as NodeRemoveFlags);
  } catch (e) {
    await handleError(e);
  }
  return true;
}
