// Unreachable runtimes must fail fast and clearly, never hang: a missing socket, a socket file
// nobody listens on, a listener that never speaks gRPC, and a gRPC server that never answers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connectCri, CriError } from '../../src/core/cri/index.js';
import { serveFake } from './fake-runtime.js';

const TIMEOUT = 800;
// Generous slack for a loaded 2-core CI machine; the point is "bounded", not "fast".
const BOUND = TIMEOUT + 1500;

async function expectFailure(endpoint: string, pattern: RegExp, ...kinds: string[]): Promise<number> {
  const started = Date.now();
  await assert.rejects(connectCri({ endpoint, timeoutMs: TIMEOUT }), (err: unknown) => {
    assert.ok(err instanceof CriError, `CriError expected, got ${String(err)}`);
    assert.ok(kinds.includes(err.kind), `kind ${err.kind}, expected ${kinds.join('|')}`);
    assert.match(err.message, pattern);
    assert.ok(err.message.includes(endpoint), `message names the endpoint: ${err.message}`);
    return true;
  });
  const took = Date.now() - started;
  assert.ok(took < BOUND, `failed after ${took} ms, more than ${BOUND} ms`);
  return took;
}

describe('CRI client deadlines', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-cri-deadline-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('fails at once for a missing socket', async () => {
    const endpoint = `unix://${path.join(tmp, 'missing.sock')}`;
    await expectFailure(endpoint, /does not exist/, 'unreachable');
  });

  it('accepts a bare path and rejects non-unix endpoints', async () => {
    await expectFailure(path.join(tmp, 'bare.sock'), /does not exist/, 'unreachable');
    await assert.rejects(
      connectCri({ endpoint: 'tcp://127.0.0.1:1', timeoutMs: TIMEOUT }),
      /only unix sockets/,
    );
  });

  it('fails within the timeout for a socket file with no listener', async () => {
    // A process that listens and is killed leaves its socket file behind: connect() is refused.
    const sock = path.join(tmp, 'stale.sock');
    const child = spawn(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(sock)}, () => process.stdout.write('up'))`,
    ]);
    await new Promise((r) => child.stdout.once('data', r));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.ok(fs.statSync(sock).isSocket());
    await expectFailure(
      `unix://${sock}`,
      /cannot connect to the container runtime .* within 800 ms/,
      'unreachable',
    );
  });

  it('fails within the timeout for a listener that never speaks', async () => {
    const sock = path.join(tmp, 'silent.sock');
    const conns: net.Socket[] = [];
    const server = net.createServer((c) => conns.push(c)); // accept, never answer
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      // Depending on when grpc-js considers the transport ready, this is a connect failure or a
      // Version call timeout; both are bounded and name the endpoint.
      await expectFailure(`unix://${sock}`, /within 800 ms/, 'unreachable', 'timeout');
    } finally {
      for (const c of conns) c.destroy();
      await new Promise((r) => server.close(r));
    }
  });

  it('fails within the timeout for a gRPC server that never answers', async () => {
    const fake = await serveFake('v1', {
      RuntimeService: { Version: () => new Promise(() => undefined) }, // never resolves
    });
    try {
      await expectFailure(fake.endpoint, /did not answer Version within 800 ms/, 'timeout');
    } finally {
      // tryShutdown waits for the pending call; the client cancelled it at its deadline.
      await fake.close();
    }
  });
});
