// `inv version`: the client's version always; the server's and the installed CRD versions when
// a cluster is reachable. `inv --version` stays the fast, offline form (oclif's own flag).
import * as resources from '../core/kube/resources.js';
import { Command } from '@oclif/core';
import { versionFlags } from '../cli/version/version-flags.js';
import { failLine } from '../cli/process/fail.js';
import { type KubeFlagValues, type Output } from '../cli/flags.js';
import { paragraphs } from '../cli/help-text.js';
import { reportDocument } from '../cli/output/output-shape.js';
import { renderData } from '../cli/output/print-data.js';
import type { Support } from '../core/kube/supported-versions.js';
import type { VersionInfo } from '../core/kube/kube-version.js';
import { commandCompletion } from '../cli/completion/sources.js';

interface VersionReport {
  client: { version: string; node: string; platform: string };
  /** support: the server's Kubernetes against the range inv supports (core/kube/supported-versions.ts). */
  server?: { version: string; url: string; support: Support };
  /** CRD name → versions it serves, or "not installed". */
  crds?: Record<string, string>;
  /** Why the server part is missing. */
  serverError?: string;
}

export default class Version extends Command {
  static override summary =
    'Print the client version, and the server’s and the CRDs’ when a cluster answers.';

  static override description = paragraphs(`Prints this inv's version (and Node.js and platform). Unless
--client is given, it also asks the cluster for the API server's version and the versions the
installed Image, ImageList and ImageJob CRDs serve. A server whose Kubernetes minor is outside the
range this inv supports gets a warning on stderr naming the range (as kubectl warns of a version
skew); -o json says it as server.support (supported, older, newer or unknown). A cluster that is
not configured or not reachable (each request has --request-timeout) is reported on the "Server"
line; the command still exits 0, because the client part succeeded (scripts that need the
cluster should use \`inv check\`). \`inv --version\` prints the
client version only and never contacts a cluster.

Exit codes: 0 the client version was printed (whatever the server part says); 2 bad flags.`);

  static override examples = [
    { description: 'Client, server and CRDs', command: '<%= config.bin %> version' },
    { description: 'The client only (no cluster contacted)', command: '<%= config.bin %> version --client' },
    { description: 'Machine-readable', command: '<%= config.bin %> version -o json' },
  ];

  static override flags = versionFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const { flags } = await this.parse(Version);
    const output = flags.output as Output;
    const report: VersionReport = {
      client: {
        version: this.config.version,
        node: process.version,
        platform: this.config.platform + '-' + this.config.arch,
      },
    };
    // On stderr whatever the format, as kubectl warns of a version skew: -o json stays parseable.
    const warning = flags.client ? undefined : await this.serverPart(report, flags);
    if (warning) process.stderr.write(`warning: ${warning}\n`);
    const data = renderData(reportDocument('VersionReport', report), output);
    if (data !== undefined) return void process.stdout.write(data);
    const lines = [
      `Client: inv ${report.client.version} (node ${report.client.node}, ${report.client.platform})`,
    ];
    if (!flags.client) {
      lines.push(
        report.server
          ? `Server: ${report.server.version} (${report.server.url})`
          : `Server: unreachable: ${report.serverError}`,
      );
      for (const [name, v] of Object.entries(report.crds ?? {})) lines.push(`CRD ${name}: ${v}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  /** Fills the server part of `report`; returns the warning for a server outside the range. */
  private async serverPart(report: VersionReport, flags: KubeFlagValues): Promise<string | undefined> {
    const { KubeConfigError } = await import('../core/kube/config.js');
    const { isNotFound } = await import('../core/kube/rest.js');
    const { connect } = await import('../cli/connect.js');
    const { OUR_CRDS } = await import('../core/kube/crds.js');
    const { parseKubeVersion } = await import('../core/kube/kube-version.js');
    const { supportOf, supportWarning } = await import('../core/kube/supported-versions.js');
    let rest;
    let warning: string | undefined;
    try {
      ({ rest } = connect(flags));
    } catch (e) {
      if (!(e instanceof KubeConfigError)) failLine(this, (e as Error).message);
      report.serverError = e.message;
      return undefined;
    }
    try {
      const v = await rest.get<VersionInfo>('/version');
      const parsed = parseKubeVersion(v);
      const support = supportOf(parsed);
      report.server = { version: v.gitVersion ?? '', url: rest.server.origin, support };
      if (support !== 'supported') warning = supportWarning(parsed?.text ?? v.gitVersion ?? '', support);
    } catch (e) {
      report.serverError = (e as Error).message;
      rest.close();
      return undefined;
    }
    report.crds = {};
    for (const crd of OUR_CRDS) {
      try {
        const cur = await resources.get<{
          spec: { versions: { name: string; served: boolean; storage: boolean }[] };
        }>(rest, 'CustomResourceDefinition', undefined, crd.name);
        report.crds[crd.name] = cur.spec.versions
          .filter((x) => x.served)
          .map((x) => `${x.name}${x.storage ? ' (storage)' : ''}`)
          .join(', ');
      } catch (e) {
        report.crds[crd.name] = isNotFound(e) ? 'not installed' : `unknown: ${(e as Error).message}`;
      }
    }
    rest.close();
    return warning;
  }
}
