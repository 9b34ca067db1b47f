// `inv __complete WORDS... CURRENT`: the hidden command the completion scripts of
// `inv completion` (and kubectl's plugin completion, through kubectl_complete-inv) call on every
// TAB, as cobra's programs do. It prints candidates in cobra's format (src/cli/completion/complete.ts).
// Namespaces, ImageList and ImageJob names come from the cluster, and contexts from the
// kubeconfig, each under a short deadline: a slow or unreachable cluster costs the shell at most
// DEADLINE_MS and gives no candidates, never a hang and never an error on the terminal.
import { Command } from '@oclif/core';
import {
  formatCompletion,
  lineTarget,
  planCompletion,
  type Candidate,
  type CompletionCommand,
  type LineTarget,
} from '../cli/completion/complete.js';
import { readCommandCompletion, type DynamicSource } from '../cli/completion/sources.js';

/** From the first request on (start-up and module loading excluded); then it prints what it has and exits. */
const DEADLINE_MS = 2500;
/** Each API request; names only (metadata lists), one page. */
const REQUEST_MS = 2000;
const MAX_NAMES = 500;
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export default class Complete extends Command {
  static override hidden = true;
  static override strict = false;
  static override summary =
    'Completion candidates for the shell scripts of `inv completion` (cobra protocol).';

  async run(): Promise<void> {
    // The scripts pass `--` first, so oclif never reads a typed --help as its own.
    const words = this.argv[0] === '--' ? this.argv.slice(1) : [...this.argv];
    if (words.length === 0) words.push('');
    const commands: CompletionCommand[] = this.config.commands.map((c) => {
      // Each command's sources, as its flags and arguments declare them (cli/completion/sources.ts).
      const sources = readCommandCompletion(c.completion);
      return {
        id: c.id.replaceAll(':', ' '),
        hidden: c.hidden,
        summary: c.summary ?? c.description,
        flags: Object.fromEntries(
          Object.entries(c.flags ?? {}).map(([name, f]) => [
            name,
            {
              char: f.char,
              takesValue: f.type === 'option',
              // -o checks its own values (templates too), so it lists them in its help value.
              options:
                f.type !== 'option'
                  ? undefined
                  : (f.options ??
                    (sources.flags[name] === 'output' && typeof f.helpValue === 'string'
                      ? f.helpValue.split('|').filter((v) => !v.includes('='))
                      : undefined)),
              hidden: f.hidden,
              summary: f.summary ?? f.description,
              source: sources.flags[name],
            },
          ]),
        ),
        args: Object.keys(c.args ?? {}).map((name) => ({ name, source: sources.args[name] })),
      };
    });
    const plan = planCompletion(commands, words);
    if ('candidates' in plan)
      return void process.stdout.write(formatCompletion(plan.candidates, plan.directive));

    let finished = false;
    const answer = (names: string[]) => {
      if (finished) return;
      finished = true;
      const picked: Candidate[] = names
        .filter((n) => n.startsWith(plan.partial))
        .sort()
        .map((n) => ({ value: plan.prefix + n }));
      process.stdout.write(formatCompletion(picked, plan.directive));
    };
    // The deadline starts when the cluster is first asked (credentials included: an exec plugin
    // may hang too); loading the modules before it is local work, slow only on a busy machine.
    let timer: NodeJS.Timeout | undefined;
    const startDeadline = () => {
      timer = setTimeout(() => {
        answer([]);
        process.exit(0);
      }, DEADLINE_MS);
    };
    try {
      answer(await lookup(plan.dynamic, lineTarget(words), startDeadline));
    } catch {
      answer([]); // no cluster, no permission, no CRD: nothing to offer, silently
    } finally {
      clearTimeout(timer);
    }
  }
}

async function lookup(
  source: DynamicSource,
  target: LineTarget,
  startDeadline: () => void,
): Promise<string[]> {
  // The kubeconfig as every command loads it (cli/connect.ts): for the contexts, the file alone
  // (the context being typed may not exist yet); for names from the cluster, with the context
  // and the connection flags typed on the line.
  const { cluster } = await import('../cli/connect.js');
  if (source === 'contexts') {
    return cluster({ kubeconfig: target.kubeconfig })
      .kc.getContexts()
      .map((c) => c.name);
  }
  const { kc } = cluster(target);
  const { KubeRest, METADATA_LIST_ACCEPT } = await import('../core/kube/rest.js');
  const { resourcePath } = await import('../core/kube/resources.js');
  startDeadline();
  const path = resourcePath(
    source === 'namespaces' ? 'Namespace' : source === 'imagelists' ? 'ImageList' : 'ImageJob',
  );
  const rest = new KubeRest(kc, { timeoutMs: REQUEST_MS, maxResponseBytes: MAX_RESPONSE_BYTES });
  try {
    const page = await rest.request<{ items?: { metadata?: { name?: string } }[] }>('GET', path, {
      query: { limit: MAX_NAMES },
      accept: METADATA_LIST_ACCEPT,
    });
    return (page.items ?? []).flatMap((i) => (i.metadata?.name ? [i.metadata.name] : []));
  } finally {
    rest.close();
  }
}
