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
