// A controller process for the kill/restart test: runs the erase controllers until killed.
import { KubeConfig } from '@kubernetes/client-node';
import { EraseControllers } from '../../src/core/erase/controllers.js';

const kc = new KubeConfig();
kc.loadFromFile(process.env.ERASE_KUBECONFIG!);
const c = new EraseControllers({
  kubeConfig: kc,
  namespace: process.env.ERASE_NAMESPACE!,
  configNamespace: process.env.ERASE_NAMESPACE!,
  jobResyncMs: 500,
});
void c.start(new AbortController().signal);
process.stdout.write('started\n');
