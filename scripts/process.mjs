// Process helpers shared by the service scripts (cluster.mjs, cri.mjs).
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopPid(pid, graceMs = 10_000) {
  if (!alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await sleep(50);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await sleep(20);
}

/** True when the module at `moduleUrl` is the script node was started with. */
export const isMain = (moduleUrl) =>
  Boolean(process.argv[1]) && fileURLToPath(moduleUrl) === path.resolve(process.argv[1]);

/** A TCP port free on `host` right now (the kernel's pick). */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}
