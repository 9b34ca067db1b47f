// One check's result, shared by every check of `inv check`.
export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface CheckResult {
  group: string;
  name: string;
  status: CheckStatus;
  /** What was found (a version, a holder, the error). */
  detail?: string;
  /** What to do about a failure. */
  hint?: string;
}
