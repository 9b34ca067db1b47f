// A non-zero exit must not cut piped output (issue 25: `inv scan -n big -n nope -o json |
// (sleep 1; wc -c)` got 65,536 of 370,847 bytes, and stderr lost most of 100,000 warnings and
// the final `error:` line, because the error handler called process.exit() with writes pending).
// The bundle as it ships scans a namespace with 2,000 images and 2,000 invalid refs plus one
// that does not exist (exit 1), into pipes that this test reads slowly: a pause after every
// chunk, so the child's writes are still pending when it decides to exit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { kubeconfigPath } from '../support/kube.js';
import { repoRoot } from '../support/paths.js';
import { setupEnv, template, type Env } from '../inventory/helpers.js';
import { useNamespace } from '../support/suite-hooks.js';

const DEPLOYMENTS = 4;
const PER = 500;

/** Reads `stream` to its end, pausing `pauseMs` after every chunk: a slow pipe. */
function slowRead(stream: Readable, pauseMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    stream.on('data', (c: Buffer) => {
      parts.push(c);
      stream.pause();
      setTimeout(() => stream.resume(), pauseMs);
    });
    stream.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    stream.on('error', reject);
  });
}

describe('exit with output pending in a slow pipe (the shipped bundle)', function () {
  this.timeout(120_000);
  let env: Env;
  let ns: string;

  useNamespace('drain', (n) => (ns = n));
  before(async () => {
    env = await setupEnv();
    // Each Deployment: 250 valid refs and 250 invalid ones (upper case in the repository).
    for (let d = 0; d < DEPLOYMENTS; d++) {
      const images = Array.from({ length: PER }, (_, i) =>
        i % 2 ? `example.com/team/app-${d}-${i}:1.0` : `example.com/Team/App-${d}-${i}:1.0`,
      );
      await env.apps.createNamespacedDeployment({
        namespace: ns,
        body: {
          metadata: { name: `big-${d}` },
          spec: { selector: { matchLabels: { app: `big-${d}` } }, template: template(`big-${d}`, images) },
        },
      });
    }
  });
  after(() => env.rest.close());

  it('delivers all of stdout and stderr, the error line last, before exiting 1', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(repoRoot, 'bin', 'run.js'),
        'scan',
        '--kubeconfig',
        kubeconfigPath(),
        '-n',
        ns,
        '-n',
        'nope-does-not-exist',
        '--dry-run',
        '-o',
        'json',
      ],
      { env: { ...process.env, NO_COLOR: '1', INV_BUNDLE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const [stdout, stderr, status] = await Promise.all([
      slowRead(child.stdout, 50),
      slowRead(child.stderr, 50),
      new Promise<number | null>((r) => child.on('close', (code) => r(code))),
    ]);
    console.log(`      ${stdout.length} bytes on stdout, ${stderr.length} on stderr`);
    assert.equal(status, 1, stderr.slice(-500));
    const doc = JSON.parse(stdout) as {
      namespaces: { namespace: string; images: unknown[]; invalid: unknown[] }[];
    };
    const big = doc.namespaces.find((n) => n.namespace === ns)!;
    assert.equal(big.images.length, (DEPLOYMENTS * PER) / 2);
    assert.equal(big.invalid.length, (DEPLOYMENTS * PER) / 2);
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('warning: ')).length, (DEPLOYMENTS * PER) / 2);
    assert.match(lines.at(-1)!, /^error: namespace nope-does-not-exist: /);
    assert.ok(stdout.length > 200_000 && stderr.length > 150_000, 'more than the pipes hold');
  });
});
