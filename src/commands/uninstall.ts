// `inv uninstall`: the daemon bundle, and the CRDs only with --crds after a confirmation.
import { printErr, printOut } from '../cli/output/wrap.js';
import { Command } from '@oclif/core';
import { uninstallFlags } from '../cli/uninstall/uninstall-flags.js';
import { uninstallDryRunProblem } from '../cli/dry-run-flag.js';
import { EXIT_PARTIAL_FAILURE } from '../cli/process/exit-codes.js';
import { confirm } from '../cli/process/prompt.js';
import { setInterruptHint } from '../cli/process/interrupt.js';
import { failLine } from '../cli/process/fail.js';
import { connect } from '../cli/connect.js';
import { paragraphs } from '../cli/help-text.js';
import { colors } from '../cli/output/style.js';
import type { KubeRest } from '../core/kube/rest.js';
import { commandCompletion } from '../cli/completion/sources.js';

export default class Uninstall extends Command {
  static override summary = 'Remove the daemon from the cluster (with --crds, the CRDs and all they hold).';

  static override description = paragraphs(`Deletes the objects \`inv install --daemon\` creates, and only
those: each, of every kind, is read first and deleted only if inv wrote it (it has the field
manager "inv" or the label app.kubernetes.io/part-of=image-inventory), with its UID as a
precondition. A same-named object someone else made is kept and named with who manages it. A
namespace is also kept when another field manager wrote it or when it holds any object inv did
not create, of any kind (a Secret, a RoleBinding, your exclusion lists, the inv-erase-config you
edited), or objects inv could not read: deleting the namespace would delete them. uninstall
names them; move or delete them and run it again. What Kubernetes makes by itself (the default
ServiceAccount, kube-root-ca.crt, Events, the Pods of inv's Deployment) does not count.

--dry-run reads the cluster the same way and prints what would be deleted and what kept, with
the reasons; it deletes nothing and asks nothing.

With --crds, the Image, ImageList and ImageJob CRDs are deleted too (by the same rule: a CRD of
our name that another tool installed stays), and the API server deletes
every Image, ImageList and ImageJob with them. inv first counts them and asks for confirmation
(--yes skips the question; without a terminal, --yes is required). ImageJobs whose worker objects
no running daemon cleans up lose their cleanup finalizer after a short grace; their worker Pods
and ConfigMaps are then removed by the garbage collector (ownerReferences).

Exit codes: 0 done; 1 the API server refused a deletion; 2 bad flags, no confirmation, or no
cluster configured.`);

  static override examples = [
    { description: 'Remove the daemon, keep the inventory', command: '<%= config.bin %> uninstall' },
    { description: 'Remove everything, asking first', command: '<%= config.bin %> uninstall --crds' },
    { description: 'Remove everything from a script', command: '<%= config.bin %> uninstall --crds --yes' },
    {
      description: 'See what would be deleted and kept',
      command: '<%= config.bin %> uninstall --crds --dry-run',
    },
  ];

  static override flags = uninstallFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const misread = uninstallDryRunProblem(this.argv);
    if (misread) failLine(this, misread);
    const { flags } = await this.parse(Uninstall);
    const dryRun = flags['dry-run'];
    let rest: KubeRest;
    try {
      ({ rest } = connect(flags));
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const { countInstances, uninstallCrds, uninstallDaemon } = await import('../core/install/uninstall.js');
    const c = colors();
    const print = (steps: { name: string; action: string; reason?: string }[]) => {
      for (const s of steps)
        printOut(
          `${s.name} ${s.action === 'deleted' ? c.green(s.action) : s.action === 'kept' ? c.yellow(s.action) : c.dim(s.action)}${dryRun ? ' (dry run)' : ''}${s.reason ? `: ${s.reason}` : ''}\n`,
        );
    };
    try {
      if (flags.crds) {
        const counts = await countInstances(rest);
        const n = (kind: string) => {
          const v = counts[kind];
          return v === undefined ? `no ${kind}s (CRD absent)` : `${v} ${kind}${v === 1 ? '' : 's'}`;
        };
        const what = `Deleting the CRDs also deletes ${n('Image')}, ${n('ImageList')} and ${n('ImageJob')}.`;
        printErr(`${what}\n`);
        if (!flags.yes && !dryRun) {
          if (!process.stdin.isTTY)
            failLine(
              this,
              'refusing to delete the CRDs without confirmation: no terminal to ask on; pass --yes',
            );
          setInterruptHint(() => 'nothing was deleted');
          if (!(await confirm('Delete them?'))) failLine(this, 'aborted: nothing was deleted');
          setInterruptHint(undefined);
        }
        // CRDs first: while the daemon still runs, it cleans up the worker objects of the
        // ImageJobs being deleted.
        print(await uninstallCrds(rest, { dryRun }));
      }
      print(await uninstallDaemon(rest, { dryRun }));
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e;
      this.error(`uninstall failed: ${(e as Error).message}`, { exit: EXIT_PARTIAL_FAILURE });
    } finally {
      rest.close();
    }
  }
}
