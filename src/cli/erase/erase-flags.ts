// The flags of `inv erase` (its help lists them in this order), apart from the command so the
// command file is about options and flow (./options.ts completes and validates them).
import { scanFlags } from './vuln-scan-flags.js';
import { scopeFlags } from './scope-flags.js';
import { Flags } from '@oclif/core';
import { eraseOutputFlags, standaloneFlag, workersNamespaceFlag } from './common.js';
import { kubeFlags } from '../flags.js';
import { DEFAULT_IMAGELIST } from '../../core/erase/api/types.js';
import { DEFAULT_CONTROLLER_LEASE } from '../../core/erase-request/preflight.js';
import { completes } from '../completion/sources.js';

export const eraseFlags = {
  images: Flags.string({
    description:
      'Comma-separated images: refs, repo@sha256:… refs or image IDs (repeatable: --images a --images b).',
    multiple: true,
    // One value per --images: a stray word after it is an error, never one more target.
    multipleNonGreedy: true,
  }),
  imagelist: Flags.string({ description: 'JSON file with an array of images.' }),
  'all-unused': Flags.boolean({
    description: 'Remove every image not in use (the "*" target). Asks on a TTY unless --yes.',
    exclusive: ['images', 'imagelist'],
  }),
  ...scanFlags,
  ...scopeFlags,
  yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
  'protect-inventory': Flags.boolean({
    description:
      'With --all-unused: keep every image a workload in the cluster references, even when nothing runs it on the node (a Deployment scaled to 0, a suspended CronJob). --no-protect-inventory turns it off.',
    default: true,
    allowNo: true,
  }),
  'dry-run': Flags.boolean({ description: 'Report what each node would remove; remove nothing.' }),
  'image-fs-above': Flags.string({
    description:
      'With --all-unused: a node is cleaned only when its images take at least this percentage of its image file system (decimals allowed); below it, it removes nothing.',
    dependsOn: ['image-fs-down-to'],
  }),
  'image-fs-down-to': Flags.string({
    description:
      'With --image-fs-above: remove until usage is at or below this percentage, then stop (never seen in use first, then longest unused, then largest).',
    dependsOn: ['image-fs-above'],
  }),
  'unused-for': Flags.string({
    description:
      'With --all-unused: remove only images the node has seen unused for at least this long (e.g. 7d, 12h), by its own record in /var/lib/inv.',
  }),
  'node-selector': Flags.string({ char: 'l', description: 'Only nodes matching this label selector.' }),
  'job-timeout': Flags.string({
    description:
      "Job deadline (e.g. 10m); unfinished nodes fail with reason timeout. At most the administrator's requesterLimits.maxJobTimeout (default 6h): a longer one is refused.",
  }),
  'max-parallel': Flags.string({
    description:
      'Rollout waves: at most this many nodes (N) or this share of the nodes (P%, rounded down, at least 1) run a worker at once. Default: every node at once.',
  }),
  pause: Flags.string({
    description:
      "With --max-parallel: whole waves, the next starting this long (e.g. 2m) after the previous one finished. At most the administrator's requesterLimits.maxPause (default 1h).",
    dependsOn: ['max-parallel'],
  }),
  'failure-budget': Flags.integer({
    description:
      'With --max-parallel: after this many failed nodes, the nodes not started yet are skipped (reason rollout-stopped) and the job fails.',
    min: 1,
    dependsOn: ['max-parallel'],
  }),
  name: completes(
    'imagelists',
    Flags.string({ description: 'Name of the ImageList.', default: DEFAULT_IMAGELIST }),
  ),
  ...workersNamespaceFlag,
  'controller-lease': completes(
    'text',
    Flags.string({
      description:
        'namespace/name of the Lease the erase controllers hold (inv watch --leader-elect-namespace/--leader-elect-id); the request is refused when nobody holds it, unless --standalone.',
      default: DEFAULT_CONTROLLER_LEASE,
    }),
  ),
  ...standaloneFlag,
  'source-kinds': completes(
    'text',
    Flags.string({
      description:
        'With --standalone: the declared source kinds a --all-unused prune protects (a SourceKinds file, see docs/inventory.md, "Declared source kinds"); default: the daemon\'s, from ConfigMap inv-source-kinds in --config-namespace.',
      helpValue: 'FILE',
      dependsOn: ['standalone'],
    }),
  ),
  wait: Flags.boolean({
    description:
      'Follow the job until it finishes and exit with its result (the default, on a terminal or not); --no-wait returns once the request is written.',
    allowNo: true,
  }),
  timeout: Flags.string({
    description:
      'The whole wait for the job, from the request on (e.g. 30m); the job keeps running after it (exit 1).',
    default: '1h',
  }),
  schedule: Flags.string({
    description: "Run on each tick of this 5-field cron expression (e.g. '0 3 * * *') instead of once now.",
  }),
  'time-zone': Flags.string({
    description: 'With --schedule: IANA time zone of the schedule (default UTC).',
    dependsOn: ['schedule'],
  }),
  'starting-deadline': Flags.string({
    description: 'With --schedule: a tick that cannot start within this long (e.g. 30m) is skipped.',
    dependsOn: ['schedule'],
  }),
  suspend: Flags.boolean({
    description: 'With --schedule: write the schedule paused (no tick runs until written again without it).',
    dependsOn: ['schedule'],
  }),
  ...eraseOutputFlags,
  ...kubeFlags,
};
