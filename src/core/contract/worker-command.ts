// The worker's command line, declared once: the flags of `inv node-remove`, the kind of value each
// takes, its default, its environment variable and its letter. Everything else about that command
// line derives from this table: the type of the flags the worker reads (`NodeRemoveFlags`), the
// oclif declarations of src/commands/node-remove.ts (src/cli/node-remove/node-remove-flags.ts adds the
// help texts), hence the manifest the worker's direct start reads (src/cli/node-remove/direct-args.ts), and the
// command line the erase controller writes into each worker Pod (`nodeRemoveArgs`, used by
// erase/worker/pod-spec.ts). A flag renamed or retyped here fails to compile wherever it is
// written or read. PURE.

/** The command the worker Pod runs (src/commands/node-remove.ts). */
export const NODE_REMOVE_COMMAND = 'node-remove';

/** Where the kubelet reads a container's termination message unless its spec says otherwise. */
export const DEFAULT_TERMINATION_PATH = '/dev/termination-log';

/** A flag's value: one string, a repeatable string, or a switch. */
type FlagKind = 'string' | 'strings' | 'boolean';

interface WorkerFlag {
  readonly kind: FlagKind;
  readonly default?: string;
  readonly env?: string;
  readonly char?: 'o';
}

/** The flags of `inv node-remove`, in the order its help lists them. */
export const NODE_REMOVE_FLAGS = {
  'runtime-endpoint': { kind: 'string' },
  'call-timeout': { kind: 'string', default: '5s' },
  images: { kind: 'strings' },
  imagelist: { kind: 'string' },
  exclude: { kind: 'strings' },
  'exclude-file': { kind: 'string' },
  'protected-dir': { kind: 'string' },
  'imagelist-sha256': { kind: 'string' },
  'exclude-file-sha256': { kind: 'string' },
  'protected-sha256': { kind: 'string' },
  'dry-run': { kind: 'boolean' },
  only: { kind: 'strings' },
  except: { kind: 'strings' },
  'keep-newest': { kind: 'string' },
  'scan-dir': { kind: 'string' },
  'scan-timeout': { kind: 'string', default: '30m' },
  'scanner-config': { kind: 'string' },
  'scanner-config-sha256': { kind: 'string' },
  'scan-delete-failed': { kind: 'boolean' },
  'scan-delete-eol': { kind: 'boolean' },
  'image-fs-above': { kind: 'string' },
  'image-fs-down-to': { kind: 'string' },
  'unused-for': { kind: 'string' },
  'state-dir': { kind: 'string' },
  'image-fs-path': { kind: 'string' },
  'image-fs-host-path': { kind: 'string' },
  'node-name': { kind: 'string', env: 'NODE_NAME' },
  'termination-message-path': { kind: 'string', default: DEFAULT_TERMINATION_PATH },
  output: { kind: 'string', char: 'o', default: 'table' },
  'no-headers': { kind: 'boolean' },
} as const satisfies Record<string, WorkerFlag>;

type Declared = typeof NODE_REMOVE_FLAGS;
export type NodeRemoveFlagName = keyof Declared;

/** The value a flag of this kind reads as. */
export type FlagValue<K extends FlagKind> = K extends 'boolean'
  ? boolean
  : K extends 'strings'
    ? string[]
    : string;

type Defaulted = {
  [N in NodeRemoveFlagName]: Declared[N] extends { default: string } ? N : never;
}[NodeRemoveFlagName];

/**
 * The flags as oclif (or the direct reader) returns them: a flag with a default is always there,
 * any other may be missing.
 */
export type NodeRemoveFlags = { [N in Defaulted]: FlagValue<Declared[N]['kind']> } & {
  [N in Exclude<NodeRemoveFlagName, Defaulted>]?: FlagValue<Declared[N]['kind']>;
};

/** The flags a command line gives, in the order it gives them (false and undefined: not given). */
export type WorkerArgs = { [N in NodeRemoveFlagName]?: FlagValue<Declared[N]['kind']> | undefined };

/**
 * The worker's command line for these flags, in their order: `--name value` (`-o` by its
 * letter, as kubectl users write it), a repeatable flag once per value, a switch bare.
 */
export function nodeRemoveArgs(flags: WorkerArgs): string[] {
  const out: string[] = [NODE_REMOVE_COMMAND];
  for (const [name, value] of Object.entries(flags) as [
    NodeRemoveFlagName,
    WorkerArgs[NodeRemoveFlagName],
  ][]) {
    const decl: WorkerFlag = NODE_REMOVE_FLAGS[name];
    const spelled = decl.char ? `-${decl.char}` : `--${name}`;
    if (value === undefined || value === false) continue;
    if (value === true) out.push(spelled);
    else for (const v of typeof value === 'string' ? [value] : value) out.push(spelled, v);
  }
  return out;
}
