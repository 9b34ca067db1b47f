// A strict, small reader of a command line against a command's flags as the oclif manifest
// describes them. It exists so the worker Pod's `inv node-remove …` (a command line the erase
// controller writes, run once per node per erase) can start without loading oclif, which costs
// a start-up about as long as Node's own.
//
// It never disagrees with oclif because it never guesses: it understands `--name value`,
// `--name=value`, `-c value` and a bare `--boolean`, and for anything else (help, an unknown or
// deprecated name, a value oclif would refuse, a repeated single flag, an argument) it answers
// undefined and the caller hands the whole command line to oclif, which then parses it, or says
// what is wrong, exactly as it always has.

/**
 * A flag as `oclif.manifest.json` records it (the fields this reader uses; `--no-x`, aliases and
 * char aliases are not keys of the spec, so they go to oclif).
 */
export interface ManifestFlag {
  type: 'option' | 'boolean';
  char?: string;
  multiple?: boolean;
  options?: string[];
  /** "table|wide|json|...=...": the plain values of a flag that checks its own (-o), see below. */
  helpValue?: string;
  default?: unknown;
  env?: string;
  dependsOn?: string[];
  exclusive?: string[];
  exactlyOne?: string[];
  relationships?: unknown[];
  required?: boolean;
}

/**
 * The values this reader takes for a flag: its options, or for a flag that checks its values
 * itself (-o, whose kubectl templates oclif reads through the flag's own parse) the plain ones its
 * help value lists: `-o json` starts directly, `-o jsonpath=...` and `-o xml` go to oclif.
 */
function choicesOf(f: ManifestFlag): readonly string[] | undefined {
  if (f.options) return f.options;
  if (typeof f.helpValue === 'string' && f.helpValue.includes('|'))
    return f.helpValue.split('|').filter((v) => !v.includes('=') && !v.includes('.'));
  return undefined;
}

export type DirectFlags = Record<string, string | string[] | boolean | undefined>;

/**
 * The flags of `argv` (the words after the command's id), or undefined when oclif must read it.
 * `env` supplies the values of flags that name an environment variable and were not given.
 */
export function parseDirect(
  argv: readonly string[],
  spec: Readonly<Record<string, ManifestFlag>>,
  env: Readonly<Record<string, string | undefined>> = {},
): DirectFlags | undefined {
  for (const f of Object.values(spec)) {
    // Relations between flags and required flags are oclif's to check and to explain.
    if (f.required || f.dependsOn || f.exclusive || f.exactlyOne || f.relationships) return undefined;
    if (typeof f.default === 'function') return undefined;
  }
  const byChar = new Map<string, string>();
  for (const [name, f] of Object.entries(spec)) if (f.char) byChar.set(f.char, name);

  const out: DirectFlags = {};
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    let name: string | undefined;
    let value: string | undefined;
    const long = /^--([a-z0-9][a-z0-9-]*)(?:=([\s\S]*))?$/.exec(word);
    const short = /^-([a-zA-Z])$/.exec(word);
    if (long) {
      name = long[1]!;
      value = long[2];
    } else if (short) {
      name = byChar.get(short[1]!);
    }
    // Help, --version, `--`, arguments, `-ojson`, aliases and unknown names: oclif's.
    if (!name || !Object.hasOwn(spec, name)) return undefined;
    const f = spec[name]!;
    if (f.type === 'boolean') {
      if (value !== undefined || out[name] !== undefined) return undefined;
      out[name] = true;
      continue;
    }
    if (value === undefined) {
      const next = argv[i + 1];
      // A value that looks like a flag is oclif's to judge (it may be a missing value).
      if (next === undefined || next.startsWith('-')) return undefined;
      value = next;
      i++;
    }
    const choices = choicesOf(f);
    if (choices && !choices.includes(value)) return undefined;
    if (f.multiple) {
      const list = (out[name] as string[] | undefined) ?? [];
      list.push(value);
      out[name] = list;
    } else {
      if (out[name] !== undefined) return undefined;
      out[name] = value;
    }
  }
  for (const [name, f] of Object.entries(spec)) {
    if (out[name] !== undefined) continue;
    const fromEnv = f.env ? env[f.env] : undefined;
    if (fromEnv !== undefined && f.type === 'option') {
      const choices = choicesOf(f);
      if (choices && !choices.includes(fromEnv)) return undefined;
      out[name] = f.multiple ? [fromEnv] : fromEnv;
    } else if (f.env && fromEnv !== undefined) {
      return undefined; // a boolean from the environment: oclif's rules
    } else if (f.default !== undefined) {
      if (f.type === 'boolean' ? typeof f.default !== 'boolean' : typeof f.default !== 'string')
        return undefined;
      out[name] = f.multiple && typeof f.default === 'string' ? [f.default] : (f.default as string | boolean);
    } else if (f.type === 'boolean') {
      out[name] = false;
    }
  }
  return out;
}
