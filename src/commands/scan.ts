import { Command, Flags } from '@oclif/core';
import { EXIT_PARTIAL_FAILURE, EXIT_USAGE } from '../cli/exit-codes.js';
import { exitIfCrdMissing, failLine } from '../cli/fail.js';
import { kubeFlags, outputFlag, restOptions, type OutputFormat } from '../cli/flags.js';
import { renderOfflineReport, renderScanReport } from '../cli/render-scan.js';
import { spinner } from '../cli/style.js';
import { offlineInventory } from '../core/inventory/manifests.js';
import { maxInputSizeFlag, readManifestsForCommand } from '../cli/read-manifests.js';
import { scanCluster } from '../core/inventory/scan.js';
import { loadKubeConfig } from '../core/kube/config.js';
import { KubeRest } from '../core/kube/rest.js';
import { IMAGE_CRD, requireCrds } from '../core/kube/crds.js';
import { validateNamespaceName } from '../core/kube/names.js';
import { paragraphs } from '../cli/help-text.js';

export default class Scan extends Command {
  static override summary = 'Rebuild the Image inventory of namespaces (or of manifest files, offline).';

  static override description =
    paragraphs(`Lists the Deployments, StatefulSets, DaemonSets, CronJobs, Jobs and Pods of each namespace,
computes which normalized image refs they reference and by which kinds, and makes the namespace's
Image resources (imageinventory.dev/v1alpha1) match: missing Images are created, changed ones
updated, and managed Images nobody references any more are deleted. Only Images labeled
app.kubernetes.io/managed-by=image-inventory-controller are ever updated or deleted.

With -f, the same rules run offline on manifest files (multi-document YAML or JSON, List kinds
included) and nothing is written anywhere.

Exit codes: 0 success; 1 some namespace failed (the output says which and why); 2 bad input or
no usable cluster configuration.`);

  static override examples = [
    { description: 'Rebuild one namespace', command: '<%= config.bin %> scan -n shop' },
    {
      description: 'Preview the changes for two namespaces without writing',
      command: '<%= config.bin %> scan -n shop -n web --dry-run',
    },
    { description: 'Rebuild every namespace and print JSON', command: '<%= config.bin %> scan -A -o json' },
    {
      description: 'Inventory rendered Helm manifests offline',
      command: 'helm template ./chart | <%= config.bin %> scan -f - -o json',
    },
    {
      description: 'Inventory a directory of manifests',
      command: '<%= config.bin %> scan -f k8s/ --namespace staging',
    },
  ];

  static override flags = {
    namespace: Flags.string({
      char: 'n',
      multiple: true,
      description:
        'Namespace to rebuild (repeatable). With -f: namespace for objects that set none (default "default").',
    }),
    'all-namespaces': Flags.boolean({
      char: 'A',
      description: 'Rebuild every namespace.',
      exclusive: ['namespace'],
    }),
    filename: Flags.string({
      char: 'f',
      description:
        'Offline mode: a manifest file, a directory of them, - for stdin, or a pipe such as <(helm template .). No cluster is contacted.',
      exclusive: ['all-namespaces', 'dry-run'],
    }),
    'dry-run': Flags.boolean({ description: 'Compute and print the changes without writing anything.' }),
    ...maxInputSizeFlag,
    concurrency: Flags.integer({ description: 'Namespaces rebuilt at once.', default: 4, min: 1, max: 64 }),
    ...outputFlag,
    ...kubeFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Scan);
    const output = flags.output as OutputFormat;
    const namespaces = flags.namespace ?? [];
    for (const ns of namespaces) {
      const problem = validateNamespaceName(ns);
      if (problem) this.error(`invalid namespace "${ns}": ${problem}`, { exit: EXIT_USAGE });
    }

    if (flags.filename) {
      if (namespaces.length > 1)
        this.error('with -f, pass at most one --namespace (the default for objects without one)', {
          exit: EXIT_USAGE,
        });
      const read = await readManifestsForCommand(
        this,
        flags.filename,
        namespaces[0] ?? 'default',
        flags['max-input-size'],
      );
      const report = offlineInventory(read);
      process.stdout.write(renderOfflineReport(report, output));
      return;
    }

    if (!flags['all-namespaces'] && namespaces.length === 0) {
      this.error(
        'nothing to scan: pass -n NAMESPACE (repeatable), -A for every namespace, or -f PATH for offline files',
        {
          exit: EXIT_USAGE,
        },
      );
    }
    let rest: KubeRest;
    try {
      rest = new KubeRest(
        loadKubeConfig({ kubeconfig: flags.kubeconfig, context: flags.context }),
        restOptions(flags),
      );
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const spin = spinner(
      'Scanning',
      output === 'table' && (flags['all-namespaces'] || namespaces.length > 1),
    );
    try {
      // One discovery GET first: without the CRD every namespace would fail with a bare 404.
      await requireCrds(rest, [IMAGE_CRD]);
      const report = await scanCluster(rest, {
        namespaces: flags['all-namespaces'] ? undefined : namespaces,
        dryRun: flags['dry-run'],
        concurrency: flags.concurrency,
        checkNamespaces: !flags['all-namespaces'],
        onProgress: (done, total, ns) => {
          if (spin) spin.text = `Scanned ${done}/${total} namespaces (last: ${ns})`;
        },
      });
      spin?.stop();
      process.stdout.write(renderScanReport(report, output, flags['dry-run']));
      if (report.failures.length) this.exit(EXIT_PARTIAL_FAILURE);
    } catch (e) {
      spin?.stop();
      if (e instanceof Error && 'oclif' in e) throw e;
      exitIfCrdMissing(this, e);
      failLine(this, `scan failed: ${(e as Error).message}`);
    } finally {
      rest.close();
    }
  }
}
