// A worker's JSON report, read back from `kubectl logs`. The logs hold both of the container's
// streams, and the runtime copies stdout and stderr separately: node-remove writes its warnings
// ("warning: ...", stderr) before its report (stdout), but the log may hold a warning after the
// report, or between two of its lines. So stderr's lines are dropped before the JSON is parsed.
const STDERR_LINE = /^(warning: |\(node:\d+\) )/;

/** node-remove's `-o json` report from a worker's `kubectl logs` output. */
export function reportFromLogs<T>(logs: string): T {
  const stdout = logs
    .split('\n')
    .filter((l) => !STDERR_LINE.test(l))
    .join('\n');
  return JSON.parse(stdout.slice(stdout.indexOf('{'))) as T;
}
