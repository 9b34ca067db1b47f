// `inv images`: where each image is used, from the Image resources or, with -f, from manifests
// (core/report/); drawn by cli/images/render-images.ts.
import { Command } from '@oclif/core';
import { printOut } from '../cli/output/wrap.js';
import { exitIfCrdMissing, failFlags, failLine } from '../cli/process/fail.js';
import { connect } from '../cli/connect.js';
import { contextNamespace } from '../cli/context-namespace.js';
import { tableOptions } from '../cli/flags.js';
import { imagesFlags } from '../cli/images/images-flags.js';
import { sortItems } from '../cli/output/print-data.js';
import { completeImagesOptions, type ImagesOptions } from '../cli/images/images-options.js';
import { paragraphs } from '../cli/help-text.js';
import { renderImageReport } from '../cli/images/render-images.js';
import { readManifestsForCommand } from '../cli/read-manifests.js';
import { forbiddenMessage } from '../core/kube/forbidden.js';
import { namespaceMissing } from '../core/kube/namespaces.js';
import type { KubeRest } from '../core/kube/rest.js';
import { EXIT_NO_MATCH } from '../cli/process/exit-codes.js';
import { clusterUses, liveUses, offlineUses } from '../core/report/image-uses.js';
import { IMAGE_CRD, NO_INVENTORY_NOTE, missingCrds } from '../core/kube/crds.js';
import { listAllNamespaces } from '../core/inventory/scan.js';
import { discoverKinds } from '../core/inventory/discover-kinds.js';
import { filterUses, groupUses, type ImageUse } from '../core/report/image-report.js';
import { commandCompletion } from '../cli/completion/sources.js';

export default class Images extends Command {
  static override summary = 'Report which images are used, where and by whom, across the cluster.';

  static override description =
    paragraphs(`Reads the Image resources that \`inv scan\` and \`inv watch\` keep (no workload is listed),
filters them and groups them: by image (the default), with the namespaces and the users of
each (Kind/name, as in status.users), or --by namespace or --by registry, with counts. Like
\`inv scan\` and kubectl, it reads the context's namespace (else "default") without -n, and every
namespace with -A.

--image takes the glob of exclusions over normalized refs: 'docker.io/bitnami/*' or 'bitnami/*'
matches every Bitnami image on Docker Hub, 'k8s.gcr.io/*' everything from that registry.

In a cluster where inv is not installed (no Image CRD) it reads the workloads instead, by the
same rules as \`inv scan --dry-run\`, says so on stderr and writes nothing: a kubeconfig that may
read the workloads is all it needs.

With --offline -f PATH the same report runs over manifest files (as \`inv scan -f\` reads them),
with no cluster.

Output: -o wide adds the users of each image; -o name prints one ref (or namespace, or registry,
with --by) per line; -o json|yaml print the ImageReport document of docs/output.md, and
-o jsonpath=... and -o custom-columns=... read it as kubectl does (one custom-columns row per
row). --sort-by sorts the rows by a JSONPath expression, in every format.

Exit codes: 0 something matched; 3 nothing matched the filters; 2 bad input, a namespace that
does not exist, or no usable cluster.`);

  static override examples = [
    {
      description: 'Who still pulls Bitnami images from Docker Hub?',
      command: "<%= config.bin %> images --image 'docker.io/bitnami/*' -A",
    },
    {
      description: 'Everything from the old registry, as JSON',
      command: '<%= config.bin %> images -A --registry k8s.gcr.io -o json',
    },
    { description: 'Image counts per namespace', command: '<%= config.bin %> images -A --by namespace' },
    {
      description: 'Fail a pipeline while anyone still uses a vulnerable tag',
      command: "<%= config.bin %> images -A --image 'log4j-app:2.14*' -o name && exit 1",
    },
    {
      description: 'The most used images first, two columns (kubectl custom-columns)',
      command: '<%= config.bin %> images --sort-by .userCount -o custom-columns=IMAGE:.image,N:.userCount',
    },
    {
      description: 'One ref per line (kubectl JSONPath)',
      command: `<%= config.bin %> images -A -o jsonpath='{range .rows[*]}{.image}{"\\n"}{end}'`,
    },
    {
      description: 'The same report over rendered manifests, offline',
      command: 'helm template ./chart | <%= config.bin %> images --offline -f - --registry docker.io',
    },
  ];

  static override flags = imagesFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const { flags } = await this.parse(Images);
    const { options, problems } = completeImagesOptions(flags);
    if (problems.length) failFlags(this, problems);
    const uses = options.filename !== undefined ? await this.offline(options) : await this.cluster(options);
    const report = groupUses(filterUses(uses, options.filters), options.by);
    if (options.sortPath !== undefined) {
      try {
        sortItems(report.rows as object[], options.sortPath);
      } catch (e) {
        failLine(this, `--sort-by: ${(e as Error).message}`);
      }
    }
    const { output } = options;
    const text = renderImageReport(report, output, {
      ...tableOptions({ output, 'no-headers': options.noHeaders }),
      source: options.filename !== undefined ? 'files' : 'cluster',
    });
    if (output === 'table' || output === 'wide') printOut(text, { wide: output === 'wide' });
    else process.stdout.write(text);
    if (report.rows.length === 0) {
      process.stderr.write('no image matched\n');
      this.exit(EXIT_NO_MATCH);
    }
  }

  /** --offline -f: the uses the rules find in manifest files. */
  private async offline(options: ImagesOptions): Promise<ImageUse[]> {
    const { namespaces } = options;
    const read = await readManifestsForCommand(
      this,
      options.filename!,
      namespaces[0] ?? 'default',
      options.maxInputBytes,
    );
    const uses = offlineUses(read.byNamespace);
    return namespaces.length ? uses.filter((u) => namespaces.includes(u.namespace)) : uses;
  }

  /** The Image resources of the namespaces asked for (the context's by default). */
  private async cluster(options: ImagesOptions): Promise<ImageUse[]> {
    let rest: KubeRest;
    let target = options.namespaces;
    let reading = 'the Image resources';
    try {
      let kc;
      ({ kc, rest } = connect(options.cluster));
      if (!options.allNamespaces && target.length === 0) target = [contextNamespace(kc, 'Reading')];
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    try {
      // A typo in -n is an error (exit 2), not "nothing matched" (exit 3).
      for (const ns of target)
        if (await namespaceMissing(rest, ns)) failLine(this, `namespace "${ns}" not found`);
      // Nothing of inv in the cluster: the workloads themselves, as `inv scan --dry-run` reads them,
      // so a user with only a kubeconfig (and read access) gets the report too.
      if ((await missingCrds(rest, [IMAGE_CRD])).length) {
        process.stderr.write(`${NO_INVENTORY_NOTE}\n`);
        reading = 'the workloads';
        const { kinds } = await discoverKinds(rest, []);
        return await liveUses(rest, target.length ? target : await this.allNamespaces(rest), kinds);
      }
      return await clusterUses(rest, target.length ? target : undefined);
    } catch (e) {
      if (e instanceof Error && 'oclif' in e) throw e;
      exitIfCrdMissing(this, e);
      failLine(this, `reading ${reading} failed: ${forbiddenMessage(e) ?? (e as Error).message}`);
    } finally {
      rest.close();
    }
  }

  /** -A without the inventory: every namespace, which a user may be refused to list. */
  private async allNamespaces(rest: KubeRest): Promise<string[]> {
    try {
      return await listAllNamespaces(rest);
    } catch (e) {
      const forbidden = forbiddenMessage(e);
      if (forbidden) failLine(this, `${forbidden} (-A lists every namespace; use -n for yours)`);
      throw e;
    }
  }
}
