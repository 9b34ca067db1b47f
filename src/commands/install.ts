// `inv install`: the CRDs (and with --daemon the deploy/ bundle) from inside the package.
import { installDryRunProblem } from '../cli/dry-run-flag.js';
import { printErr, printOut } from '../cli/output/wrap.js';
import fs from 'node:fs';
import { discoverKinds } from '../core/inventory/discover-kinds.js';
import { readSourceKindsFile } from '../cli/source-kinds-flag.js';
import { Command } from '@oclif/core';
import { EXIT_PARTIAL_FAILURE } from '../cli/process/exit-codes.js';
import { failFlags, failLine } from '../cli/process/fail.js';
import { completeInstallOptions } from '../cli/install/install-options.js';
import { connect } from '../cli/connect.js';
import { installFlags } from '../cli/install/install-flags.js';
import { paragraphs } from '../cli/help-text.js';
import { colors } from '../cli/output/style.js';
import type { KubeRest } from '../core/kube/rest.js';
import type { InstallStep } from '../core/install/install.js';
import { commandCompletion } from '../cli/completion/sources.js';

export default class Install extends Command {
  static override summary = 'Install or upgrade the CRDs (and with --daemon, the daemon) on the cluster.';

  static override description =
    paragraphs(`Applies the Image, ImageList, ImageJob and ImageJobRecord CRDs that
ship with this version of inv, with server-side apply under the field manager "inv", then waits
until the API server serves them (Established). It also applies the ClusterRole
image-inventory-view, whose labels let the built-in view, edit and admin roles read Images, and
creates the erase configuration (inv-erase-config) once. With --daemon, also applies the daemon bundle, the same
objects as \`kubectl apply -k deploy/\`: the namespaces image-inventory-system (restricted) and
image-inventory-workers (privileged, for the erase workers), the ServiceAccount, least-privilege
RBAC, the Deployment running \`inv watch --leader-elect\`, and the NetworkPolicies.

The daemon and the erase workers run one image, --image: the one \`npm run image -- --push
REGISTRY/inv:TAG\` builds from a checkout of inv and pushes (no registry publishes one). A first
--daemon install without it refuses (exit 2) and says how to make one; a later one keeps the
running daemon's image. The workers' image and pull secrets are written into the erase
configuration (inv-erase-config) and move with the daemon's on later installs, unless you set
them apart there.

Running it again is safe: unchanged objects stay unchanged, and an upgrade changes only what the
new version ships differently. It never deletes anything (see \`inv uninstall\`).

It never takes over an object it did not write. Before writing anything, it reads every object
of the bundle; when one exists (a CRD, namespace, ClusterRole, ... of the same name) that inv did
not write, i.e. it has neither the field manager "inv" nor the label
app.kubernetes.io/part-of=image-inventory, install names each such object (kind, name,
namespace, who manages it), changes nothing at all, and exits 1. Objects of an earlier
\`inv install\` or \`kubectl apply -k deploy/\` are inv's and upgrade as usual.
--force-conflicts takes such objects over instead, as server-side apply's --force-conflicts does:
inv sets its fields on them (other fields stay), they become inv's, and \`inv uninstall\` then
deletes them.

--dry-run (or --dry-run=client) prints the objects as YAML and contacts no cluster;
--dry-run=server reads the cluster and says what install would do to each object (created,
configured, unchanged, refused, taken over), and changes nothing.

Exit codes: 0 installed; 1 an object belongs to someone else (nothing changed), the API server
refused an object, or the CRDs did not become Established in time (the output says which);
2 bad flags or no cluster configured.`);

  static override examples = [
    { description: 'Install the CRDs', command: '<%= config.bin %> install' },
    {
      description: 'The CRDs and the daemon, with the image you pushed (npm run image -- --push ...)',
      command: '<%= config.bin %> install --daemon --image registry.example.com/inv:0.1.0',
    },
    {
      description: 'The same from a registry that needs credentials',
      command:
        '<%= config.bin %> install --daemon --image registry.example.com/inv:0.1.0 --image-pull-secret regcred',
    },
    {
      description: 'Print the objects instead, to review or to commit to GitOps',
      command: '<%= config.bin %> install --daemon --dry-run > inv.yaml',
    },
    {
      description: 'Say what install would change in the cluster, and what it would refuse',
      command: '<%= config.bin %> install --daemon --dry-run=server',
    },
    {
      description: 'Take over same-named objects that inv did not write',
      command: '<%= config.bin %> install --daemon --force-conflicts',
    },
  ];

  static override flags = installFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const misread = installDryRunProblem(this.argv);
    if (misread) failLine(this, misread);
    // kubectl's bare --dry-run means client.
    const { flags } = await this.parse(
      Install,
      this.argv.map((a) => (a === '--dry-run' ? '--dry-run=client' : a)),
    );
    const { options, problems } = completeInstallOptions(flags);
    if (problems.length) failFlags(this, problems);
    const {
      dryRunInstall,
      ForeignObjectsError,
      install,
      installedDaemonImage,
      installObjects,
      noImageAdvice,
    } = await import('../core/install/install.js');
    const declared = await readSourceKindsFile(this, options.sourceKindsFile);
    const text = options.sourceKindsFile ? fs.readFileSync(options.sourceKindsFile, 'utf8') : '';
    const noPlural = (ks: { kind: string; group: string; version: string; plural: string }[]) => {
      for (const k of ks.filter((x) => !x.plural))
        printErr(
          `warning: ${k.kind}.${k.group}/${k.version} is not served and names no plural: no permission granted for it\n`,
        );
    };
    const noImage = options.daemon && !options.image;
    if (options.dryRun === 'client') {
      const { stringify } = await import('yaml');
      noPlural(declared);
      if (noImage) printErr(`warning: ${noImageAdvice(this.config.bin)}\n`);
      const objects = installObjects({
        daemon: options.daemon,
        image: options.image,
        imagePullSecrets: options.imagePullSecrets,
        ...(options.sourceKindsFile ? { sourceKinds: { text, kinds: declared } } : {}),
      });
      process.stdout.write(objects.map((o) => `---\n${stringify(o)}`).join(''));
      return;
    }
    let rest: KubeRest;
    try {
      ({ rest } = connect(options.cluster));
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const c = colors();
    const line = (s: InstallStep, suffix = '') => {
      const color = s.action === 'unchanged' ? c.dim : s.action === 'refused' ? c.red : c.green;
      const action =
        s.action === 'taken over' || s.action === 'refused' ? c.yellow(s.action) : color(s.action);
      printOut(`${s.name} ${action}${suffix}${s.detail ? `: ${s.detail}` : ''}\n`);
    };
    try {
      // Without --image: the running daemon's, else none (a refusal; a dry run warns). Without
      // --image-pull-secret: the running daemon's.
      const running = options.daemon ? await installedDaemonImage(rest) : undefined;
      if (noImage) {
        if (running) {
          options.image = running.image;
          printErr(`keeping the daemon's image ${running.image} (--image changes it)\n`);
        } else if (options.dryRun === 'server') printErr(`warning: ${noImageAdvice(this.config.bin)}\n`);
        else failLine(this, noImageAdvice(this.config.bin));
      }
      if (!options.imagePullSecrets.length && running) options.imagePullSecrets = [...running.pullSecrets];
      // The plurals of declared kinds come from discovery when the file names none.
      let kinds = declared;
      if (declared.length) {
        const d = await discoverKinds(rest, declared);
        const served = new Map(d.served.map((k) => [k.key, k]));
        kinds = declared.map((k) => served.get(k.key) ?? k);
        noPlural(kinds);
      }
      const opts = {
        daemon: options.daemon,
        image: options.image,
        imagePullSecrets: options.imagePullSecrets,
        forceConflicts: options.forceConflicts,
        ...(options.sourceKindsFile ? { sourceKinds: { text, kinds } } : {}),
      };
      if (options.dryRun === 'server') {
        const steps = await dryRunInstall(rest, opts);
        for (const s of steps) line(s, ' (server dry run)');
        const refused = steps.filter((s) => s.action === 'refused').length;
        if (refused)
          this.error(
            `install would refuse ${refused} object${refused === 1 ? '' : 's'} that inv did not write; --force-conflicts takes them over`,
            { exit: EXIT_PARTIAL_FAILURE },
          );
        return;
      }
      await install(rest, { ...opts, timeoutMs: options.timeoutMs, onApplied: (s) => line(s) });
      process.stdout.write(`CRDs Established. Next: ${this.config.bin} check\n`);
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e;
      const msg =
        e instanceof ForeignObjectsError
          ? `refusing to install: ${e.message}`
          : `install failed: ${(e as Error).message}`;
      this.error(msg, { exit: EXIT_PARTIAL_FAILURE });
    } finally {
      rest.close();
    }
  }
}
