// `inv uninstall` after `inv install --daemon --image X --image-pull-secret P`, with nothing
// edited: the erase configuration is as install wrote it (its workers' part names X and P, not
// the shipped defaults), so uninstall deletes it and the namespaces go, as for any untouched
// installation. Judged against the shipped configuration alone, it looked "edited" and kept the
// daemon's namespace after every install with an image. On a fresh API server.
import assert from 'node:assert/strict';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { freshApiServer, type FreshApiServer } from '../support/fresh-apiserver.js';

describe('uninstall after install --image: the erase configuration as install wrote it goes', function () {
  this.timeout(180_000);
  let server: FreshApiServer;
  const inv = (args: string[]): CliResult => runCli([...args, '--kubeconfig', server.kubeconfig]);

  before(async () => {
    server = await freshApiServer();
  });
  after(async () => {
    await server?.stop();
  });

  it('deletes inv-erase-config and both namespaces', () => {
    const i = inv([
      'install',
      '--daemon',
      '--image',
      'registry.example.com/inv:3',
      '--image-pull-secret',
      'pull',
    ]);
    assert.equal(i.status, 0, i.stderr);
    const r = inv(['uninstall']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^configmap\/inv-erase-config deleted$/m, r.stdout);
    assert.match(r.stdout, /^namespace\/image-inventory-system deleted$/m, r.stdout);
    assert.match(r.stdout, /^namespace\/image-inventory-workers deleted$/m, r.stdout);
  });
});
