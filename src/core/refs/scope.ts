// The scope of a prune (`inv erase --all-unused --only P --except Q`, ImageList spec.scope): which
// of a node's images a `*` prune may consider at all. The patterns are exclusion patterns
// (./exclusion.ts), compiled and matched by the same engine, so `ci.example.com/**`, `app:*` and
// `*/nginx:*` mean here what they mean in the administrator's exclusions. PURE.
//
// An image is in scope when it matches some `only` pattern (every image, without `only`) and no
// `except` pattern. What is out of scope is never a candidate, and its outcome says why.
//
// Refused, with the reason, before anything runs: an empty pattern; a pattern of stars alone
// (`only: ['*']` is the plain prune, and `except: ['*']` leaves nothing in scope: either way the
// pattern is a mistake); a pattern the exclusion grammar refuses because no reference can match
// it (`ci.example.com/UPPER*`, `app:tag with space`, `sha256:xyz*`); more than MAX_SCOPE_PATTERNS.
import { compileExclusion, matchesExclusion, type ExclusionMatcher } from './exclusion.js';

/** Patterns per list at most: each one goes to every worker on its command line. */
export const MAX_SCOPE_PATTERNS = 64;
/** Characters per pattern at most (the CRD says the same). */
export const MAX_SCOPE_PATTERN_LENGTH = 255;

/** ImageList spec.scope: patterns, as the requester wrote them. */
export interface ScopeSpec {
  only?: string[];
  except?: string[];
}

/** A compiled scope: the matchers of each list (only empty: every image). */
export interface Scope {
  readonly only: readonly ExclusionMatcher[];
  readonly except: readonly ExclusionMatcher[];
}

/** How the caller names the lists in its messages (flags on the CLI, fields in a spec). */
export interface ScopeWords {
  only: string;
  except: string;
}

export const SPEC_WORDS: ScopeWords = { only: 'spec.scope.only', except: 'spec.scope.except' };
export const FLAG_WORDS: ScopeWords = { only: '--only', except: '--except' };

/** Why one pattern of a list is refused, or undefined. */
export function scopePatternProblem(pattern: string, list: 'only' | 'except'): string | undefined {
  if (pattern.trim() === '') return 'an empty pattern matches no image';
  if (pattern.length > MAX_SCOPE_PATTERN_LENGTH) return `longer than ${MAX_SCOPE_PATTERN_LENGTH} characters`;
  if (/^\*+$/.test(pattern))
    return list === 'only'
      ? 'a pattern of only * matches every image: drop it for a plain prune of every unused image'
      : 'a pattern of only * puts every image out of scope: nothing could be removed';
  const c = compileExclusion(pattern);
  return c.ok ? undefined : `no image reference can match it: ${c.reason}`;
}

/** Every problem of the spec's patterns, each naming its list and pattern ([] when fine). */
export function scopeProblems(spec: ScopeSpec | undefined, words: ScopeWords = SPEC_WORDS): string[] {
  const problems: string[] = [];
  for (const list of ['only', 'except'] as const) {
    const patterns = spec?.[list];
    if (patterns === undefined) continue;
    if (patterns.length > MAX_SCOPE_PATTERNS)
      problems.push(`${words[list]}: ${patterns.length} patterns, at most ${MAX_SCOPE_PATTERNS}`);
    for (const p of patterns) {
      const why = scopePatternProblem(p, list);
      if (why) problems.push(`${words[list]} ${JSON.stringify(p)}: ${why}`);
    }
  }
  if (spec?.only?.length === 0) problems.push(`${words.only}: give at least one pattern, or leave it out`);
  return problems;
}

/** The compiled scope; throws with every problem at once (bad input). */
export function compileScope(spec: ScopeSpec, words: ScopeWords = SPEC_WORDS): Scope {
  const problems = scopeProblems(spec, words);
  if (problems.length) throw new Error(problems.join('; '));
  const compile = (ps: readonly string[] | undefined) =>
    (ps ?? []).map((p) => {
      const c = compileExclusion(p);
      if (!c.ok) throw new Error(`${p}: ${c.reason}`);
      return c.matcher;
    });
  return { only: compile(spec.only), except: compile(spec.except) };
}

/** Whether the spec narrows anything (a scope with no pattern is every image). */
export const hasScope = (spec: ScopeSpec | undefined): boolean =>
  !!spec && ((spec.only?.length ?? 0) > 0 || (spec.except?.length ?? 0) > 0);

/**
 * Why an image is out of scope (its aliases: tags, digest refs, ID), or undefined when it is in:
 * `matches no only pattern (ci.example.com/**)` or `matches except pattern ci.example.com/keep:*`.
 */
export function outOfScope(scope: Scope, aliases: readonly string[]): string | undefined {
  if (scope.only.length > 0 && matchesExclusion(scope.only, aliases) === undefined) {
    const shown = scope.only.slice(0, 3).map((m) => m.pattern);
    const more = scope.only.length > 3 ? `, +${scope.only.length - 3} more` : '';
    return `matches no only pattern (${shown.join(', ')}${more})`;
  }
  const except = matchesExclusion(scope.except, aliases);
  return except === undefined ? undefined : `matches except pattern ${except}`;
}
