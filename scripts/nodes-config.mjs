// The configuration files of a whole local cluster's node i (scripts/nodes.mjs): its kubelet's
// KubeletConfiguration (cgroupfs under the node's own cgroup root, its own CRI socket, image
// garbage collection and evictions off for tests, fast status updates) and its CNI bridge
// conflist (a subnet per cluster and node, no masquerading).
import path from 'node:path';
import * as cri from './cri.mjs';
import { bridgeName, cgroupRoot, clusterId, nodeCriDir, nodeDir } from './nodes-layout.mjs';

export function kubeletConfig(dir, i, ports) {
  const nd = nodeDir(dir, i);
  return {
    kind: 'KubeletConfiguration',
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    cgroupDriver: 'cgroupfs',
    cgroupRoot: `/${cgroupRoot(dir, i)}`,
    failCgroupV1: false,
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${cri.criSocketPath(nodeCriDir(dir, i))}`,
    address: '0.0.0.0',
    port: ports.port,
    healthzPort: ports.healthz,
    healthzBindAddress: '127.0.0.1',
    readOnlyPort: 0,
    // Tests only: the API server reaches the kubelet (logs, exec) without client certificates.
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    makeIPTablesUtilChains: false,
    // Image garbage collection off: images leave a node only through what the tests do.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // A small disk must never evict test Pods.
    evictionHard: {
      'memory.available': '50Mi',
      'nodefs.available': '1%',
      'nodefs.inodesFree': '1%',
      'imagefs.available': '1%',
      'imagefs.inodesFree': '1%',
    },
    fileCheckFrequency: '2s',
    syncFrequency: '10s',
    nodeStatusUpdateFrequency: '5s',
    nodeStatusReportFrequency: '5s',
    nodeLeaseDurationSeconds: 20,
    podLogsDir: path.join(nd, 'pod-logs'),
    serializeImagePulls: false,
  };
}

export function cniConfig(dir, i) {
  return {
    cniVersion: '1.0.0',
    name: `inv-node-${i}`,
    plugins: [
      {
        type: 'bridge',
        bridge: bridgeName(dir, i),
        isGateway: true,
        // No masquerading: Pods only talk to the host, and no iptables is needed.
        ipMasq: false,
        hairpinMode: true,
        ipam: {
          type: 'host-local',
          ranges: [[{ subnet: `10.${87 + clusterId(dir)}.${i}.0/24` }]],
          routes: [{ dst: '0.0.0.0/0' }],
          dataDir: path.join(nodeDir(dir, i), 'ipam'),
        },
      },
      { type: 'loopback' },
    ],
  };
}
