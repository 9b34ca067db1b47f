// Controllers running inside a CLI command (`inv erase --standalone`) log their warnings and
// errors to stderr in the CLI's own style ("warning: ...", "error: ..."), so a job that cannot
// progress says why instead of hiding behind a spinner until the timeout.
import { createLogger, type Logger } from '../../core/observability/logger.js';

export function cliControllerLogger(write: (s: string) => void = (s) => process.stderr.write(s)): Logger {
  return createLogger({
    level: 'warn',
    format: 'text',
    stream: {
      write: (line: string) => {
        // "<ts> WARN  msg k=v ..." → "warning: msg k=v ..."
        const m = /^\S+ (WARN|ERROR)\s+([\s\S]*)$/.exec(line);
        write(m ? `${m[1] === 'ERROR' ? 'error' : 'warning'}: ${m[2]}` : line);
      },
    },
  });
}
