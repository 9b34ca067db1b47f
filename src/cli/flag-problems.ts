// Every problem with a command's flags, collected before it runs (kubectl's Validate): a parse
// that throws becomes one line of the list (failFlags prints it) instead of ending the command
// at the first bad flag.
import { parseSortBy } from './output/print-data.js';

/** `fn`'s value; when it throws, its message (after `prefix`) joins `problems`, and undefined. */
export function attempt<T>(problems: string[], fn: () => T, prefix = ''): T | undefined {
  try {
    return fn();
  } catch (e) {
    problems.push(`${prefix}${(e as Error).message}`);
    return undefined;
  }
}

/** --sort-by checked up front: its JSONPath, or undefined when it is absent or a problem. */
export function sortByOption(problems: string[], sortBy: string | undefined): string | undefined {
  return sortBy === undefined ? undefined : attempt(problems, () => parseSortBy(sortBy), '--sort-by: ');
}
