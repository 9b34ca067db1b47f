// `inv check`: preflight and health report. Thin: flags, core/check, rendering.
import { printOut } from '../cli/output/wrap.js';
import { readSourceKindsFile } from '../cli/source-kinds-flag.js';
import { parseDurationMs } from '../core/duration.js';
import { attempt } from '../cli/flag-problems.js';
import { Command } from '@oclif/core';
import { exitOnInterrupt, setInterruptCleanup, setInterruptHint } from '../cli/process/interrupt.js';
import { EXIT_PARTIAL_FAILURE } from '../cli/process/exit-codes.js';
import { failFlags, failLine } from '../cli/process/fail.js';
import { connect } from '../cli/connect.js';
import type { Output } from '../cli/flags.js';
import { checkFlags } from '../cli/check/check-flags.js';
import { paragraphs } from '../cli/help-text.js';
import { renderChecks } from '../cli/check/render-check.js';
import { spinner } from '../cli/output/style.js';
import { validateNamespaceName } from '../core/kube/names.js';
import type { KubeRest } from '../core/kube/rest.js';
import { commandCompletion } from '../cli/completion/sources.js';

export default class Check extends Command {
  static override summary = 'Check that inv is installed and healthy on the cluster, one line per check.';

  static override description = paragraphs(`Checks, in order: that the API server is reachable (and its
version); that its Kubernetes minor is within the range this inv supports (outside it, a warning
naming the range, which passes: docs/supported-versions.md); that the Image, ImageList and ImageJob CRDs are installed at the version this inv uses;
that you may do what \`inv scan\` and \`inv erase\` need (SelfSubjectAccessReview); that the daemon
holds its Lease and renewed it recently; that the workers' namespace exists at the privileged Pod
Security level (a part that only \`inv install --daemon\` makes, so when it is absent it is
reported as not installed and passes) and that its inv-erase-config parses. With --nodes, it also runs a dry-run worker
on every node, which proves the configured runtime socket exists there.

Exit codes: 0 every check passed (warnings and parts not installed pass); 1 some check failed (the line says which, and a hint says what
to do); 2 bad flags or no cluster configured.`);

  static override examples = [
    { description: 'After `inv install`', command: '<%= config.bin %> check' },
    { description: 'Also try a dry-run worker on every node', command: '<%= config.bin %> check --nodes' },
    { description: 'Machine-readable', command: '<%= config.bin %> check -o json' },
  ];

  static override flags = checkFlags;

  /** Where TAB finds each flag's values, as the flags declare it (read by `inv __complete`). */
  static completion = commandCompletion(this.flags, this.args);

  async run(): Promise<void> {
    const { flags } = await this.parse(Check);
    const output = flags.output as Output;
    // Validate every flag at once, then connect.
    const problems: string[] = [];
    for (const f of ['daemon-namespace', 'erase-namespace', 'erase-config-namespace'] as const) {
      const problem = validateNamespaceName(flags[f]);
      if (problem) problems.push(`--${f} "${flags[f]}": ${problem}`);
    }
    const nodesTimeout = flags.nodes
      ? attempt(problems, () => parseDurationMs(flags['nodes-timeout'], '--nodes-timeout'))
      : undefined;
    if (nodesTimeout !== undefined && !(nodesTimeout > 0))
      problems.push('--nodes-timeout must be longer than 0s');
    const nodesTimeoutMs = nodesTimeout ?? 0;
    if (problems.length) failFlags(this, problems);
    let rest: KubeRest;
    try {
      ({ rest } = connect(flags));
    } catch (e) {
      failLine(this, (e as Error).message);
    }
    const sourceKinds = await readSourceKindsFile(this, flags['source-kinds']);
    const { runChecks, passed } = await import('../core/check/checks.js');
    const spin = spinner('Checking', output === 'table');
    try {
      const results = await runChecks(rest, {
        ...(flags['source-kinds'] ? { sourceKinds } : {}),
        daemonNamespace: flags['daemon-namespace'],
        leaseName: flags['leader-elect-id'],
        workersNamespace: flags['erase-namespace'],
        configNamespace: flags['erase-config-namespace'],
      });
      if (flags.nodes) {
        const { nodesCheck, removeOwnCheckList, CHECK_IMAGELIST } = await import('../core/check/nodes.js');
        if (spin) spin.text = 'Running a dry-run worker on every node';
        // ^C removes the check's ImageList (its job and workers go with it); a list a killed
        // check left behind is replaced by the next run.
        exitOnInterrupt();
        setInterruptHint(() => `removing imagelist/${CHECK_IMAGELIST}`);
        setInterruptCleanup(() => removeOwnCheckList(rest));
        results.push(
          ...(await nodesCheck(rest, {
            ready: passed(results),
            timeoutMs: nodesTimeoutMs,
          })),
        );
      }
      setInterruptCleanup(undefined);
      setInterruptHint(undefined);
      spin?.stop();
      if (output === 'table') printOut(renderChecks(results, output));
      else process.stdout.write(renderChecks(results, output));
      if (!passed(results)) this.exit(EXIT_PARTIAL_FAILURE);
    } finally {
      spin?.stop();
      rest.close();
    }
  }
}
