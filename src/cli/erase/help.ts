// The help text of `inv erase` (kept apart so the command file stays about options and flow).
import { paragraphs } from '../help-text.js';

export const ERASE_DESCRIPTION =
  paragraphs(`Creates (or updates) the ImageList and records a new request, so the same list run twice
starts two jobs. The ImageList controller (in \`inv watch\`, or in-process with --standalone)
starts an ImageJob, which runs one \`inv node-remove\` worker Pod per selected node. In-use,
pinned and excluded images are never removed; nodes matching the configured node filter, and
NotReady or cordoned nodes, are skipped.

Before writing anything, erase checks that it can run: a controller holds the Lease
(--controller-lease; not with --standalone), the workers' namespace and the configuration
exist, and you have the permissions it needs (SelfSubjectAccessReview). Each problem is named,
and nothing is written (exit 2).

By default erase waits for the job (on a terminal and in CI alike): a spinner shows the running,
pending and finished nodes and the elapsed time (without a terminal, a progress line on stderr
at least every 30 s), then one row per node and, for a dry run, every node's targets, images and
outcomes. --no-wait returns once the request is written; \`inv erase status\` shows the job at any
time (--follow re-attaches) and \`inv erase cancel JOB\` stops it. Ctrl-C stops waiting (exit 130);
the job keeps running in the cluster.

An ImageList chooses which images go and, with --node-selector, narrows the nodes; what the
workers run as (image, runtime socket, namespace) comes only from the administrator's
configuration (ConfigMap inv-erase-config).

Deleting an ImageJob or its ImageList first deletes the job's worker Pods and ConfigMaps
(finalizer erase.imageinventory.dev/cleanup). If no controller runs, the deletion waits: start
\`inv watch\` again, or remove the finalizer yourself with \`kubectl patch imagejob NAME --type=merge
-p '{"metadata":{"finalizers":null}}'\`; the garbage collector then deletes the worker objects
through their ownerReferences.

--schedule '0 3 * * *' makes the list run on each tick of a 5-field cron expression (in
--time-zone, UTC by default) instead of once now; \`inv erase\` then returns at once and the
daemon (\`inv watch --erase-controllers\`) starts the runs. The schedule is validated here and
again by the controller. A scheduled list starts no run when it is written; a one-off \`inv
erase\` on it is refused (use another --name).

--vulnerable is scan mode: on each node, the unused images a * prune would remove go to a
scanner beside the worker (Eraser's scanner contract; which scanners exist, their images and
settings, only the administrator's inv-erase-config says), and only those it names go. The
scanner can only narrow: an image it names that is in use, pinned, excluded or referenced by a
workload stays (vulnerable-kept). A scanner that crashes, hangs past its timeout, or answers
garbage removes nothing on its node, and the node fails with the reason. An image the scanner
could not judge (inv's scanner says which) is kept as scan-failed with the scanner's reason, and
its node fails too: a failed scan never reads as a clean node. With --dry-run, each
node says what would go and why (CVE count, highest severity, first CVE IDs).

--only and --except narrow a * prune (or --vulnerable) to the images matching an --only pattern
and no --except pattern, in the grammar of the administrator's exclusions (* matches any run of
characters); the others are kept as out-of-scope, with the pattern. --keep-newest N keeps, on
each node, the N newest images of each repository (kept-newest, with the rank: by version when
every tag reads as one, else by the runtime's creation time, else by tag), and the older unused
ones go. A pattern that is empty, only *, or can match no reference is refused, as is an N
outside 1 to 1000.

Exit codes: 0 the job Completed (or the request was submitted with --no-wait, or a schedule
was written); 1 the job Failed (a node where images could not be scanned counts as failed), or
--timeout passed first; 2 bad input, a failed preflight, a
rejected request, or no usable cluster; 130 interrupted (Ctrl-C).`);

export const ERASE_EXAMPLES = [
  {
    description: 'Remove two images from every node',
    command: '<%= config.bin %> erase --images nginx:1.25,docker.io/library/redis:7',
  },
  {
    description: 'Preview pruning every unused image on the gpu pool',
    command: '<%= config.bin %> erase --all-unused --dry-run --node-selector pool=gpu',
  },
  {
    description: 'Prune every unused image each night at 03:00 Berlin time (runs under inv watch)',
    command:
      "<%= config.bin %> erase --all-unused --yes --schedule '0 3 * * *' --time-zone Europe/Berlin --name nightly",
  },
  {
    description:
      'Every 15 minutes, clean the nodes whose images take 80% of their file system down to 70%, only images unused for a week',
    command:
      "<%= config.bin %> erase --all-unused --yes --image-fs-above 80 --image-fs-down-to 70 --unused-for 7d --schedule '*/15 * * * *' --name by-need",
  },
  {
    description: "Preview pruning only the CI registry's unused images, all but its base images",
    command:
      "<%= config.bin %> erase --all-unused --dry-run --only 'ci.example.com/**' --except 'ci.example.com/base:*'",
  },
  {
    description: 'Keep the two newest images of each repository on every node; remove the older unused ones',
    command: '<%= config.bin %> erase --all-unused --yes --keep-newest 2',
  },
  {
    description: 'Roll out over 10% of the nodes at a time, 1 minute apart; stop after 3 failed nodes',
    command: '<%= config.bin %> erase --images nginx:1.25 --max-parallel 10% --pause 1m --failure-budget 3',
  },
  {
    description: 'Preview which unused images have critical or high vulnerabilities with a fix',
    command: '<%= config.bin %> erase --vulnerable --severity CRITICAL,HIGH --ignore-unfixed --dry-run',
  },
  {
    description: 'Remove vulnerable unused images every night',
    command: "<%= config.bin %> erase --vulnerable --yes --schedule '0 3 * * *' --name nightly-scan",
  },
  {
    description: 'From a file, on a cluster without the daemon, JSON result',
    command: '<%= config.bin %> erase --imagelist targets.json --standalone -o json',
  },
  {
    description: 'Submit and return; follow the job later',
    command:
      '<%= config.bin %> erase --images nginx:1.25 --no-wait && <%= config.bin %> erase status --name imagelist --follow',
  },
];

/**
 * The usage lines, written out: oclif derives one from the flags' relationships, and for erase's
 * (four exclusive targets, pairs that depend on each other) it printed `[--vulnerable |  |  |
 * [--all-unused ...`. Every flag named here is one of erase's (test/unit/cli/help-usage.test.ts).
 */
export const ERASE_USAGE = [
  'erase (--images REF,... | --imagelist FILE | --all-unused | --vulnerable) [--dry-run] [-l SELECTOR] [-y] [FLAGS]',
  'erase --all-unused --schedule CRON [--time-zone ZONE] [--name LIST] [FLAGS]',
  'erase status [JOB] [FLAGS]',
  'erase cancel (JOB | --name LIST) [FLAGS]',
];
