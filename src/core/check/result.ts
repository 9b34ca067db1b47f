// One check's result, shared by every check of `inv check`.
// 'skip' is a part that was not installed and was not asked for (as `linkerd check` leaves out
// extensions that are not installed): it passes, and says how to add the part.
export type CheckStatus = 'pass' | 'warn' | 'skip' | 'fail';

export interface CheckResult {
  group: string;
  name: string;
  status: CheckStatus;
  /** What was found (a version, a holder, the error). */
  detail?: string;
  /** What to do about a failure. */
  hint?: string;
}
