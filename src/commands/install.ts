// `inv install`: the CRDs (and with --daemon the deploy/ bundle) from inside the package.
import fs from 'node:fs';
import { discoverKinds } from '../core/inventory/discover-kinds.js';
import { readSourceKindsFile } from '../cli/source-kinds-flag.js';
import { parseDurationMs } from '../core/duration.js';
import { Command, Flags } from '@oclif/core';
import { EXIT_PARTIAL_FAILURE, EXIT_USAGE } from '../cli/exit-codes.js';
import { failLine } from '../cli/fail.js';
import { connect } from '../cli/connect.js';
import { kubeFlags } from '../cli/flags.js';
import { paragraphs } from '../cli/help-text.js';
import { colors } from '../cli/style.js';
import type { KubeRest } from '../core/kube/rest.js';

export default class Install extends Command {
  static override summary = 'Install or upgrade the CRDs (and with --daemon, the daemon) on the cluster.';

  static override description = paragraphs(`Applies the Image, ImageList and ImageJob CRDs that ship with
this version of inv, with server-side apply under the field manager "inv", then waits until the
API server serves them (Established). With --daemon, also applies the daemon bundle, the same
objects as \`kubectl apply -k deploy/\`: the namespaces image-inventory-system (restricted) and
image-inventory-workers (privileged, for the erase workers), the ServiceAccount, least-privilege
RBAC, the Deployment running \`inv watch --leader-elect\`, and the NetworkPolicies.

Running it again is safe: unchanged objects stay unchanged, and an upgrade changes only what the
new version ships differently. It never deletes anything (see \`inv uninstall\`).

Exit codes: 0 installed; 1 the API server refused an object or the CRDs did not become
Established in time (the output says which); 2 bad flags or no cluster configured.`);

  static override examples = [
    { description: 'Install the CRDs', command: '<%= config.bin %> install' },
    {
      description: 'The CRDs and the daemon, with your image',
      command: '<%= config.bin %> install --daemon --image registry.example.com/inv:0.1.0',
    },
    {
      description: 'Print the objects instead, to review or to commit to GitOps',
      command: '<%= config.bin %> install --daemon --dry-run > inv.yaml',
    },
  ];

  static override flags = {
    daemon: Flags.boolean({ description: 'Also install the daemon (namespaces, RBAC, Deployment).' }),
    image: Flags.string({
      description: 'Image of the daemon (default: the image deploy/kustomization.yaml names).',
      dependsOn: ['daemon'],
    }),
    'source-kinds': Flags.string({
      description:
        "A SourceKinds file: the daemon's declared source kinds (its ConfigMap), with list and watch granted on them.",
      helpValue: 'FILE',
      dependsOn: ['daemon'],
    }),
    'dry-run': Flags.boolean({ description: 'Print the objects as YAML; contact no cluster.' }),
    timeout: Flags.string({
      description: 'How long to wait for the CRDs to be Established.',
      default: '60s',
    }),
    ...kubeFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Install);
    let timeoutMs: number;
    try {
      timeoutMs = parseDurationMs(flags.timeout, '--timeout');
      if (flags.image !== undefined && !/^[^\s@]+(@sha256:[0-9a-f]{64})?$/.test(flags.image))
        throw new Error(`--image "${flags.image}": not an image reference (name[:tag][@sha256:digest])`);
    } catch (e) {
      this.error((e as Error).message, { exit: EXIT_USAGE });
    }
    const { install, installObjects } = await import('../core/install/install.js');
    const declared = await readSourceKindsFile(this, flags['source-kinds']);
    const text = flags['source-kinds'] ? fs.readFileSync(flags['source-kinds'], 'utf8') : '';
    const noPlural = (ks: { kind: string; group: string; version: string; plural: string }[]) => {
      for (const k of ks.filter((x) => !x.plural))
        process.stderr.write(
          `warning: ${k.kind}.${k.group}/${k.version} is not served and names no plural: no permission granted for it\n`,
        );
    };
    if (flags['dry-run']) {
      const { stringify } = await import('yaml');
      noPlural(declared);
      const objects = installObjects({
        daemon: flags.daemon,
        image: flags.image,
        ...(flags['source-kinds'] ? { sourceKinds: { text, kinds: declared } } : {}),
      });
      process.stdout.write(objects.map((o) => `---\n${stringify(o)}`).join(''));
      return;
    }
    let rest: KubeRest;
    try {
      ({ rest } = connect(flags));
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const c = colors();
    try {
      // The plurals of declared kinds come from discovery when the file names none.
      let kinds = declared;
      if (declared.length) {
        const d = await discoverKinds(rest, declared);
        const served = new Map(d.served.map((k) => [k.key, k]));
        kinds = declared.map((k) => served.get(k.key) ?? k);
        noPlural(kinds);
      }
      await install(rest, {
        daemon: flags.daemon,
        image: flags.image,
        ...(flags['source-kinds'] ? { sourceKinds: { text, kinds } } : {}),
        timeoutMs,
        onApplied: (name, action) =>
          process.stdout.write(`${name} ${action === 'unchanged' ? c.dim(action) : c.green(action)}\n`),
      });
      process.stdout.write(`CRDs Established. Next: ${this.config.bin} check\n`);
    } catch (e) {
      this.error(`install failed: ${(e as Error).message}`, { exit: EXIT_PARTIAL_FAILURE });
    } finally {
      rest.close();
    }
  }
}
