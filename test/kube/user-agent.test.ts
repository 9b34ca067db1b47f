// Every API request names inv and its version in the User-Agent, as client-go's clients do, so
// the API server's audit log tells inv's calls from others'.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { KubeRest } from '../../src/core/kube/rest.js';
import { httpServer, kubeConfig } from '../support/servers/hostile-http.js';
import { repoRoot } from '../support/paths.js';

describe('User-Agent', () => {
  it('requests and watch streams send inv/<version> (<os>/<arch>)', async () => {
    const seen: (string | undefined)[] = [];
    const server = await httpServer((req, res) => {
      seen.push(req.headers['user-agent']);
      res.setHeader('content-type', 'application/json');
      res.end('{"kind":"Status"}');
    });
    const rest = new KubeRest(kubeConfig(server.url));
    try {
      await rest.request('GET', '/version');
      const { headers } = await rest.streamConnection('/api/v1/pods?watch=1');
      const version = (
        JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }
      ).version;
      const arch = process.arch === 'x64' ? 'amd64' : process.arch;
      assert.deepEqual(seen, [`inv/${version} (${process.platform}/${arch})`]);
      assert.equal(headers['User-Agent'], seen[0]);
    } finally {
      rest.close();
      await server.close();
    }
  });
});
