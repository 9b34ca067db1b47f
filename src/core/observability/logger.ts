// A small structured logger for the daemon (no dependency).
//
// Why JSON lines on stderr by default: the daemon runs as a Deployment, where log collectors
// parse one JSON object per line and stdout may be reserved for command output. `text` is for
// humans at a terminal (`--log-format text`). Fields are flat key/values so that queries such
// as `namespace="team-a"` work in any log backend.

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogFields = Record<string, unknown>;

export interface Logger {
  readonly level: LogLevel;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line (the call's own fields win on conflicts). */
  child(fields: LogFields): Logger;
  isLevelEnabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  /** Minimum level written. Default `info`. */
  level?: LogLevel;
  /** Default `json`. */
  format?: LogFormat;
  /** Where lines go. Default process.stderr. */
  stream?: { write(line: string): unknown };
  /** Fields on every line. */
  fields?: LogFields;
  /** Clock, for tests. */
  now?: () => Date;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
// Keys every line has; a field with one of these names is written as `field.<name>` instead of
// silently replacing the line's own timestamp, level or message.
const reserved = new Set(['ts', 'level', 'msg']);

export function parseLogLevel(value: string): LogLevel {
  const v = value.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  throw new Error(`invalid log level "${value}": expected one of ${LOG_LEVELS.join(', ')}`);
}

export function parseLogFormat(value: string): LogFormat {
  const v = value.toLowerCase();
  if ((LOG_FORMATS as readonly string[]).includes(v)) return v as LogFormat;
  throw new Error(`invalid log format "${value}": expected one of ${LOG_FORMATS.join(', ')}`);
}

/** Errors do not survive JSON.stringify (it gives `{}`); keep what helps diagnose them. */
function plain(value: unknown): unknown {
  if (value instanceof Error) {
    const out: LogFields = { name: value.name, message: value.message };
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) out.code = code;
    return out;
  }
  return value;
}

/** JSON.stringify that never throws: bigints become strings, cycles become "[Circular]". */
function stringify(value: unknown): string {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (_k, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      v = plain(v);
      if (v !== null && typeof v === 'object') {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
      }
      return v;
    });
  } catch {
    return '"[unserializable]"';
  }
}

function textValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  return stringify(value);
}

class StructuredLogger implements Logger {
  constructor(
    readonly level: LogLevel,
    private readonly format: LogFormat,
    private readonly stream: { write(line: string): unknown },
    private readonly fields: LogFields,
    private readonly now: () => Date,
  ) {}

  isLevelEnabled(level: LogLevel): boolean {
    return rank[level] >= rank[this.level];
  }

  debug(msg: string, fields?: LogFields): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.write('error', msg, fields);
  }

  child(fields: LogFields): Logger {
    return new StructuredLogger(
      this.level,
      this.format,
      this.stream,
      { ...this.fields, ...fields },
      this.now,
    );
  }

  private write(level: LogLevel, msg: string, fields?: LogFields): void {
    if (!this.isLevelEnabled(level)) return;
    const all = fields ? { ...this.fields, ...fields } : this.fields;
    const ts = this.now().toISOString();
    let line: string;
    if (this.format === 'json') {
      const rec: LogFields = { ts, level, msg };
      for (const [k, v] of Object.entries(all)) {
        if (v !== undefined) rec[reserved.has(k) ? `field.${k}` : k] = v;
      }
      line = stringify(rec);
    } else {
      line = `${ts} ${level.toUpperCase().padEnd(5)} ${msg}`;
      for (const [k, v] of Object.entries(all)) {
        if (v !== undefined) line += ` ${k}=${textValue(v)}`;
      }
    }
    try {
      this.stream.write(line + '\n');
    } catch {
      // Logging must never take the daemon down (e.g. EPIPE on a closed stderr).
    }
  }
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return new StructuredLogger(
    opts.level ?? 'info',
    opts.format ?? 'json',
    opts.stream ?? process.stderr,
    { ...opts.fields },
    opts.now ?? (() => new Date()),
  );
}

/** A logger that writes nothing, the default for library code given no logger. */
export const noopLogger: Logger = createLogger({ level: 'error', stream: { write: () => undefined } });
