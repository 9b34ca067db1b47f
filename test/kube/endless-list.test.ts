// Every paginated read is bounded (kube/paginate.ts): against a local server that always sends a
// continue token (a new one each page), KubeRest.list, the daemon's informer and `inv images` /
// `inv erase status` end with a clear error in bounded time and memory, never a list that grows
// until the process dies. A token sent twice ends the list at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeRest, ListBoundError } from '../../src/core/kube/rest.js';
import { httpServer, kubeConfig } from '../support/servers/hostile-http.js';
import { repoRoot } from '../support/paths.js';

/** Answers every GET with a full page of small objects and a continue token (`repeat`: the same one). */
async function endless(opts: { repeat?: boolean } = {}) {
  let pages = 0;
  const server = await httpServer((req, res) => {
    pages++;
    const limit = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('limit') ?? 500) || 500;
    const items = Array.from({ length: Math.min(limit, 500) }, (_, i) => ({
      apiVersion: 'imageinventory.dev/v1alpha1',
      kind: 'Image',
      metadata: { name: `i-${pages}-${i}`, namespace: 'a' },
      spec: { image: `example.com/i:${pages}-${i}` },
    }));
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        kind: 'List',
        apiVersion: 'v1',
        // Discovery answers too, for the commands' CRD checks.
        groupVersion: 'imageinventory.dev/v1alpha1',
        resources: [{ name: 'images', kind: 'Image', namespaced: true, verbs: ['list', 'get'] }],
        metadata: { continue: opts.repeat ? 'again' : `page-${pages}`, resourceVersion: '1' },
        items,
      }),
    );
  });
  return { ...server, pages: () => pages };
}

describe('paginated reads are bounded (a server that never stops paginating)', function () {
  this.timeout(120_000);

  it('KubeRest.list stops at its bounds of items, pages and bytes, and at a repeated token', async () => {
    const s = await endless();
    const rest = new KubeRest(kubeConfig(s.url));
    try {
      await assert.rejects(
        rest.list('/api/v1/pods', { bounds: { maxItems: 2_000 } }),
        (e: unknown) =>
          e instanceof ListBoundError &&
          /^LIST \/api\/v1\/pods: more than 2000 items, the bound of one list; stopped after 5 page\(s\), 2000 item\(s\)/.test(
            e.message,
          ),
      );
      await assert.rejects(
        rest.list('/api/v1/pods', { pageSize: 1, bounds: { maxPages: 50 } }),
        /more than 50 pages, the bound of one list; stopped after 50 page\(s\), 50 item\(s\)/,
      );
      await assert.rejects(
        rest.list('/api/v1/pods', { bounds: { maxBytes: 1_000_000 } }),
        /more than 1000000 bytes/,
      );
      const before = s.pages();
      // With the default bounds: a million items, then a clear error, in bounded time.
      const t0 = Date.now();
      await assert.rejects(rest.list('/api/v1/pods', { map: () => 0 }), /more than 1000000 items/);
      assert.ok(Date.now() - t0 < 90_000, `${Date.now() - t0} ms`);
      assert.equal(s.pages() - before, 2001);
    } finally {
      rest.close();
      await s.close();
    }
    const loop = await endless({ repeat: true });
    const r2 = new KubeRest(kubeConfig(loop.url));
    try {
      await assert.rejects(
        r2.list('/api/v1/pods'),
        /the server sent the same continue token twice; stopped after 2 page/,
      );
    } finally {
      r2.close();
      await loop.close();
    }
  });

  it('inv images ends with the reason, exit 1 or 2, not a process that grows without end', async () => {
    const s = await endless({ repeat: true });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inv-endless-'));
    const cfg = path.join(dir, 'config');
    fs.writeFileSync(cfg, kubeConfig(s.url).exportConfig());
    try {
      const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [path.join(repoRoot, 'bin', 'run.js'), 'images', '-A', '--kubeconfig', cfg],
          {
            env: { ...process.env, NO_COLOR: '1' },
          },
        );
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      assert.ok(r.code === 1 || r.code === 2, `exit ${r.code}: ${r.stderr}`);
      assert.match(r.stderr.replace(/\s*\n\s*›\s+/g, ' '), /same continue token twice/);
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
