// The values of a flag table as oclif's parse returns them, derived from the declarations: what
// a command's options read is typed by what the command declares, so a flag renamed, removed or
// given another type fails to compile where it is read (hand-written mirrors of the tables drifted
// unseen, and were applied with casts). A value flag with a default (or required) is always
// there; any other may be absent, booleans included: oclif leaves out a boolean that was not
// given and has no default, though its own InferredFlags types it `boolean`.
import type { Interfaces } from '@oclif/core';

/** What oclif returns for one flag: its parser's type (booleans: boolean). */
type ValueOf<F> =
  F extends Interfaces.OptionFlag<infer T> ? T : F extends Interfaces.BooleanFlag<infer B> ? B : never;

/** The flags that are always in the result: value flags whose type cannot be undefined. */
type AlwaysThere<F> = {
  [K in keyof F]: F[K] extends Interfaces.BooleanFlag<unknown>
    ? never
    : undefined extends ValueOf<F[K]>
      ? never
      : K;
}[keyof F];

/** A flag table's parsed values: `FlagValues<typeof scanFlags>`. */
export type FlagValues<F> = {
  [K in AlwaysThere<F>]: ValueOf<F[K]>;
} & {
  [K in Exclude<keyof F, AlwaysThere<F>>]?: Exclude<ValueOf<F[K]>, undefined>;
};
