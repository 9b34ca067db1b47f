// kubectl's --dry-run habits (`--dry-run=client|server|none`, and the value as a separate word)
// meet commands whose --dry-run means something else: erase's is a plain switch (every node's
// worker reports, nothing is removed), install's takes client or server. oclif would answer
// with a generic parse error (or read the word as a target); these say what the flag does.

const VALUES = ['client', 'server', 'none'];

/** The --dry-run value the user meant, spelled `--dry-run=X` or `--dry-run X`, with how it was written. */
function dryRunWords(argv: string[]): { value: string; written: string } | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    const eq = /^--dry-run=(.*)$/.exec(a);
    if (eq) return { value: eq[1]!, written: a };
    if (a === '--dry-run' && VALUES.includes(argv[i + 1] ?? ''))
      return { value: argv[i + 1]!, written: `--dry-run ${argv[i + 1]}` };
  }
  return undefined;
}

/** For `inv erase`: any value is a misreading. */
export function eraseDryRunProblem(argv: string[]): string | undefined {
  const d = dryRunWords(argv);
  if (!d) return undefined;
  return `--dry-run takes no value (got ${d.written}): an erase dry run has every selected node's worker report what it would remove, and removes nothing; there is no client- or server-side variant as in kubectl`;
}

/** For `inv install`: client or server, written with "=" (a bare --dry-run means client). */
export function installDryRunProblem(argv: string[]): string | undefined {
  const d = dryRunWords(argv);
  if (!d || (d.written.includes('=') && (d.value === 'client' || d.value === 'server'))) return undefined;
  const what =
    'client (also a bare --dry-run) prints the objects as YAML and contacts no cluster; server has the API server say what install would do to each object, and changes nothing';
  if (d.value === 'none')
    return `--dry-run takes client or server (got ${d.written}; leave the flag out to install for real): ${what}`;
  if (!d.written.includes('=') && (d.value === 'client' || d.value === 'server'))
    return `write --dry-run=${d.value} (got ${d.written}, whose ${d.value} would be read as an argument): ${what}`;
  return `--dry-run takes client or server (got ${d.written}): ${what}`;
}

/** For `inv uninstall`: a plain switch, like erase's. */
export function uninstallDryRunProblem(argv: string[]): string | undefined {
  const d = dryRunWords(argv);
  if (!d) return undefined;
  return `--dry-run takes no value (got ${d.written}): an uninstall dry run reads the cluster and says what would be deleted and what kept, and deletes nothing`;
}
