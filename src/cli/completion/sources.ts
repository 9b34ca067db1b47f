// Where the values of a flag or an argument come from when TAB completes them, declared on the flag
// itself (`completes('namespaces', Flags.string({...}))`) instead of guessed from its name, so a new
// flag that takes a cluster's names says so where it is written. oclif's manifest keeps a flag's
// own fields only, but it keeps a command's own static properties: each command publishes its
// table (`static completion = commandCompletion(this.flags, this.args)`), which `inv __complete`
// reads from the manifest without loading the command.

/** Names that only the cluster or the kubeconfig knows. */
export type DynamicSource = 'namespaces' | 'contexts' | 'imagelists' | 'imagejobs';

/**
 * A dynamic source; `output`, -o's formats and kubectl's templates; `text`, nothing to offer (free
 * text or a file: the shell's own completion, as cobra leaves it), said so a flag that takes a
 * name of something is never left out by accident.
 */
export type CompletionSource = DynamicSource | 'output' | 'text';

const SOURCES: Record<CompletionSource, true> = {
  namespaces: true,
  contexts: true,
  imagelists: true,
  imagejobs: true,
  output: true,
  text: true,
};

export const isCompletionSource = (v: unknown): v is CompletionSource =>
  typeof v === 'string' && Object.hasOwn(SOURCES, v);

export const isDynamicSource = (v: CompletionSource | undefined): v is DynamicSource =>
  v !== undefined && v !== 'output' && v !== 'text';

/**
 * `flag` (an oclif flag or argument) with where its values come from. Its type stays the flag's
 * own: oclif infers a flag's value from that type (and cli/flag-values.ts too), which an
 * intersection would blur; completionOf() reads the source back.
 */
export function completes<F extends object>(source: CompletionSource, flag: F): F {
  return { ...flag, completion: source };
}

/** The source a flag or argument declares, if any. */
export function completionOf(flag: object): CompletionSource | undefined {
  return 'completion' in flag && isCompletionSource(flag.completion) ? flag.completion : undefined;
}

/** A command's sources by flag and argument name: what `inv __complete` reads from the manifest. */
export interface CommandCompletion {
  flags: Record<string, CompletionSource>;
  args: Record<string, CompletionSource>;
}

const table = (defs: object | undefined): Record<string, CompletionSource> =>
  Object.fromEntries(
    Object.entries(defs ?? {}).flatMap(([name, def]) => {
      const source = typeof def === 'object' && def !== null ? completionOf(def) : undefined;
      return source ? [[name, source]] : [];
    }),
  );

/** The table of a command's flags and arguments, as each declares its source. */
export function commandCompletion(flags: object | undefined, args?: object): CommandCompletion {
  return { flags: table(flags), args: table(args) };
}

/** A command's table as the manifest holds it (anything else: none). */
export function readCommandCompletion(v: unknown): CommandCompletion {
  const part = (x: unknown): Record<string, CompletionSource> =>
    typeof x === 'object' && x !== null
      ? Object.fromEntries(Object.entries(x).filter(([, s]) => isCompletionSource(s)))
      : {};
  return typeof v === 'object' && v !== null && 'flags' in v && 'args' in v
    ? { flags: part(v.flags), args: part(v.args) }
    : { flags: {}, args: {} };
}
