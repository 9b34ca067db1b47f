// Runtime endpoints as users write them (kubelet's --container-runtime-endpoint style):
// `unix:///run/containerd/containerd.sock` or a bare `/run/containerd/containerd.sock`.
import fs from 'node:fs';
import path from 'node:path';
import { CriError } from './errors.js';

export { DEFAULT_RUNTIME_ENDPOINT } from '../constants.js';

export interface ParsedEndpoint {
  /** The socket's absolute path. */
  socketPath: string;
  /** The grpc-js target for it. */
  target: string;
  /** The endpoint as the user gave it, for messages. */
  display: string;
}

export function parseEndpoint(endpoint: string): ParsedEndpoint {
  const display = endpoint;
  let p = endpoint.trim();
  if (p.startsWith('unix://')) p = p.slice('unix://'.length);
  else if (p.startsWith('unix:')) p = p.slice('unix:'.length);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) {
    throw new CriError(
      'unreachable',
      display,
      `unsupported runtime endpoint ${display}: only unix sockets are supported`,
    );
  }
  if (!p || !path.isAbsolute(p)) {
    throw new CriError(
      'unreachable',
      display,
      `runtime endpoint ${display} must be an absolute unix socket path`,
    );
  }
  return { socketPath: p, target: `unix://${p}`, display };
}

/**
 * Fails at once, with a precise message, when the socket file is missing or is not a socket:
 * waiting for the deadline would only hide the obvious cause.
 */
export function checkSocket(ep: ParsedEndpoint): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(ep.socketPath);
  } catch {
    throw new CriError(
      'unreachable',
      ep.display,
      `cannot connect to the container runtime at ${ep.display}: socket ${ep.socketPath} does not exist (is the runtime running, and is the endpoint right?)`,
    );
  }
  if (!st.isSocket()) {
    throw new CriError(
      'unreachable',
      ep.display,
      `cannot connect to the container runtime at ${ep.display}: ${ep.socketPath} is not a socket`,
    );
  }
}
