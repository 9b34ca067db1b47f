// One leader-election candidate as its own process, so a test can crash it for real (SIGKILL):
// no release, no callbacks, the Lease left to expire. Prints "leading" when it starts leading.
import { KubeConfig } from '@kubernetes/client-node';
import { LeaderElector } from '../../src/core/controller/leader-election.js';

const kc = new KubeConfig();
kc.loadFromFile(process.env.ELECTOR_KUBECONFIG!);
const timing = JSON.parse(process.env.ELECTOR_TIMING!) as {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
};
void new LeaderElector({
  kubeConfig: kc,
  namespace: process.env.ELECTOR_NAMESPACE!,
  name: process.env.ELECTOR_LEASE!,
  identity: process.env.ELECTOR_ID!,
  ...timing,
  onStartedLeading: () => void process.stdout.write('leading\n'),
  onStoppedLeading: () => void process.stdout.write('stopped\n'),
}).run();
