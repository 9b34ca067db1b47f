// `inv node-remove`: the per-node worker of an erase run. Thin on purpose: flags in, then
// src/cli/node-remove/node-remove-run.ts (a call into src/core/noderemove, a rendered report out). The
// worker Pod's own command line usually skips oclif altogether (src/bundle/direct.ts); both run
// the same code.
import { Command } from '@oclif/core';
import { EXIT_OK } from '../cli/process/exit-codes.js';
import { paragraphs } from '../cli/help-text.js';
import { runNodeRemove } from '../cli/node-remove/node-remove-run.js';
import { nodeRemoveFlags } from '../cli/node-remove/node-remove-flags.js';
import { commandCompletion } from '../cli/completion/sources.js';

export default class NodeRemove extends Command {
  static override summary =
    "Remove images from this node's container runtime through CRI, never in-use ones.";

  static override description =
    paragraphs(`Talks to the node's container runtime over CRI (runtime.v1, falling back to v1alpha2) and
removes the target images by ID, so an image goes with all its tags. A target is a ref
(matched against normalized tags), a repo@sha256:... ref (matched against digests), an image ID
(sha256:<hex> or bare hex, or an unambiguous prefix of at least 12 hex digits, as crictl shows
it), or * to prune every image that is not in use.

Never removed: images referenced by any container the runtime knows (running or exited) or
backing any pod sandbox, images the runtime reports as pinned, images matching an exclusion
pattern (* matches any run of characters, e.g. docker.io/library/* or localhost:5000/app:*; a
pattern without a tag means :latest), and the sandbox (pause) image: registry.k8s.io/pause:*,
k8s.gcr.io/pause:*, gcr.io/google_containers/pause:* and the runtime's configured sandbox image
are always excluded. In-use status is read again just before each removal.

When the runtime's sandbox image cannot be determined (its CRI Status(verbose) fails or does not
name it, and it pins no image), a * prune removes nothing and fails, and targets that look like
a pause image are refused; name the sandbox image with --exclude (or in --exclude-file) to go on.

The runtime socket, first found wins: --runtime-endpoint; the CONTAINER_RUNTIME_ENDPOINT
variable; runtime-endpoint in crictl's configuration (the file CRI_CONFIG_FILE names, or
/etc/crictl.yaml); then the first of these sockets that exists: containerd
/run/containerd/containerd.sock, CRI-O /run/crio/crio.sock, cri-dockerd
/var/run/cri-dockerd.sock, k3s /run/k3s/containerd/containerd.sock, microk8s
/var/snap/microk8s/common/run/containerd.sock.

The report names the node by --node-name (or the NODE_NAME variable, which the worker Pod sets
from spec.nodeName); without either it names none: the hostname need not be the Node's name.

--call-timeout bounds connecting and each CRI call, not the whole run (--timeout is its old,
deprecated name).

Thresholds and ages (a * prune only): with --image-fs-above H --image-fs-down-to L, a node whose
images take less than H% of their file system removes nothing (outcome below-threshold); at or
above it, unused images go in removal order (never seen in use first, then longest unused, then
largest) until their listed sizes bring usage to L%, and the rest are kept (low-mark-reached).
Usage is ImageFsInfo's bytes over the file system's capacity (statfs). With --unused-for D, an
image goes only once the record in --state-dir has seen it unused for D (recently-unused
otherwise); a missing, corrupt or older record removes nothing by age, with a warning.

In a Pod, a compact JSON summary (at most 4 KB) is also written to --termination-message-path.

Exit codes: 0 nothing failed; 1 a removal failed; 2 runtime unreachable or bad input (bad flags or
files, an invalid exclusion pattern, or an invalid target; valid targets are still processed).`);

  static override examples = [
    {
      description: 'Remove two images',
      command: '<%= config.bin %> node-remove --images nginx:1.25,docker.io/library/redis:7',
    },
    {
      description: 'Preview pruning every unused image except one repository',
      command: "<%= config.bin %> node-remove --images '*' --exclude 'quay.io/org/app:*' --dry-run",
    },
    {
      description: 'Targets and exclusions from files, JSON report',
      command: '<%= config.bin %> node-remove --imagelist targets.json --exclude-file excluded.json -o json',
    },
    {
      description: 'Remove only the unused images a scanner beside this process finds vulnerable',
      command:
        "<%= config.bin %> node-remove --images '*' --scan-dir /run/eraser.sh/shared-data --scan-timeout 10m",
    },
    {
      description:
        'When images take 80% of their file system, remove the unused ones unused for a week down to 70%',
      command:
        "<%= config.bin %> node-remove --images '*' --image-fs-above 80 --image-fs-down-to 70 --unused-for 7d --state-dir /var/lib/inv",
    },
    {
      description: 'On a k3s node',
      command:
        '<%= config.bin %> node-remove --runtime-endpoint unix:///run/k3s/containerd/containerd.sock --images sha256:0123…',
    },
  ];

  static override flags = nodeRemoveFlags({
    'runtime-endpoint': {
      description:
        'CRI socket of the container runtime (unix:///path or /path). Default: CONTAINER_RUNTIME_ENDPOINT, crictl.yaml, or the first well-known socket found.',
      helpGroup: 'RUNTIME',
    },
    'call-timeout': {
      description: 'Deadline for connecting and for each CRI call: a duration with its unit (500ms, 5s, 1m).',
      helpGroup: 'RUNTIME',
      aliases: ['timeout'],
      deprecateAliases: true,
    },
    images: {
      description: 'Comma-separated targets: refs, repo@sha256:… refs, image IDs, or * (repeatable).',
    },
    imagelist: { description: 'JSON file with an array of targets.' },
    exclude: {
      description: 'Exclusion pattern; * matches any run of characters (repeatable).',
    },
    'exclude-file': { description: 'JSON file: an array of patterns, or {"excluded": [...]}.' },
    'protected-dir': {
      description:
        "Directory of the inventory's protected-image lists (set by the erase controller): a * prune keeps every image they name.",
    },
    'imagelist-sha256': {
      description:
        'SHA-256 (hex) the --imagelist file must have (set by the erase controller): other content is refused.',
    },
    'exclude-file-sha256': {
      description:
        'SHA-256 (hex) the --exclude-file must have (set by the erase controller): other content is refused.',
    },
    'protected-sha256': {
      description:
        'Comma-separated SHA-256 (hex) of each protected-<i>.json in --protected-dir, in order (set by the erase controller).',
    },
    'dry-run': { description: 'Decide everything, remove nothing.' },
    only: {
      description:
        "With * only: consider only images matching one of these patterns (the exclusion patterns' grammar; repeatable); the others are out-of-scope.",
      helpGroup: 'SCOPE',
    },
    except: {
      description: 'With * only: images matching one of these patterns are out-of-scope (repeatable).',
      helpGroup: 'SCOPE',
    },
    'keep-newest': {
      description:
        'With * only: keep the N newest images of each repository on the node (by version, else creation time, else tag); the older unused ones stay candidates.',
      helpGroup: 'SCOPE',
    },
    'scan-dir': {
      description:
        "Scan mode (with --images '*'): the folder shared with a scanner speaking Eraser's contract (collectScan, scanErase, eraseCompleteScan); only the unused images it names are removed.",
      helpGroup: 'SCAN',
    },
    'scan-timeout': {
      description: "Scan mode: how long to wait for the scanner's answer; past it nothing is removed.",
      helpGroup: 'SCAN',
    },
    'scanner-config': {
      description: "Scan mode: the scanner's --config file, checked against --scanner-config-sha256.",
      helpGroup: 'SCAN',
    },
    'scanner-config-sha256': {
      description: 'SHA-256 (hex) the --scanner-config file must have (set by the erase controller).',
      helpGroup: 'SCAN',
    },
    'scan-delete-failed': {
      description: 'Scan mode: also remove images the scanner could not judge (default: kept).',
      helpGroup: 'SCAN',
    },
    'scan-delete-eol': {
      description: 'Scan mode: also remove images the scanner reports as end of life.',
      helpGroup: 'SCAN',
    },
    'image-fs-above': {
      description:
        "With * only: remove nothing unless the runtime's images take at least this percentage of the image file system (decimals allowed).",
      helpGroup: 'TRIGGER',
    },
    'image-fs-down-to': {
      description:
        'With --image-fs-above: remove unused images (never seen in use first, then longest unused, then largest) until usage is at or below this percentage, then stop.',
      helpGroup: 'TRIGGER',
    },
    'unused-for': {
      description:
        "With * only: remove only images this node's record has seen unused for at least this long (7d, 12h); needs --state-dir to remember.",
      helpGroup: 'TRIGGER',
    },
    'state-dir': {
      description:
        'Folder of the node-local record of when each image was first seen unused (made owner-only; the worker Pod mounts /var/lib/inv).',
      helpGroup: 'TRIGGER',
    },
    'image-fs-path': {
      description:
        "A path on the image file system to statfs for its capacity (default: ImageFsInfo's mount point).",
      helpGroup: 'TRIGGER',
    },
    'image-fs-host-path': {
      description:
        "The host path mounted at --image-fs-path: ImageFsInfo's mount point must be at or under it, or nothing is removed by threshold.",
      helpGroup: 'TRIGGER',
    },
    'node-name': {
      description: 'Node name for the report (default: the NODE_NAME variable; never the hostname).',
      // The node the worker runs on: nothing the completion could look up for it.
      completion: 'text',
    },
    'termination-message-path': {
      description:
        'Where a Pod writes its compact summary (only written in a Pod, or when given explicitly).',
    },
  });

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const { flags } = await this.parse(NodeRemove);
    const code = await runNodeRemove(flags);
    if (code !== EXIT_OK) this.exit(code);
  }
}
