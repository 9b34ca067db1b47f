// `inv scan`: rebuild the Image inventory of namespaces (core/inventory/scan.ts), or read
// manifests offline with -f (core/inventory/manifests/); drawn by cli/scan/render-scan.ts.
import { Command } from '@oclif/core';
import { inventoryScanFlags } from '../cli/scan/scan-flags.js';
import { printErr, printOut } from '../cli/output/wrap.js';
import { EXIT_PARTIAL_FAILURE, EXIT_USAGE } from '../cli/process/exit-codes.js';
import { exitIfCrdMissing, failFlags, failLine } from '../cli/process/fail.js';
import { connect } from '../cli/connect.js';
import { contextNamespace } from '../cli/context-namespace.js';
import { tableOptions } from '../cli/flags.js';
import { sortScanImages } from '../cli/output/print-data.js';
import { fromClusterScan, fromOfflineScan, renderScan, scanDocument } from '../cli/scan/render-scan.js';
import { spinner } from '../cli/output/style.js';
import { ScanJsonCollector } from '../cli/scan/json-collector.js';
import { paceHeap } from '../cli/process/heap-pacer.js';
import { offlineInventory } from '../core/inventory/manifests/collect.js';
import { readManifestsForCommand } from '../cli/read-manifests.js';
import { listAllNamespaces, scanCluster } from '../core/inventory/scan.js';
import { forbiddenMessage } from '../core/kube/forbidden.js';
import type { KubeRest } from '../core/kube/rest.js';
import { IMAGE_CRD, NO_INVENTORY_NOTE, missingCrds, requireCrds } from '../core/kube/crds.js';
import { completeScanOptions, type ScanOptions } from '../cli/scan/scan-options.js';
import { paragraphs } from '../cli/help-text.js';
import { kindsPhrase, SourceKinds, type SourceKindSpec } from '../core/inventory/source-kinds.js';
import { discoverKinds } from '../core/inventory/discover-kinds.js';
import { ScanStop } from '../core/inventory/scan-stop.js';
import { exitOnInterrupt, setInterruptCleanup, setInterruptHint } from '../cli/process/interrupt.js';
import { readSourceKindsFile, reportSkippedKinds } from '../cli/source-kinds-flag.js';
import { commandCompletion } from '../cli/completion/sources.js';

/** How often a progress count is drawn between the spinner's own frames (ora's default interval). */
const PROGRESS_FRAME_MS = 80;

/**
 * How long ^C waits for the namespaces being written to finish. Longer than the usual cleanup
 * wait: a namespace with many images takes many writes, several namespaces are in flight
 * (--concurrency), and a busy API server answers slowly; stopping half-way would leave a
 * namespace with part of its Images. A second ^C still exits at once.
 */
const FINISH_WRITES_MS = 60_000;

export default class Scan extends Command {
  static override summary = 'Rebuild the Image inventory of namespaces (or of manifest files, offline).';

  static override description =
    paragraphs(`Lists the ${kindsPhrase()} of each namespace (and the kinds declared with
--source-kinds; ReplicaSets by metadata only, for their owners),
computes which normalized image refs they reference and by which kinds, and makes the namespace's
Image resources (imageinventory.dev/v1alpha1) match: missing Images are created, changed ones
updated, and managed Images nobody references any more are deleted. Only Images labeled
app.kubernetes.io/managed-by=image-inventory-controller are ever updated or deleted.

Without -n or -A, the namespace of the kubeconfig context is scanned ("default" when the context
names none), as kubectl does; the output says which.

With -l, only the workloads matching the label selector are read, and the scan is read-only: it
reports the images they reference and writes nothing, because an inventory written from part of
a namespace would delete the Images of every workload outside the selector.

With --dry-run nothing is written. Where inv is not installed (no Image CRD), a dry run has no
Images to compare with: it reports the images the workloads reference (status found), says so on
stderr, and needs only read access to the workloads.

With -f, the same rules run offline on manifest files (multi-document YAML or JSON, List kinds
included) and nothing is written anywhere.

Output: one table with a NAMESPACE column when several namespaces are scanned, then a totals
line; -o wide adds the Image resource names and never truncates; -o name prints
image.imageinventory.dev/<name> per Image (the normalized refs with -f, -l or a dry run without
the CRD, where no Image is involved); -o json|yaml print the ScanReport document of docs/output.md, which
-o jsonpath=... reads as kubectl does; -o custom-columns=... prints one row per image (with
its .namespace). --sort-by sorts the images of each namespace by a JSONPath expression.

Exit codes: 0 success; 1 some namespaces failed and others were scanned (stderr says which and
why); 2 bad input, no usable cluster configuration, or nothing scanned at all (a namespace that
does not exist, a missing permission on every namespace).`);

  static override examples = [
    { description: "Rebuild the current context's namespace", command: '<%= config.bin %> scan' },
    { description: 'Rebuild one namespace', command: '<%= config.bin %> scan -n shop' },
    {
      description: 'Preview the changes for two namespaces without writing',
      command: '<%= config.bin %> scan -n shop -n web --dry-run',
    },
    { description: 'Rebuild every namespace and print JSON', command: '<%= config.bin %> scan -A -o json' },
    {
      description: 'Which images do the workloads labeled app=web reference? (read-only)',
      command: '<%= config.bin %> scan -n shop -l app=web',
    },
    {
      description: 'Only the images and their status, sorted (kubectl custom-columns, --sort-by)',
      command: '<%= config.bin %> scan -n shop --sort-by image -o custom-columns=REF:image,STATUS:status',
    },
    {
      description: 'Inventory rendered Helm manifests offline',
      command: 'helm template ./chart | <%= config.bin %> scan -f - -o json',
    },
    {
      description: 'Count Argo Rollouts as a source kind',
      command: '<%= config.bin %> scan -n shop --source-kinds rollouts.yaml',
    },
    {
      description: 'Inventory a directory of manifests',
      command: '<%= config.bin %> scan -f k8s/ --namespace staging',
    },
  ];

  static override flags = inventoryScanFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const { flags } = await this.parse(Scan);
    const { options, problems } = completeScanOptions(flags);
    if (problems.length) failFlags(this, problems);
    const declared = await readSourceKindsFile(this, options.sourceKindsFile);
    if (options.filename !== undefined) return this.offline(options, declared);
    return this.cluster(options, declared);
  }

  /** Prints the report: sorted (the path was checked up front), fitted on a terminal. */
  private print(options: ScanOptions, doc: ReturnType<typeof scanDocument>, several: boolean): void {
    const { output } = options;
    if (options.sortBy !== undefined) {
      try {
        sortScanImages(doc, options.sortBy);
      } catch (e) {
        failLine(this, `--sort-by: ${(e as Error).message}`);
      }
    }
    const table = tableOptions({ output, 'no-headers': options.noHeaders });
    const out = renderScan(doc, output, { ...table, namespaceColumn: several });
    if (output === 'table' || output === 'wide') printOut(out.stdout, { wide: output === 'wide' });
    else process.stdout.write(out.stdout);
    printErr(out.stderr);
  }

  /** -f: the same rules over manifest files; nothing is contacted or written. */
  private async offline(options: ScanOptions, declared: SourceKindSpec[]): Promise<void> {
    // Offline, every declared kind is in force: no server says which ones are served.
    const kinds = new SourceKinds(declared);
    const read = await readManifestsForCommand(
      this,
      options.filename!,
      options.namespaces[0] ?? 'default',
      options.maxInputBytes,
      kinds,
    );
    const doc = scanDocument(fromOfflineScan(offlineInventory(read, kinds)));
    this.print(options, doc, doc.namespaces.length > 1);
  }

  /** A cluster: each namespace rebuilt whole (or read only, with -l or --dry-run). */
  private async cluster(options: ScanOptions, declared: SourceKindSpec[]): Promise<void> {
    const { output } = options;
    let rest: KubeRest;
    let target = options.namespaces;
    try {
      let kc;
      ({ kc, rest } = connect(options.cluster));
      if (!options.allNamespaces && target.length === 0) target = [contextNamespace(kc, 'Scanning')];
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const several = options.allNamespaces || target.length > 1;
    const spin = spinner('Scanning', (output === 'table' || output === 'wide') && several);
    try {
      // One discovery GET first: without the CRD every namespace would fail with a bare 404.
      // A selector scan never touches Images and does not need it; a dry run without it has
      // nothing to compare with, so it reports what the workloads reference (inv not installed:
      // a user with only a kubeconfig still sees the images).
      let noInventory = false;
      if (options.selector === undefined) {
        if (!options.dryRun) await requireCrds(rest, [IMAGE_CRD]);
        else if ((await missingCrds(rest, [IMAGE_CRD])).length) {
          noInventory = true;
          process.stderr.write(`${NO_INVENTORY_NOTE}\n`);
        }
      }
      const discovered = await discoverKinds(rest, declared);
      reportSkippedKinds(discovered);
      let all: string[] | undefined;
      if (options.allNamespaces) {
        try {
          all = await listAllNamespaces(rest);
        } catch (e) {
          const forbidden = forbiddenMessage(e);
          if (forbidden) failLine(this, `${forbidden} (-A lists every namespace; use -n for yours)`);
          throw e;
        }
      }
      const scanned = all ?? target;
      // ^C while Images are written: no new namespace starts, the ones being written finish
      // (bounded by the interrupt's cleanup wait; a second ^C exits at once), then one line says
      // what was done. Reads are simply abandoned, and a dry run or selector scan writes nothing.
      const stop = new ScanStop();
      const writes = !options.dryRun && options.selector === undefined;
      exitOnInterrupt();
      if (writes) {
        setInterruptHint(() => 'finishing the namespaces being written (^C again to stop at once)');
        setInterruptCleanup(async () => {
          await stop.stop();
          const untouched = scanned.length - stop.written;
          process.stderr.write(
            `${stop.written} of ${scanned.length} namespaces written; the other ${untouched} were not touched\n`,
          );
        }, FINISH_WRITES_MS);
      } else {
        setInterruptHint(() => 'nothing was written');
      }
      let lastFrame = 0;
      // -o json keeps each namespace as its rendered text, not as objects (json-collector.ts);
      // --sort-by needs every image first, the other formats their own pass over the objects.
      const collector =
        output === 'json' && options.sortBy === undefined
          ? new ScanJsonCollector(options.dryRun, noInventory || options.selector !== undefined)
          : undefined;
      const pacer = paceHeap();
      const report = await scanCluster(rest, {
        results: collector,
        namespaces: scanned,
        stop,
        dryRun: options.dryRun,
        concurrency: options.concurrency,
        checkNamespaces: !options.allNamespaces,
        allNamespaces: options.allNamespaces,
        selector: options.selector,
        readOnly: noInventory,
        kinds: discovered.kinds,
        onProgress: (done, total, ns) => {
          if (!spin) return;
          spin.text = `Scanned ${done}/${total} namespaces (last: ${ns})`;
          // Drawn now, at most once a frame: a merged -A scan hands out many namespaces at once,
          // and may finish before the spinner's next frame would have shown any count.
          const now = Date.now();
          if (now - lastFrame >= PROGRESS_FRAME_MS) {
            lastFrame = now;
            spin.render();
          }
        },
      }).finally(() => pacer.stop());
      setInterruptCleanup(undefined);
      setInterruptHint(undefined);
      spin?.stop();
      const input = fromClusterScan(report, options.dryRun, options.selector);
      if (collector) {
        const out = collector.render(input);
        for (const piece of out.stdout) process.stdout.write(piece);
        printErr(out.stderr);
      } else this.print(options, scanDocument(input), several);
      // Nothing scanned at all (a typo, no permission anywhere): nothing was done, exit 2.
      if (report.failures.length && report.rebuilt === 0) this.exit(EXIT_USAGE);
      if (report.failures.length) this.exit(EXIT_PARTIAL_FAILURE);
    } catch (e) {
      spin?.stop();
      if (e instanceof Error && 'oclif' in e) throw e;
      exitIfCrdMissing(this, e);
      failLine(this, `scan failed: ${forbiddenMessage(e) ?? (e as Error).message}`);
    } finally {
      rest.close();
    }
  }
}
