// What to offer for the word under the cursor, from the command table and the words typed so
// far: the pure half of `inv __complete` (src/commands/__complete.ts). The protocol is cobra's,
// which kubectl and helm use: candidates one per line ("value\tdescription"), then ":<directive>",
// so the same answer serves our shell scripts and kubectl's plugin completion
// (kubectl_complete-inv).
import type { KubeFlagValues } from '../flags.js';
import { isDynamicSource, type CompletionSource, type DynamicSource } from './sources.js';

/** cobra's ShellCompDirective bits. */
export const Directive = { Default: 0, Error: 1, NoSpace: 2, NoFileComp: 4, KeepOrder: 32 } as const;

export interface CompletionFlag {
  char?: string;
  /** Takes a value (oclif's "option" flags); booleans do not. */
  takesValue: boolean;
  options?: readonly string[];
  hidden?: boolean;
  summary?: string;
  /** Where its values come from, as the flag declares it (./sources.ts). */
  source?: CompletionSource;
}

export interface CompletionArg {
  name: string;
  source?: CompletionSource;
}

export interface CompletionCommand {
  /** Space-separated, as typed: "erase status". */
  id: string;
  hidden?: boolean;
  summary?: string;
  flags: Record<string, CompletionFlag>;
  /** Positional arguments, in order. */
  args: CompletionArg[];
}

export interface Candidate {
  value: string;
  description?: string;
}

export type Plan =
  | { candidates: Candidate[]; directive: number }
  | {
      dynamic: DynamicSource;
      /** Typed before the value in the same word (`--namespace=`), echoed back on every candidate. */
      prefix: string;
      /** What the value typed so far starts with. */
      partial: string;
      directive: number;
    };

/**
 * The cluster flags the line names (--kubeconfig, --context and kubectl's connection flags), for
 * the dynamic lookups: `inv scan --as jane -n <TAB>` offers what jane may list, as kubectl does.
 */
export type LineTarget = Omit<KubeFlagValues, 'request-timeout'>;

/** The cluster flags that take a value (`as-group` may repeat); -s is --server. Every one: a new one fails to compile until listed. */
const TARGET_VALUES: Record<Exclude<keyof LineTarget, 'insecure-skip-tls-verify'>, true> = {
  kubeconfig: true,
  context: true,
  server: true,
  'certificate-authority': true,
  'tls-server-name': true,
  token: true,
  user: true,
  cluster: true,
  as: true,
  'as-group': true,
  'as-uid': true,
};
const TARGET_NAMES = Object.keys(TARGET_VALUES) as (keyof typeof TARGET_VALUES)[];

const firstLine = (s: string | undefined) => s?.split('\n')[0]?.trim() || undefined;

/** -o values: the command's formats, then kubectl's template formats (their `=` wants no space). */
const TEMPLATES = ['jsonpath=', 'jsonpath-file=', 'custom-columns=', 'custom-columns-file='];

function valuePlan(flag: CompletionFlag, prefix: string, partial: string): Plan {
  const { source } = flag;
  if (isDynamicSource(source)) return { dynamic: source, prefix, partial, directive: Directive.NoFileComp };
  if (flag.options?.length || source === 'output') {
    const all = [...(flag.options ?? []), ...(source === 'output' ? TEMPLATES : [])];
    const picked = all.filter((o) => o.startsWith(partial)).map((o) => ({ value: prefix + o }));
    const open = picked.length > 0 && picked.every((c) => c.value.endsWith('='));
    return { candidates: picked, directive: Directive.NoFileComp | (open ? Directive.NoSpace : 0) };
  }
  // Files (kubeconfig, -f, source kinds) or free text: the shell's own file completion, as cobra does.
  return { candidates: [], directive: Directive.Default };
}

function findFlag(cmd: CompletionCommand, token: string): [string, CompletionFlag] | undefined {
  if (token.startsWith('--')) {
    const name = token.slice(2);
    const f = cmd.flags[name];
    return f ? [name, f] : undefined;
  }
  const ch = token.slice(1, 2);
  return Object.entries(cmd.flags).find(([, f]) => f.char === ch);
}

/** Plans the completion of the last word of `words` (the words after the program name). */
export function planCompletion(commands: readonly CompletionCommand[], words: readonly string[]): Plan {
  const typed = words.slice(0, -1);
  const cur = words[words.length - 1] ?? '';
  const visible = commands.filter((c) => !c.hidden);
  const ids = new Set(commands.map((c) => c.id));

  // The command: the longest run of leading words that names one.
  let depth = 0;
  let cmd: CompletionCommand | undefined;
  for (let i = 1; i <= typed.length; i++) {
    const id = typed.slice(0, i).join(' ');
    if (!commands.some((c) => c.id === id || c.id.startsWith(`${id} `))) break;
    depth = i;
    if (ids.has(id)) cmd = commands.find((c) => c.id === id);
  }
  const path = typed.slice(0, depth).join(' ');
  const subcommands = (): Candidate[] =>
    visible
      .filter((c) => (path ? c.id.startsWith(`${path} `) : true))
      .map((c) => ({ id: c.id.slice(path ? path.length + 1 : 0), c }))
      .filter(({ id }) => !id.includes(' ') && id.startsWith(cur))
      .map(({ id, c }) => ({ value: id, description: firstLine(c.summary) }));

  if (!cmd || cmd.id !== path) {
    // Still choosing a command (or a topic's subcommand).
    return { candidates: cur.startsWith('-') ? [] : subcommands(), directive: Directive.NoFileComp };
  }

  // The words after the command: which flag wants a value, how many positionals are given.
  let positionals = 0;
  let pending: [string, CompletionFlag] | undefined;
  let flagsDone = false;
  for (const t of typed.slice(depth)) {
    if (pending) {
      pending = undefined;
      continue;
    }
    if (flagsDone || !t.startsWith('-') || t === '-') positionals++;
    else if (t === '--') flagsDone = true;
    else if (!t.includes('=') && !(t.length > 2 && !t.startsWith('--'))) {
      const f = findFlag(cmd, t);
      if (f?.[1].takesValue) pending = f;
    }
  }
  if (pending) return valuePlan(pending[1], '', cur);
  if (!flagsDone && cur.startsWith('--') && cur.includes('=')) {
    const eq = cur.indexOf('=');
    const f = findFlag(cmd, cur.slice(0, eq));
    if (f?.[1].takesValue) return valuePlan(f[1], cur.slice(0, eq + 1), cur.slice(eq + 1));
    return { candidates: [], directive: Directive.NoFileComp };
  }
  if (!flagsDone && cur.startsWith('-')) {
    const flags = Object.entries(cmd.flags)
      .filter(([name, f]) => !f.hidden && `--${name}`.startsWith(cur))
      .map(([name, f]) => ({ value: `--${name}`, description: firstLine(f.summary) }));
    if (cur === '-' || '--help'.startsWith(cur)) flags.push({ value: '--help', description: 'Show help.' });
    return { candidates: flags, directive: Directive.NoFileComp };
  }
  // A subcommand of this command (erase status), else its positional argument.
  const subs = subcommands();
  if (positionals === 0 && subs.length) return { candidates: subs, directive: Directive.NoFileComp };
  const arg = cmd.args[positionals];
  const source = arg?.source;
  if (isDynamicSource(source))
    return { dynamic: source, prefix: '', partial: cur, directive: Directive.NoFileComp };
  return { candidates: [], directive: arg ? Directive.Default : Directive.NoFileComp };
}

/** The cluster flags as typed on the line (either spelling), for the lookups; the word under the cursor is not one. */
export function lineTarget(words: readonly string[]): LineTarget {
  const out: LineTarget = {};
  const set = (key: keyof typeof TARGET_VALUES, value: string) => {
    if (key === 'as-group') out['as-group'] = [...(out['as-group'] ?? []), value];
    else out[key] = value;
  };
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i]!;
    if (w === '--insecure-skip-tls-verify') out['insecure-skip-tls-verify'] = true;
    if (w === '-s' && i + 1 < words.length - 1) set('server', words[i + 1]!);
    for (const key of TARGET_NAMES) {
      if (w === `--${key}` && i + 1 < words.length - 1) set(key, words[i + 1]!);
      else if (w.startsWith(`--${key}=`)) set(key, w.slice(key.length + 3));
    }
  }
  return out;
}

/** cobra's wire format: a candidate per line (tab, description), then ":<directive>". */
export function formatCompletion(candidates: readonly Candidate[], directive: number): string {
  // A value with a control character (a newline, an escape sequence) cannot be typed as one
  // word: it is left out, not altered into another name. Descriptions are only shown: cleaned.
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const control = /[\u0000-\u001f\u007f-\u009f]/;
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  const lines = candidates
    .filter((c) => !control.test(c.value))
    .map((c) => (c.description ? `${c.value}\t${clean(c.description)}` : c.value));
  return `${[...lines, `:${directive}`].join('\n')}\n`;
}
