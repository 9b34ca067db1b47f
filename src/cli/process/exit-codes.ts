// Exit codes scripts can rely on, shared by every command.
export const EXIT_OK = 0;
/** The command ran but some of its work failed (a namespace, a removal, a job). */
export const EXIT_PARTIAL_FAILURE = 1;
/** Bad input or unreachable dependency: nothing was done. */
export const EXIT_USAGE = 2;
/** `inv images`: the filters matched nothing (scripts gate on "nobody uses X any more"). */
export const EXIT_NO_MATCH = 3;
/** Interrupted by Ctrl-C (SIGINT), as shells report 128 + 2. */
export const EXIT_INTERRUPTED = 130;
/** A mistyped command, as shells report a command not found: src/hooks/command-not-found.ts exits with it (hooks sit beside cli/, so it writes the number; test/docs/commands.test.ts checks they agree). */
export const EXIT_UNKNOWN_COMMAND = 127;

/** Every exit code with what it tells a script: docs/cli.md's table is generated from this (npm run gen:docs). */
export const EXIT_CODES: readonly { code: number; meaning: string }[] = [
  { code: EXIT_OK, meaning: 'success: everything asked was done' },
  {
    code: EXIT_PARTIAL_FAILURE,
    meaning:
      'the command ran but part of its work failed (a namespace, a removal, a job); the output says which',
  },
  {
    code: EXIT_USAGE,
    meaning:
      'bad input or nothing reachable, nothing was done: a bad flag or stray argument, no cluster configured, a kubeconfig that cannot be used (empty, not YAML, unreadable, a --context, --user or --cluster it lacks), a CRD not installed, a namespace that does not exist, a permission missing for everything asked',
  },
  { code: EXIT_NO_MATCH, meaning: '`inv images`: the filters matched nothing (a pipeline can gate on it)' },
  {
    code: EXIT_UNKNOWN_COMMAND,
    meaning: 'a mistyped command: `error: unknown command "scna" for "inv"`, with the closest commands',
  },
  { code: EXIT_INTERRUPTED, meaning: 'interrupted (Ctrl-C, SIGINT)' },
];
