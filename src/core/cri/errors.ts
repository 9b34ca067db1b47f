// One error type for everything that goes wrong talking to the runtime, so callers can tell
// "the runtime could not be reached" (exit 2 for node-remove) from "one call was refused"
// (a per-image failure), and every message names the endpoint.
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

export type CriErrorKind =
  /** No socket, nobody listening, or the connection was not ready before the deadline. */
  | 'unreachable'
  /** Connected, but the runtime did not answer a call before its deadline. */
  | 'timeout'
  /** The runtime answered with an error status. */
  | 'call';

export class CriError extends Error {
  readonly kind: CriErrorKind;
  readonly endpoint: string;
  readonly method: string | undefined;
  /** gRPC status code when the runtime (or grpc-js) reported one. */
  readonly code: number | undefined;

  constructor(
    kind: CriErrorKind,
    endpoint: string,
    message: string,
    opts: { method?: string; code?: number } = {},
  ) {
    super(message);
    this.name = 'CriError';
    this.kind = kind;
    this.endpoint = endpoint;
    this.method = opts.method;
    this.code = opts.code;
  }
}

const codeName = (code: number): string =>
  (Object.entries(GrpcStatus).find(([, v]) => v === code)?.[0] as string | undefined) ?? String(code);

/** Wraps a grpc-js call error, classifying deadline and transport failures. */
export function fromServiceError(
  endpoint: string,
  method: string,
  err: ServiceError,
  timeoutMs: number,
): CriError {
  if (err.code === GrpcStatus.DEADLINE_EXCEEDED) {
    return new CriError(
      'timeout',
      endpoint,
      `container runtime at ${endpoint} did not answer ${method} within ${timeoutMs} ms`,
      {
        method,
        code: err.code,
      },
    );
  }
  if (err.code === GrpcStatus.UNAVAILABLE) {
    return new CriError(
      'unreachable',
      endpoint,
      `container runtime at ${endpoint} is unavailable (${method}): ${err.details}`,
      {
        method,
        code: err.code,
      },
    );
  }
  // Past the limits of limits.ts: say so plainly (grpc-js words it as a transport detail).
  const large = /^Received message larger than max \((\d+) vs\.? (\d+)\)/.exec(err.details ?? '');
  if (err.code === GrpcStatus.RESOURCE_EXHAUSTED && large) {
    return new CriError(
      'call',
      endpoint,
      `the container runtime at ${endpoint} answered ${method} with ${large[1]} bytes, more than ${large[2]}, the most inv reads per answer, to bound its memory`,
      { method, code: err.code },
    );
  }
  const parse = /^Response message parsing error: (the answer has more than .*)$/.exec(err.details ?? '');
  if (parse) {
    return new CriError(
      'call',
      endpoint,
      `the container runtime at ${endpoint} answered ${method}, but ${parse[1]}`,
      { method, code: err.code },
    );
  }
  return new CriError(
    'call',
    endpoint,
    `${method} on ${endpoint} failed: ${codeName(err.code)}: ${err.details}`,
    {
      method,
      code: err.code,
    },
  );
}
