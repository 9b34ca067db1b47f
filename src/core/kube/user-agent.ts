// The User-Agent of every API request, in client-go's form (`kubectl/v1.37.2 (linux/amd64)
// kubernetes/...`): the API server's audit log and its request logs then name inv and its
// version, where Node's clients send no User-Agent at all, so an administrator could not tell
// inv's calls from any other script's.
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-root.js';

/** Go's names for Node's architectures (client-go writes runtime.GOARCH). */
const GOARCH: Record<string, string> = { x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64' };

let cached: string | undefined;

/** `inv/<version> (<os>/<arch>)`. */
export function userAgent(): string {
  if (cached) return cached;
  let version = 'unknown';
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    if (typeof pkg.version === 'string') version = pkg.version;
  } catch {
    // A User-Agent is informative: a missing package.json must not stop a request.
  }
  return (cached = `inv/${version} (${process.platform}/${GOARCH[process.arch] ?? process.arch})`);
}
