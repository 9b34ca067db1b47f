// `inv erase`'s narrowing of a `*` prune: --only and --except (the scope: refs/scope.ts, the
// exclusion patterns' grammar) and --keep-newest (keep the N newest images of each repository on
// each node), read into the ImageList's spec.scope and spec.keepNewest; every problem named at
// once with the other flag rules (erase-options.ts), in the flags' words.
import { Flags } from '@oclif/core';
import { narrowingProblems } from '../../core/erase/spec/images.js';
import { MAX_KEEP_NEWEST, parseKeepNewest } from '../../core/contract/keep-newest-bound.js';
import { FLAG_WORDS, type ScopeSpec } from '../../core/refs/scope.js';
import type { FlagValues } from '../flag-values.js';

export const scopeFlags = {
  only: Flags.string({
    description:
      "With --all-unused or --vulnerable: consider only images matching one of these patterns (comma-separated, repeatable; the grammar of the administrator's exclusions: * matches any run of characters, e.g. 'ci.example.com/**'). The others are kept as out-of-scope.",
    multiple: true,
    multipleNonGreedy: true,
  }),
  except: Flags.string({
    description:
      'With --all-unused or --vulnerable: images matching one of these patterns are kept as out-of-scope (comma-separated, repeatable).',
    multiple: true,
    multipleNonGreedy: true,
  }),
  'keep-newest': Flags.string({
    description: `With --all-unused or --vulnerable: on each node, keep the N newest images of each repository (1 to ${MAX_KEEP_NEWEST}; by version when every tag reads as one, else by creation time, else by tag); the older unused ones are removed.`,
    helpValue: 'N',
  }),
};

type ScopeFlags = Pick<FlagValues<typeof scopeFlags>, 'only' | 'except' | 'keep-newest'>;

export interface NarrowingSpec {
  scope?: ScopeSpec;
  keepNewest?: number;
}

const patterns = (values: readonly string[] | undefined) =>
  values === undefined ? undefined : values.flatMap((v) => v.split(',')).map((s) => s.trim());

/** The spec fields and the problems. */
export function completeNarrowing(
  flags: ScopeFlags,
  images: readonly string[],
): { spec: NarrowingSpec; problems: string[] } {
  const problems: string[] = [];
  const only = patterns(flags.only);
  const except = patterns(flags.except);
  const spec: NarrowingSpec = {};
  if (only || except) spec.scope = { ...(only ? { only } : {}), ...(except ? { except } : {}) };
  const keep = flags['keep-newest'];
  if (keep !== undefined) {
    try {
      spec.keepNewest = parseKeepNewest(keep, '--keep-newest');
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  problems.push(
    ...narrowingProblems({ images, ...spec }, { ...FLAG_WORDS, keepNewest: '--keep-newest' }).map((p) =>
      p.startsWith('--only, --except and --keep-newest narrow')
        ? '--only, --except and --keep-newest go with --all-unused or --vulnerable alone'
        : p,
    ),
  );
  return { spec, problems };
}
