// The flags of `inv watch` (its help lists them in this order), apart from the command so
// the command file is about options and flow (./options.ts completes and validates them).
import { Flags } from '@oclif/core';
import { kubeFlags } from '../flags.js';
import { sourceKindsFlag } from '../source-kinds-flag.js';
import { LOG_FORMATS, LOG_LEVELS } from '../../core/observability/logger.js';
import { DEFAULT_KUBE_API_BURST, DEFAULT_KUBE_API_QPS } from '../../core/kube/rate-limit.js';
import {
  DEFAULT_CONFIG_NAMESPACE,
  DEFAULT_NAMESPACE as ERASE_DEFAULT_NAMESPACE,
} from '../../core/erase/api/types.js';
import { completes } from '../completion/sources.js';

export const watchFlags = {
  ...sourceKindsFlag,
  namespaces: completes(
    'text',
    Flags.string({
      description: 'Comma-separated namespaces to watch and reconcile (default: all namespaces).',
    }),
  ),
  'leader-elect': Flags.boolean({
    description: 'Use a Lease so that only one replica reconciles.',
    default: false,
  }),
  'leader-elect-namespace': completes(
    'namespaces',
    Flags.string({
      description:
        'Namespace of the leader-election Lease (and of the heartbeat Lease without --leader-elect).',
      default: 'image-inventory-system',
    }),
  ),
  'leader-elect-id': completes(
    'text',
    Flags.string({
      aliases: ['lease-name'],
      description: 'Name of the leader-election Lease.',
      default: 'image-inventory-controller',
    }),
  ),
  'leader-elect-lease-duration': Flags.string({
    description: 'How long a Lease stays valid without renewal (whole seconds).',
    default: '15s',
    helpGroup: 'LEADER ELECTION TUNING',
  }),
  'leader-elect-renew-deadline': Flags.string({
    description: 'How long the leader retries renewing before it gives up leading.',
    default: '10s',
    helpGroup: 'LEADER ELECTION TUNING',
  }),
  'leader-elect-retry-period': Flags.string({
    description: 'Interval between acquire attempts and renewals.',
    default: '2s',
    helpGroup: 'LEADER ELECTION TUNING',
  }),
  'metrics-bind-address': Flags.string({
    description: 'host:port for /metrics ("0" disables).',
    default: '127.0.0.1:8080',
  }),
  'metrics-secure': Flags.boolean({
    description:
      'Serve /metrics over HTTPS, only to callers allowed `get` on the non-resource URL /metrics (TokenReview + SubjectAccessReview; bind the ClusterRole inv-metrics-reader).',
    default: false,
    allowNo: true,
  }),
  'metrics-cert-path': Flags.string({
    description:
      'With --metrics-secure: folder with tls.crt and tls.key (a mounted Secret), reloaded when they change (default: a self-signed certificate made at start).',
    dependsOn: ['metrics-secure'],
  }),
  'health-probe-bind-address': Flags.string({
    description: 'host:port for /healthz and /readyz ("0" disables; ":8081" listens on all interfaces).',
    default: ':8081',
  }),
  'log-format': Flags.string({
    description:
      'Log format (default: text when stderr is a terminal, json otherwise, as in a Pod or piped to a collector).',
    options: [...LOG_FORMATS],
  }),
  'log-level': Flags.string({
    description: 'Minimum log level.',
    options: [...LOG_LEVELS],
    default: 'info',
  }),
  'erase-controllers': Flags.boolean({
    description: 'Also run the erase ImageList/ImageJob controllers (see `inv erase`).',
    default: true,
    allowNo: true,
    helpGroup: 'ERASE',
  }),
  'erase-namespace': completes(
    'namespaces',
    Flags.string({
      description: 'Namespace for erase worker Pods, their ConfigMaps and PodTemplates.',
      default: ERASE_DEFAULT_NAMESPACE,
      helpGroup: 'ERASE',
    }),
  ),
  'erase-config-namespace': completes(
    'namespaces',
    Flags.string({
      description:
        'Namespace of the erase configuration (ConfigMap inv-erase-config) and exclusion lists: keep it one where only administrators may write ConfigMaps.',
      default: DEFAULT_CONFIG_NAMESPACE,
      helpGroup: 'ERASE',
    }),
  ),
  workers: Flags.integer({
    description:
      'Namespaces rebuilt concurrently (a rebuild mostly waits for the API server; writes are paced by --kube-api-qps either way).',
    default: 16,
    min: 1,
    max: 64,
  }),
  'resync-period': Flags.string({
    description: 'Rebuild every namespace this often even without events ("0" disables).',
    default: '1h',
  }),
  'shutdown-grace-period': Flags.string({
    description: 'Maximum time to drain in-flight work and release the Lease on SIGTERM.',
    default: '25s',
  }),
  'kube-api-qps': Flags.string({
    description:
      'Writes per second to the API server (Image updates, Events, erase workers and status), as client-go paces them; "0" turns the limit off.',
    default: String(DEFAULT_KUBE_API_QPS),
  }),
  'kube-api-burst': Flags.integer({
    description: 'Writes that may go at once above --kube-api-qps after a quiet period.',
    default: DEFAULT_KUBE_API_BURST,
    min: 1,
  }),
  ...kubeFlags,
};
