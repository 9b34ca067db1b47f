// The oclif declarations of `inv node-remove`, made from the worker's command line as the contract
// declares it (src/core/contract/worker-command.ts: each flag's kind, default, variable and letter)
// and the help texts the command writes: a flag the contract has and the command does not describe
// (or the other way round) fails to compile, and the flags oclif returns are `NodeRemoveFlags`.
import { Flags, type Interfaces } from '@oclif/core';
import {
  NODE_REMOVE_FLAGS,
  type NodeRemoveFlagName,
  type NodeRemoveFlags,
} from '../../core/contract/worker-command.js';
import { outputFlags } from '../flags.js';
import { completes, type CompletionSource } from '../completion/sources.js';

/** The words of a flag: what the command's help says about it. */
export interface FlagHelp {
  description: string;
  helpGroup?: string;
  aliases?: string[];
  deprecateAliases?: boolean;
  /** Where its values come from when TAB completes them (cli/completion/sources.ts). */
  completion?: CompletionSource;
}

/** -o and --no-headers are the CLI's shared output flags (cli/flags.ts), with their own words. */
type OutputFlagName = 'output' | 'no-headers';

/** Each flag as oclif declares it, typed by what it returns. */
export type NodeRemoveOclifFlags = {
  [N in NodeRemoveFlagName]-?: boolean extends NonNullable<NodeRemoveFlags[N]>
    ? Interfaces.BooleanFlag<boolean>
    : Interfaces.OptionFlag<NodeRemoveFlags[N]>;
};

/** oclif's flags of node-remove, in the contract's order, with the help texts in `help`. */
export function nodeRemoveFlags(help: Record<Exclude<NodeRemoveFlagName, OutputFlagName>, FlagHelp>) {
  const { output, 'no-headers': noHeaders } = outputFlags(['table', 'wide', 'json', 'yaml']);
  const out: Record<string, unknown> = {};
  for (const [name, decl] of Object.entries(NODE_REMOVE_FLAGS)) {
    if (name === 'output') out[name] = output;
    else if (name === 'no-headers') out[name] = noHeaders;
    else {
      const words = help[name as Exclude<NodeRemoveFlagName, OutputFlagName>];
      const given = decl as { kind: string; default?: string; env?: string };
      const option = {
        description: words.description,
        ...(given.env ? { env: given.env } : {}),
        ...(given.default !== undefined ? { default: given.default } : {}),
        ...extra(words),
      };
      const flag =
        given.kind === 'boolean'
          ? Flags.boolean({ description: words.description, ...extra(words) })
          : given.kind === 'strings'
            ? Flags.string({ description: words.description, multiple: true, ...extra(words) })
            : Flags.string(option);
      out[name] = words.completion ? completes(words.completion, flag) : flag;
    }
  }
  // The table above holds, for each name, the flag of its declared kind (and -o the shared one,
  // whose default is the contract's 'table'): the one conversion from the loop's plain record.
  return out as NodeRemoveOclifFlags;
}

const extra = ({ helpGroup, aliases, deprecateAliases }: FlagHelp) => ({
  ...(helpGroup ? { helpGroup } : {}),
  ...(aliases ? { aliases } : {}),
  ...(deprecateAliases ? { deprecateAliases } : {}),
});
